import { escapeXml as x, formatDelta, formatNumber, warningWhen } from './escape.ts';
import type { ScenarioOutcome } from './outcome.ts';

interface Case {
  name: string;
  failure?: { message: string; body: string };
}

/**
 * junit.xml: a testsuite per scenario, a testcase per budget (the built-in invariant budget included) and
 * per baseline regression. A failure carries the numbers and the command that reproduces the run.
 */
export function renderJUnit(outcomes: readonly ScenarioOutcome[]): string {
  const suites = outcomes.map((o) => ({ o, cases: casesOf(o) }));
  const tests = suites.reduce((n, s) => n + s.cases.length, 0);
  const failures = suites.reduce((n, s) => n + s.cases.filter((c) => c.failure).length, 0);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="routerbench" tests="${tests}" failures="${failures}" errors="0">`];
  for (const { o, cases } of suites) {
    const r = o.report;
    const f = cases.filter((c) => c.failure).length;
    out.push(`  <testsuite name="${x(r.scenario)}" tests="${cases.length}" failures="${f}" errors="0" skipped="0" time="0">`);
    out.push('    <properties>');
    for (const [k, v] of [
      ['strategy', r.strategy],
      ['seed', String(r.seed)],
      ['simulatedMs', String(r.simulatedMs)],
      ['events', String(r.events)],
      ['reproduce', r.reproduce],
    ] as const) {
      out.push(`      <property name="${k}" value="${x(v)}"/>`);
    }
    out.push('    </properties>');
    for (const c of cases) {
      const open = `    <testcase classname="routerbench.${x(r.scenario)}" name="${x(c.name)}" time="0"`;
      if (c.failure === undefined) out.push(`${open}/>`);
      else {
        out.push(`${open}>`);
        out.push(`      <failure message="${x(c.failure.message)}" type="budget">${x(c.failure.body)}</failure>`);
        out.push('    </testcase>');
      }
    }
    // Warnings do not fail a run; CI viewers show a suite's system-err beside its cases.
    if (r.warnings.total > 0) out.push(`    <system-err>${x(r.warnings.list.map((w) => `warning: ${w.message} (${warningWhen(w)})`).join('\n'))}</system-err>`);
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

function casesOf(o: ScenarioOutcome): Case[] {
  const r = o.report;
  const tail = `scenario ${r.scenario}, strategy ${r.strategy}, seed ${r.seed}\nreproduce: ${r.reproduce}`;
  const cases: Case[] = r.budgets.map((b) => {
    const name = `${b.name} ${b.limit}`;
    if (b.pass) return { name };
    const message = `${b.name} = ${formatNumber(b.actual)}, budget ${b.limit}`;
    return { name, failure: { message, body: `${message}\n${tail}\n` } };
  });
  for (const row of o.comparison?.rows ?? []) {
    if (row.verdict !== 'regressed') continue;
    const message = `${row.path} = ${formatNumber(row.actual)}, baseline ${formatNumber(row.baseline)} (${formatDelta(row.delta, row.deltaRatio)}${row.tolerance ? `, tolerance ${row.tolerance}` : ', exact'})`;
    cases.push({ name: `baseline ${row.path}`, failure: { message, body: `${message}\n${tail}\n` } });
  }
  return cases;
}
