import { expect, test } from 'vitest';
import { evaluateBudgets } from '../budgets.ts';
import { sampleReport } from '../report-fixture.ts';
import type { Report } from '../report.ts';
import { renderIndexHtml } from './index-html.ts';

function judged(r: Report, budgets: string[]): Report {
  const results = evaluateBudgets(r, budgets);
  return { ...r, budgets: results, pass: results.every((b) => b.pass) };
}

test('index.html: a row per scenario, failures first with what broke, each linking to its report.html; input escaped', () => {
  const calm = judged(sampleReport({ scenario: 'calm<script>' }), ['reloads.total <= 5']);
  // sampleReport reloads 3 times: a budget of 2 breaks.
  const busy = judged(sampleReport({ scenario: 'busy' }), ['reloads.total <= 2']);
  const page = renderIndexHtml([{ report: calm }, { report: busy }], ['calm dir', 'busy']);
  expect(page).toContain('<title>routerbench: 2 scenarios, 1 failed</title>');
  expect(page.indexOf('>busy</a>')).toBeLessThan(page.indexOf('>calm&lt;script&gt;</a>'));
  expect(page).toContain('<td><a href="busy/report.html">busy</a></td><td class="bad">FAIL</td><td>reloads.total = 3, budget &lt;= 2</td>');
  expect(page).toContain('<a href="calm%20dir/report.html">');
  expect(page).not.toContain('<script');
});
