import { budgetFailureLines, budgetFailureMessage } from './failure-detail.ts';
import { escapeXml as x, formatDelta, formatNumber, warningWhen } from './escape.ts';
import { lineOfBudget, type ScenarioOutcome } from './outcome.ts';

interface Case {
  name: string;
  /** The metric the case judges: its line in the scenario file is the case's. */
  metric: string;
  failure?: { message: string; body: string };
  skipped?: string;
}

/**
 * junit.xml: a testsuite per scenario, a testcase per budget (the built-in invariant budget included) and
 * per baseline regression. A testcase names the scenario file and the line that states its budget (CI
 * annotations point there); the suite's time, and its first case's, is the run's wall time (the first
 * case is the one that runs the scenario, as in vitest). A failure carries the numbers, the first
 * invariant violations and the command that reproduces the run; a budget the run could not judge is
 * skipped, saying why.
 */
export function renderJUnit(outcomes: readonly ScenarioOutcome[]): string {
  const suites = outcomes.map((o) => ({ o, cases: casesOf(o) }));
  const count = (pick: (c: Case) => boolean): number => suites.reduce((n, s) => n + s.cases.filter(pick).length, 0);
  const tests = count(() => true);
  const time = seconds(outcomes.reduce((t, o) => t + (o.wallMs ?? 0), 0));
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="routerbench" tests="${tests}" failures="${count((c) => c.failure !== undefined)}" errors="0" skipped="${count((c) => c.skipped !== undefined)}" time="${time}">`,
  ];
  for (const { o, cases } of suites) {
    const r = o.report;
    const f = cases.filter((c) => c.failure).length;
    const s = cases.filter((c) => c.skipped !== undefined).length;
    const file = o.file === undefined ? '' : ` file="${x(o.file)}"`;
    out.push(`  <testsuite name="${x(r.scenario)}" tests="${cases.length}" failures="${f}" errors="0" skipped="${s}" time="${seconds(o.wallMs ?? 0)}"${file}>`);
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
    cases.forEach((c, i) => {
      const where = o.file === undefined ? '' : ` file="${x(o.file)}" line="${lineOfBudget(o.budgetLines, c.metric)}"`;
      const open = `    <testcase classname="routerbench.${x(r.scenario)}" name="${x(c.name)}" time="${i === 0 ? seconds(o.wallMs ?? 0) : '0'}"${where}`;
      if (c.failure !== undefined) {
        out.push(`${open}>`, `      <failure message="${x(c.failure.message)}" type="budget">${x(c.failure.body)}</failure>`, '    </testcase>');
      } else if (c.skipped !== undefined) {
        out.push(`${open}>`, `      <skipped message="${x(c.skipped)}"/>`, '    </testcase>');
      } else {
        out.push(`${open}/>`);
      }
    });
    // Warnings do not fail a run; CI viewers show a suite's system-err beside its cases.
    if (r.warnings.total > 0) out.push(`    <system-err>${x(r.warnings.list.map((w) => `warning: ${w.message} (${warningWhen(w)})`).join('\n'))}</system-err>`);
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/** JUnit times are seconds. */
function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function casesOf(o: ScenarioOutcome): Case[] {
  const r = o.report;
  const tail = `scenario ${r.scenario}${o.file === undefined ? '' : ` (${o.file})`}, strategy ${r.strategy}, seed ${r.seed}\nreproduce: ${r.reproduce}`;
  const cases: Case[] = r.budgets.map((b) => {
    const name = `${b.name} ${b.limit}`;
    if (b.skipped !== undefined) return { name, metric: b.name, skipped: b.skipped };
    if (b.pass) return { name, metric: b.name };
    return { name, metric: b.name, failure: { message: budgetFailureMessage(b), body: `${budgetFailureLines(r, b).join('\n')}\n${tail}\n` } };
  });
  for (const row of o.comparison?.rows ?? []) {
    if (row.verdict !== 'regressed') continue;
    const message = `${row.path} = ${formatNumber(row.actual)}, baseline ${formatNumber(row.baseline)} (${formatDelta(row.delta, row.deltaRatio)}${row.tolerance ? `, tolerance ${row.tolerance}` : ', exact'})`;
    cases.push({ name: `baseline ${row.path}`, metric: row.path, failure: { message, body: `${message}\n${tail}\n` } });
  }
  return cases;
}
