import { expect, test } from 'vitest';
import { compareWithBaseline } from '../baseline.ts';
import { evaluateBudgets } from '../budgets.ts';
import { sampleReport } from '../report-fixture.ts';
import type { Report } from '../report.ts';
import { renderJUnit } from './junit.ts';
import { renderMarkdownSummary } from './markdown.ts';
import { renderSummaryTable } from './terminal.ts';

function judged(r: Report, budgets: string[]): Report {
  const results = evaluateBudgets(r, budgets);
  return { ...r, budgets: results, pass: results.every((b) => b.pass) };
}

const failing = judged(sampleReport(), ['reloads.total <= 2', 'failover.p99 <= 4000']);
const passing = judged(sampleReport({ scenario: 'calm|<b>x</b>' }), ['reloads.total <= 5']);

test('summary.md: failures first with their reproduce line; passes folded; a Δ column only against a baseline', () => {
  const base = sampleReport({ reloads: { total: 2, perHour: 1, requests: { initial: 1, 'route-change': 4 } } });
  const md = renderMarkdownSummary([{ report: passing }, { report: failing, comparison: compareWithBaseline(failing, base) }]);
  expect(md).toBe(
    [
      '## routerbench: 2 scenarios, 1 failed',
      '',
      '### ❌ sample — reload-always, seed 7',
      '',
      '120 events, 7200 s simulated, 3 reloads, failover p99 3990 ms',
      '',
      '| Metric | Budget | Actual | Δ vs baseline | Verdict |',
      '|---|---|---:|---:|---|',
      '| invariants.violations | == 0 | 0 | 0 | ✅ pass |',
      // 2 → 3 reloads: +1, +50%.
      '| reloads.total | <= 2 | 3 | +1 (+50%) | ❌ fail |',
      '| failover.latencyMs.p99 | <= 4000 | 3990 | 0 | ✅ pass |',
      '| reloads.perHour | baseline | 1.5 | +0.5 (+50%) | ❌ regressed |',
      '',
      'Reproduce: `routerbench run scenarios/sample.yaml --seed 7`',
      '',
      '<details>',
      '<summary>✅ 1 passed</summary>',
      '',
      // Pipes and HTML in a scenario name are escaped.
      '### ✅ calm\\|&lt;b&gt;x&lt;/b&gt; — reload-always, seed 7',
      '',
      '120 events, 7200 s simulated, 3 reloads, failover p99 3990 ms',
      '',
      '| Metric | Budget | Actual | Verdict |',
      '|---|---|---:|---|',
      '| invariants.violations | == 0 | 0 | ✅ pass |',
      '| reloads.total | <= 5 | 3 | ✅ pass |',
      '',
      '</details>',
      '',
    ].join('\n'),
  );
});

/** A run with `n` invariant violations, one event and one reload (the singular forms). */
function violated(n: number): Report {
  const violations = Array.from({ length: n }, (_, i) => ({ atMs: 1500 * (i + 1), name: 'haproxy-view', detail: `shop/web-${i} http://web-${i}.example.com/: backend be_http:shop:web-${i} serves [], expected [10.0.0.${i}:8080]` }));
  const r = sampleReport({ events: 1, reloads: { total: 1, perHour: 0.5, requests: { initial: 1 } }, invariants: { checked: 3, violations } });
  return judged(r, []);
}

test('summary.md: a failed invariant lists its first five violations (route, expected, served) and counts the rest; one scenario passes alone', () => {
  const md = renderMarkdownSummary([{ report: violated(7) }]);
  expect(md).toContain('## routerbench: 1 scenario, 1 failed\n');
  expect(md).toContain('1 event, 7200 s simulated, 1 reload, failover p99 3990 ms\n');
  expect(md).toContain(
    [
      'Invariant violations (7):',
      '',
      '- at 1.5 s, haproxy-view: shop/web-0 http://web-0.example.com/: backend be_http:shop:web-0 serves [], expected [10.0.0.0:8080]',
      '- at 3 s, haproxy-view: shop/web-1 http://web-1.example.com/: backend be_http:shop:web-1 serves [], expected [10.0.0.1:8080]',
    ].join('\n'),
  );
  expect(md).toContain('- at 7.5 s, haproxy-view: shop/web-4');
  expect(md).not.toContain('web-5');
  // 7 violations, 5 shown.
  expect(md).toContain('- … and 2 more violations (report.json lists them all)');
  expect(md).not.toContain('<details>');
  expect(renderMarkdownSummary([{ report: passing }])).toMatch(/^## routerbench: 1 scenario, passed\n/);
});

test('junit.xml: a testcase per budget at its line of the scenario file; the run wall time; failures carry numbers, violations and the reproduce command', () => {
  const lines = { section: 9, byMetric: { 'reloads.total': 10 } };
  const xml = renderJUnit([{ report: failing, file: 'scenarios/sample.yaml', budgetLines: lines, wallMs: 1234.6 }, { report: passing, wallMs: 20 }]);
  // 1.2346 s and 0.020 s, 1.2546 s in all.
  expect(xml).toContain('<testsuites name="routerbench" tests="5" failures="1" errors="0" skipped="0" time="1.255">');
  expect(xml).toContain('<testsuite name="sample" tests="3" failures="1" errors="0" skipped="0" time="1.235" file="scenarios/sample.yaml">');
  // The first case runs the scenario (as in vitest); the built-in budget is stated nowhere: the budgets: line.
  expect(xml).toContain('<testcase classname="routerbench.sample" name="invariants.violations == 0" time="1.235" file="scenarios/sample.yaml" line="9"/>');
  expect(xml).toContain('<testcase classname="routerbench.sample" name="reloads.total &lt;= 2" time="0" file="scenarios/sample.yaml" line="10">');
  expect(xml).toContain('<failure message="reloads.total = 3, budget &lt;= 2" type="budget">reloads.total = 3, budget &lt;= 2\nscenario sample (scenarios/sample.yaml), strategy reload-always, seed 7\nreproduce: routerbench run scenarios/sample.yaml --seed 7\n</failure>');
  expect(xml).toContain('<testcase classname="routerbench.sample" name="failover.latencyMs.p99 &lt;= 4000" time="0" file="scenarios/sample.yaml" line="9"/>');
  expect(xml).toContain('<testsuite name="calm|&lt;b&gt;x&lt;/b&gt;" tests="2" failures="0" errors="0" skipped="0" time="0.020">');
  expect(xml).toContain('<property name="reproduce" value="routerbench run scenarios/sample.yaml --seed 7"/>');

  const broken = renderJUnit([{ report: violated(6), file: 'v.yaml' }]);
  expect(broken).toContain('<failure message="invariants.violations = 6, budget == 0" type="budget">invariants.violations = 6, budget == 0\nat 1.5 s, haproxy-view: shop/web-0 http://web-0.example.com/: backend be_http:shop:web-0 serves [], expected [10.0.0.0:8080]\n');
  expect(broken).toContain('… and 1 more violation (report.json lists them all)\nscenario sample (v.yaml)');
});

test('junit.xml and summary.md: a budget the run could not judge is skipped, saying why, never passed', () => {
  const report: Report = { ...passing, budgets: [...passing.budgets, { name: 'failover.incidents', limit: '== 1', actual: null, pass: true, skipped: 'live mode runs no keepalived cluster' }] };
  const xml = renderJUnit([{ report }]);
  expect(xml).toContain('tests="3" failures="0" errors="0" skipped="1"');
  expect(xml).toContain('<testcase classname="routerbench.calm|&lt;b&gt;x&lt;/b&gt;" name="failover.incidents == 1" time="0">\n      <skipped message="live mode runs no keepalived cluster"/>\n    </testcase>');
  const md = renderMarkdownSummary([{ report }]);
  expect(md).toContain('## routerbench: 1 scenario, passed, 1 budget not judged\n');
  expect(md).toContain('| failover.incidents | == 1 | — | ⏭️ not judged: live mode runs no keepalived cluster |');
});

test('junit.xml: a baseline regression is a failing testcase of its own', () => {
  const now = judged(sampleReport(), []);
  const base = sampleReport({ reloads: { total: 2, perHour: 1.5, requests: { initial: 1, 'route-change': 4 } } });
  const xml = renderJUnit([{ report: now, comparison: compareWithBaseline(now, base) }]);
  expect(xml).toContain('name="baseline reloads.total"');
  expect(xml).toContain('message="reloads.total = 3, baseline 2 (+1 (+50%), exact)"');
  expect(xml).toContain('failures="1"');
});

test('junit.xml strips characters XML cannot carry', () => {
  const xml = renderJUnit([{ report: judged(sampleReport({ scenario: 'bad\u0001name' }), []) }]);
  expect(xml).toContain('name="bad\uFFFDname"');
});

test('summary.md and the terminal table show traffic black-holed behind a live VIP when there was any', () => {
  const base = sampleReport();
  const holed = sampleReport({ failover: { ...base.failover, blackholeMs: 1500 } });
  expect(renderMarkdownSummary([{ report: holed }])).toContain('120 events, 7200 s simulated, 3 reloads, failover p99 3990 ms, traffic black-holed 1500 ms\n');
  expect(renderMarkdownSummary([{ report: base }])).toContain('failover p99 3990 ms\n');
  const table = renderSummaryTable([holed, base]).split('\n');
  expect(table[0]).toMatch(/failover p99 +black hole +verdict$/);
  expect(table[2]).toMatch(/3990ms +1500ms +pass$/);
  expect(table[3]).toMatch(/3990ms +- +pass$/);
});
