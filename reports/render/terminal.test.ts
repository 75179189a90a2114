import { expect, test } from 'vitest';
import { sampleReport } from '../report-fixture.ts';
import { renderSummaryTable } from './terminal.ts';

test('a budget the run could not judge is counted and named as not judged, apart from the passes', () => {
  const report = sampleReport();
  const skipped = { ...report, budgets: [...report.budgets, { name: 'failover.incidents', limit: '== 1', actual: null, pass: true, skipped: 'live mode runs no keepalived cluster' }] };
  const text = renderSummaryTable([skipped]);
  expect(text).toContain('\n1 passed, 0 failed, 1 budget not judged\nnot judged: sample: failover.incidents == 1 (live mode runs no keepalived cluster)\n');
  expect(renderSummaryTable([report])).toContain('\n1 passed, 0 failed\n');
});
