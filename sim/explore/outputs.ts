import { escapeMarkdownCell as md, escapeXml as x } from '../../reports/render/escape.ts';
import { PROPERTIES } from './properties.ts';
import type { ExploreResult, Finding } from './explore.ts';

/** What `explore` (and `merge` of explore shards) writes under --out, by relative path. */
export function exploreFiles(result: ExploreResult): Record<string, string> {
  const files: Record<string, string> = {
    'explore.json': `${JSON.stringify(result, null, 2)}\n`,
    'junit.xml': renderExploreJUnit(result),
    'summary.md': renderExploreMarkdown(result),
  };
  for (const f of result.findings) files[f.file] = findingText(f);
  return files;
}

/** The finding's scenario, headed by comments naming its seed, property and how to reproduce it. */
export function findingText(f: Finding): string {
  return [
    `# routerbench explore: ${f.property} under ${f.strategy}, run ${f.run} (seed ${f.seed}), ${f.before} → ${f.after} events`,
    `# ${f.detail.replace(/\n/g, ' ')}`,
    `# reproduce: ${reproduceLine(f)}`,
    `# the whole run: ${seedLine(f)}`,
    f.scenario,
  ].join('\n');
}

export function reproduceLine(f: Finding): string {
  return `routerbench explore --replay ${f.file}`;
}

export function seedLine(f: Finding): string {
  return `routerbench explore --seed ${f.seed} --runs 1 --strategies ${f.strategy}`;
}

/** The table on stdout: a row per finding, then the verdict. */
export function renderExploreSummary(result: ExploreResult, out: string | undefined): string {
  const lines = [`explore seed ${result.seed}: ${result.runs} run${result.runs === 1 ? '' : 's'}, each under ${result.strategies.join(', ')}${result.shard ? `, shard ${result.shard.index}/${result.shard.count}` : ''}`];
  if (result.findings.length === 0) lines.push('no property violated');
  else {
    const rows = [['property', 'strategy', 'runs', 'first seed', 'events', 'verdict', 'file'], ...result.findings.map((f) => [f.property, f.strategy, String(f.runs), String(f.seed), `${f.before} → ${f.after}`, f.allowed ? 'allowed' : 'FAIL', f.file])];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows) lines.push(r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
  }
  const failing = result.findings.filter((f) => !f.allowed);
  for (const f of failing) lines.push(`${f.property} (${f.strategy}): ${f.detail}`, `  reproduce: ${out === undefined ? seedLine(f) : `cd ${out} && ${reproduceLine(f)}`}`);
  lines.push(result.pass ? `pass: ${result.findings.length === 0 ? 'nothing found' : 'only allowed findings'}` : `FAIL: ${failing.length} finding${failing.length === 1 ? '' : 's'} not allowed (--allow PROPERTY or PROPERTY@STRATEGY to accept known ones)`);
  return `${lines.join('\n')}\n`;
}

/** junit.xml: a testcase per property and strategy; a finding fails it, an allowed one skips it. */
export function renderExploreJUnit(result: ExploreResult): string {
  const cases: string[] = [];
  let failures = 0;
  let skipped = 0;
  for (const p of PROPERTIES) {
    for (const s of result.strategies) {
      const f = result.findings.find((g) => g.property === p.name && g.strategy === s);
      const open = `    <testcase classname="routerbench.explore.${x(s)}" name="${x(p.name)}" time="0"`;
      if (f === undefined) cases.push(`${open}/>`);
      else if (f.allowed) {
        skipped++;
        cases.push(`${open}>`, `      <skipped message="${x(`allowed: ${f.detail}`)}"/>`, '    </testcase>');
      } else {
        failures++;
        const body = `${f.detail}\nfound by run ${f.run} (seed ${f.seed}) and ${f.runs - 1} more; shrunk ${f.before} → ${f.after} events: ${f.file}\nreproduce: ${reproduceLine(f)}\n`;
        cases.push(`${open}>`, `      <failure message="${x(`${p.name}: ${f.detail}`)}" type="property">${x(body)}</failure>`, '    </testcase>');
      }
    }
  }
  const tests = PROPERTIES.length * result.strategies.length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="routerbench explore" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}">`,
    `  <testsuite name="explore seed ${result.seed}" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

export function renderExploreMarkdown(result: ExploreResult): string {
  const lines = [`## routerbench explore: ${result.pass ? 'pass' : 'FAIL'}`, '', `Seed ${result.seed}, ${result.runs} runs under ${result.strategies.join(', ')}.`, ''];
  if (result.findings.length === 0) lines.push('No property violated.');
  else {
    lines.push('| property | strategy | runs | first seed | events | verdict | file |', '|---|---|---:|---:|---|---|---|');
    for (const f of result.findings) lines.push(`| ${md(f.property)} | ${md(f.strategy)} | ${f.runs} | ${f.seed} | ${f.before} → ${f.after} | ${f.allowed ? 'allowed' : '**FAIL**'} | ${md(f.file)} |`);
    lines.push('');
    for (const f of result.findings) lines.push(`- **${md(f.property)}** (${md(f.strategy)}): ${md(f.detail)}; reproduce: \`${reproduceLine(f)}\``);
  }
  return `${lines.join('\n')}\n`;
}
