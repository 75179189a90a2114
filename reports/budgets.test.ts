import { describe, expect, test } from 'vitest';
import { BudgetSyntaxError, budgetsFromMap, evaluateBudgets, holds, metricAt, parseBudget } from './budgets.ts';
import { sampleReport } from './report-fixture.ts';

describe('parseBudget', () => {
  test('reads the spaced, unspaced and map forms alike', () => {
    const want = { path: 'reloads.total', op: '<=', value: 2, text: 'reloads.total <= 2' };
    expect(parseBudget('reloads.total <= 2')).toEqual(want);
    expect(parseBudget('reloads.total<=2')).toEqual(want);
    expect(parseBudget('  reloads.total   <=   2 ')).toEqual(want);
    expect(parseBudget('reloads.total', '<= 2')).toEqual(want);
    expect(parseBudget('reloads.total', '<=2')).toEqual(want);
  });

  test('reads every operator, the two-character ones not split', () => {
    expect(parseBudget('reloads.total<2').op).toBe('<');
    expect(parseBudget('reloads.total>=2').op).toBe('>=');
    expect(parseBudget('reloads.total>2').op).toBe('>');
    expect(parseBudget('reloads.total==2').op).toBe('==');
    expect(parseBudget('reloads.total!=2').op).toBe('!=');
  });

  test('reads reason paths with dashes, decimals and aliases', () => {
    expect(parseBudget('reloads.requests.pool-exhausted == 0').path).toBe('reloads.requests.pool-exhausted');
    expect(parseBudget('reloads.perHour <= 0.5').value).toBe(0.5);
    expect(parseBudget('failover.p99 <= 4000').text).toBe('failover.latencyMs.p99 <= 4000');
  });

  test.each([
    ['reloads.total 2', /op one of/],
    ['<= 2', /no metric/],
    ['reloads.total <=', /no number after '<='/],
    ['reloads.total <= two', /'two' is not a number/],
    ['reloads.total <= 2 reloads', /is not a number/],
    // One edit from reloads.total (a quarter of its 13 letters allows 3).
    ['reloads.totl <= 2', /unknown metric 'reloads.totl' \(did you mean 'reloads.total'\?\)/],
    // One edit from the failover.p99 alias, two from failover.p95: the nearest is named.
    ['failover.p999 <= 2', /did you mean 'failover.p99'\?/],
    ['reloads.requests.pool-exausted == 0', /unknown reload reason 'pool-exausted' \(did you mean 'pool-exhausted'\?\)/],
    ['nothing.like.it <= 2', /unknown metric 'nothing.like.it'; known:/],
    ['reloads..total <= 2', /not a metric path/],
    ['reloads.total => 2', /'=>' is not an operator/],
    ['reloads.total = 2', /'=' is not an operator/],
  ])('%s is a BudgetSyntaxError', (text, message) => {
    expect(() => parseBudget(text)).toThrow(BudgetSyntaxError);
    expect(() => parseBudget(text)).toThrow(message);
  });

  test('map form: a bound without an operator is an error', () => {
    expect(() => parseBudget('reloads.total', '2')).toThrow(/must start with one of/);
  });
});

describe('metricAt', () => {
  const report = sampleReport();
  test('reads plain numbers at dotted paths', () => {
    expect(metricAt(report, 'reloads.total')).toBe(3);
    expect(metricAt(report, 'reloads.perHour')).toBe(1.5);
    expect(metricAt(report, 'runtimeApi.errors')).toBe(1);
    expect(metricAt(report, 'failover.latencyMs.p99')).toBe(3990);
    expect(metricAt(report, 'failover.p99')).toBe(3990);
  });
  test('a reload reason with no requests counts 0; a present one its count', () => {
    expect(metricAt(report, 'reloads.requests.pool-exhausted')).toBe(0);
    expect(metricAt(report, 'reloads.requests.route-change')).toBe(4);
  });
  test('an unknown reason that the report does not have is an error, not a silent 0', () => {
    expect(() => metricAt(report, 'reloads.requests.pool-exausted')).toThrow(/unknown reload reason/);
  });
  test('a reason the report has is read even if this build does not know it', () => {
    const r = sampleReport({ reloads: { total: 1, perHour: 1, requests: { 'brand-new': 2 } } });
    expect(metricAt(r, 'reloads.requests.brand-new')).toBe(2);
  });
  test('invariants.violations is a count', () => {
    const r = sampleReport({
      invariants: {
        checked: 3,
        violations: [
          { atMs: 1, name: 'a', detail: 'x' },
          { atMs: 2, name: 'b', detail: 'y' },
        ],
      },
    });
    expect(metricAt(r, 'invariants.violations')).toBe(2);
  });
  test('a latency percentile of a run with no failover is null', () => {
    const r = sampleReport();
    r.failover.latencyMs = { p50: null, p95: null, p99: null, max: null };
    expect(metricAt(r, 'failover.latencyMs.p99')).toBeNull();
  });
  test('an unknown path throws', () => {
    expect(() => metricAt(report, 'nope')).toThrow(BudgetSyntaxError);
  });
});

describe('holds', () => {
  test('null holds upper bounds only', () => {
    expect(holds(null, '<=', 0)).toBe(true);
    expect(holds(null, '<', 0)).toBe(true);
    expect(holds(null, '>=', 0)).toBe(false);
    expect(holds(null, '==', 0)).toBe(false);
  });
  test('boundaries', () => {
    expect(holds(2, '<=', 2)).toBe(true);
    expect(holds(2, '<', 2)).toBe(false);
    expect(holds(2, '>=', 2)).toBe(true);
    expect(holds(2, '>', 2)).toBe(false);
    expect(holds(2, '==', 2)).toBe(true);
    expect(holds(2, '!=', 2)).toBe(false);
  });
});

describe('evaluateBudgets', () => {
  test('judges each budget, built-in invariant budget first', () => {
    const results = evaluateBudgets(sampleReport(), ['reloads.total <= 2', 'failover.p99<=4000', 'reloads.requests.pool-exhausted == 0']);
    expect(results).toEqual([
      { name: 'invariants.violations', limit: '== 0', actual: 0, pass: true },
      // sampleReport has 3 reloads: 3 <= 2 fails.
      { name: 'reloads.total', limit: '<= 2', actual: 3, pass: false },
      { name: 'failover.latencyMs.p99', limit: '<= 4000', actual: 3990, pass: true },
      { name: 'reloads.requests.pool-exhausted', limit: '== 0', actual: 0, pass: true },
    ]);
  });
  test('the built-in budget fails a run with an invariant violation even with no budgets given', () => {
    const r = sampleReport({ invariants: { checked: 1, violations: [{ atMs: 5, name: 'slots', detail: 'x' }] } });
    expect(evaluateBudgets(r, [])).toEqual([{ name: 'invariants.violations', limit: '== 0', actual: 1, pass: false }]);
  });
  test('the same budget written twice is judged once', () => {
    expect(evaluateBudgets(sampleReport(), ['reloads.total<=5', 'reloads.total <= 5', 'invariants.violations == 0'])).toHaveLength(2);
  });
  test('an unknown metric is an input error', () => {
    expect(() => evaluateBudgets(sampleReport(), ['reloads.count <= 2'])).toThrow(BudgetSyntaxError);
  });
});

test('budgetsFromMap canonicalises each entry', () => {
  expect(budgetsFromMap({ 'reloads.total': '<= 2', 'failover.p99': '<4000' })).toEqual([
    'reloads.total <= 2',
    'failover.latencyMs.p99 < 4000',
  ]);
});

describe('VRRP traffic, spread and exposure metrics', () => {
  test('read from the failover section when the run had a cluster, null otherwise', () => {
    const base = sampleReport();
    const traffic = { mode: 'unicast' as const, nodes: 3, advertsSent: 600, packetsSent: 1200, deliveries: 1200, dropped: 0, advertsPerSec: 1, packetsPerSec: 2 };
    const withCluster = sampleReport({
      failover: { ...base.failover, traffic, spread: { mastersByNode: { a: 2, b: 1 }, min: 1, max: 2, cv: 0.333 }, exposure: { windows: [], totalMs: 1500 } },
    });
    expect(metricAt(withCluster, 'failover.traffic.packetsSent')).toBe(1200);
    expect(metricAt(withCluster, 'failover.spread.max')).toBe(2);
    expect(metricAt(withCluster, 'failover.exposure.totalMs')).toBe(1500);
    expect(metricAt(base, 'failover.traffic.packetsSent')).toBeNull();
  });
});
