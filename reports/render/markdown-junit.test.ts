import { expect, test } from 'vitest';
import { compareWithBaseline } from '../baseline.ts';
import { evaluateBudgets } from '../budgets.ts';
import { sampleReport } from '../report-fixture.ts';
import type { Report } from '../report.ts';
import { renderJUnit } from './junit.ts';
import { renderMarkdownSummary } from './markdown.ts';

function judged(r: Report, budgets: string[]): Report {
  const results = evaluateBudgets(r, budgets);
  return { ...r, budgets: results, pass: results.every((b) => b.pass) };
}

const failing = judged(sampleReport(), ['reloads.total <= 2', 'failover.p99 <= 4000']);
const passing = judged(sampleReport({ scenario: 'calm|<b>x</b>' }), ['reloads.total <= 5']);

test('summary.md: a table per scenario with budget, actual, delta and verdict', () => {
  const base = sampleReport({ reloads: { total: 2, perHour: 1, requests: { initial: 1, 'route-change': 4 } } });
  const md = renderMarkdownSummary([{ report: failing, comparison: compareWithBaseline(failing, base) }, { report: passing }]);
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
      // Pipes and HTML in a scenario name are escaped.
      '### ✅ calm\\|&lt;b&gt;x&lt;/b&gt; — reload-always, seed 7',
      '',
      '120 events, 7200 s simulated, 3 reloads, failover p99 3990 ms',
      '',
      '| Metric | Budget | Actual | Δ vs baseline | Verdict |',
      '|---|---|---:|---:|---|',
      '| invariants.violations | == 0 | 0 | — | ✅ pass |',
      '| reloads.total | <= 5 | 3 | — | ✅ pass |',
      '',
    ].join('\n'),
  );
});

test('junit.xml: a testcase per budget; failures carry numbers and the reproduce command', () => {
  const xml = renderJUnit([{ report: failing }, { report: passing }]);
  expect(xml).toContain('<testsuites name="routerbench" tests="5" failures="1" errors="0">');
  expect(xml).toContain('<testsuite name="sample" tests="3" failures="1" errors="0" skipped="0" time="0">');
  expect(xml).toContain('<testcase classname="routerbench.sample" name="reloads.total &lt;= 2" time="0">');
  expect(xml).toContain('<failure message="reloads.total = 3, budget &lt;= 2" type="budget">reloads.total = 3, budget &lt;= 2\nscenario sample, strategy reload-always, seed 7\nreproduce: routerbench run scenarios/sample.yaml --seed 7\n</failure>');
  expect(xml).toContain('<testcase classname="routerbench.sample" name="failover.latencyMs.p99 &lt;= 4000" time="0"/>');
  expect(xml).toContain('<testsuite name="calm|&lt;b&gt;x&lt;/b&gt;" tests="2" failures="0"');
  expect(xml).toContain('<property name="reproduce" value="routerbench run scenarios/sample.yaml --seed 7"/>');
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
