import { describe, expect, test } from 'vitest';
import { BudgetSyntaxError } from './budgets.ts';
import { compareWithBaseline, parseTolerance, reportShapeError } from './baseline.ts';
import { sampleReport } from './report-fixture.ts';

describe('parseTolerance', () => {
  test('relative and absolute, aliases resolved', () => {
    expect(parseTolerance('failover.p99=5%')).toEqual({ path: 'failover.latencyMs.p99', relative: 0.05, text: 'failover.latencyMs.p99=5%' });
    expect(parseTolerance('reloads.total = 2')).toEqual({ path: 'reloads.total', absolute: 2, text: 'reloads.total=2' });
  });
  test.each(['failover.p99', 'failover.p99=', 'failover.p99=-5%', 'nope=5%'])('%s is an input error', (t) => {
    expect(() => parseTolerance(t)).toThrow(BudgetSyntaxError);
  });
  test('a tolerance on a metric that cannot fail a comparison is refused, not ignored', () => {
    expect(() => parseTolerance('warnings.total=1')).toThrow(/not compared with the baseline/);
    expect(() => parseTolerance('runtimeApi.commands=5%')).toThrow(/never fails a run/);
    expect(() => parseTolerance('reloads.requests.no-such-reason=1')).toThrow(/not compared/);
    expect(parseTolerance('reloads.requests.pool-exhausted=1')).toMatchObject({ path: 'reloads.requests.pool-exhausted', absolute: 1 });
  });
});

describe('compareWithBaseline', () => {
  const row = (c: ReturnType<typeof compareWithBaseline>, path: string) => c.rows.find((r) => r.path === path)!;

  test('identical reports: every metric the same, pass', () => {
    const c = compareWithBaseline(sampleReport(), sampleReport());
    expect(c.pass).toBe(true);
    expect(c.rows.every((r) => r.verdict === 'same')).toBe(true);
    expect(c.warnings).toEqual([]);
  });

  test('simulated counts compare exactly: one more reload is a regression', () => {
    const now = sampleReport({ reloads: { total: 4, perHour: 2, requests: { initial: 1, 'route-change': 4 } } });
    const c = compareWithBaseline(now, sampleReport());
    // Baseline 3 reloads, now 4: +1, +33.3%; per hour 1.5 → 2.
    expect(row(c, 'reloads.total')).toMatchObject({ baseline: 3, actual: 4, delta: 1, verdict: 'regressed' });
    expect(row(c, 'reloads.total').deltaRatio).toBeCloseTo(1 / 3);
    expect(row(c, 'reloads.perHour').verdict).toBe('regressed');
    expect(c.regressions).toBe(2);
    expect(c.pass).toBe(false);
  });

  test('a tolerance admits a worsening up to it, relative to the baseline', () => {
    const now = sampleReport();
    now.failover.latencyMs = { ...now.failover.latencyMs, p99: 4189 };
    // Baseline p99 3990: 5% allows up to 3990 * 1.05 = 4189.5.
    expect(row(compareWithBaseline(now, sampleReport(), ['failover.p99=5%']), 'failover.latencyMs.p99').verdict).toBe('within-tolerance');
    now.failover.latencyMs.p99 = 4190;
    expect(row(compareWithBaseline(now, sampleReport(), ['failover.p99=5%']), 'failover.latencyMs.p99').verdict).toBe('regressed');
  });

  test('improvements pass; neutral metrics are only "changed"', () => {
    const now = sampleReport({ reloads: { total: 1, perHour: 0.5, requests: { initial: 1 } }, events: 200 });
    const c = compareWithBaseline(now, sampleReport());
    expect(row(c, 'reloads.total').verdict).toBe('improved');
    // A reason present only in the baseline reads 0 now: 4 → 0.
    expect(row(c, 'reloads.requests.route-change')).toMatchObject({ baseline: 4, actual: 0, verdict: 'improved' });
    expect(row(c, 'events').verdict).toBe('changed');
    expect(c.pass).toBe(true);
  });

  test('a failover latency appearing where there was none is a regression', () => {
    const base = sampleReport();
    base.failover.latencyMs = { p50: null, p95: null, p99: null, max: null };
    expect(row(compareWithBaseline(sampleReport(), base), 'failover.latencyMs.p99').verdict).toBe('regressed');
  });

  test('a longer black hole is a regression; a baseline from before the figure existed is not compared on it', () => {
    const now = sampleReport();
    now.failover.blackholeMs = 1500;
    expect(row(compareWithBaseline(now, sampleReport()), 'failover.blackholeMs')).toMatchObject({ baseline: 0, actual: 1500, verdict: 'regressed' });
    expect(row(compareWithBaseline(sampleReport(), now), 'failover.blackholeMs').verdict).toBe('improved');
    const old = sampleReport();
    delete (old.failover as { blackholeMs?: number }).blackholeMs;
    const c = compareWithBaseline(now, old);
    expect(c.rows.some((r) => r.path === 'failover.blackholeMs')).toBe(false);
    expect(c.warnings).toEqual(['the baseline has no failover.blackholeMs (made before that figure existed); not compared']);
    expect(c.pass).toBe(true);
  });

  test('a relative tolerance allows exactly its percentage, whatever binary floats make of it', () => {
    // 29/100 × 100 is 28.999999999999996 in binary floating point; 129 against 100 is +29% exactly.
    const now = sampleReport();
    const base = sampleReport();
    base.failover.latencyMs = { ...base.failover.latencyMs, p99: 100 };
    now.failover.latencyMs = { ...now.failover.latencyMs, p99: 129 };
    expect(row(compareWithBaseline(now, base, ['failover.p99=29%']), 'failover.latencyMs.p99').verdict).toBe('within-tolerance');
    now.failover.latencyMs.p99 = 129.001;
    expect(row(compareWithBaseline(now, base, ['failover.p99=29%']), 'failover.latencyMs.p99').verdict).toBe('regressed');
  });

  test('a baseline of another scenario or seed is flagged', () => {
    expect(compareWithBaseline(sampleReport(), sampleReport({ scenario: 'other', seed: 1 })).warnings).toEqual([
      "baseline is of scenario 'other', this run is 'sample'",
      'baseline ran with seed 1, this run with 7',
    ]);
  });
});

test('reportShapeError recognises a report.json v1', () => {
  expect(reportShapeError(JSON.parse(JSON.stringify(sampleReport())))).toBeNull();
  expect(reportShapeError({ routerbench: 'eventlog', version: 1 })).toMatch(/not a routerbench report/);
  expect(reportShapeError({ ...sampleReport(), version: 2 })).toMatch(/version 2/);
});

test('reportShapeError refuses a baseline whose figures were edited to impossible values', () => {
  const edited = (f: (r: Record<string, any>) => void): unknown => {
    const r = JSON.parse(JSON.stringify(sampleReport())) as Record<string, any>;
    f(r);
    return r;
  };
  expect(reportShapeError(edited((r) => (r['reloads'].total = -3)))).toBe('reloads.total is -3: a count or a duration is never negative');
  expect(reportShapeError(edited((r) => (r['failover'].latencyMs.p99 = -1)))).toBe('failover.latencyMs.p99 is -1: a count or a duration is never negative');
  expect(reportShapeError(edited((r) => (r['reloads'].requests['route-change'] = -4)))).toBe('reloads.requests.route-change is -4: a count or a duration is never negative');
  expect(reportShapeError(edited((r) => (r['runtimeApi'].errors = 'none')))).toBe('runtimeApi.errors is "none", not a number');
  // No incident: the latencies are null, which is no number but no lie either.
  expect(reportShapeError(edited((r) => (r['failover'].latencyMs.p99 = null)))).toBeNull();
});

describe('a tolerance on reloads.total', () => {
  const row = (c: ReturnType<typeof compareWithBaseline>, path: string) => c.rows.find((r) => r.path === path)!;
  // Baseline (sampleReport): 3 reloads, 1.5 per hour, requests initial 1 and route-change 4.
  // Now: 6 reloads (+100%), 3 per hour, and requests of a reason the baseline never had.
  const now = () => sampleReport({ reloads: { total: 6, perHour: 3, requests: { initial: 1, 'route-change': 4, 'pool-exhausted': 2 } } });

  test('covers the rate and the requests by reason while the total is within it', () => {
    const c = compareWithBaseline(now(), sampleReport(), ['reloads.total=100%']);
    // 3 → 6 is +100%: within 100% of 3.
    expect(row(c, 'reloads.total')).toMatchObject({ verdict: 'within-tolerance' });
    expect(row(c, 'reloads.perHour')).toMatchObject({ verdict: 'within-tolerance', tolerance: 'reloads.total=100% (through reloads.total)' });
    expect(row(c, 'reloads.requests.pool-exhausted')).toMatchObject({ baseline: 0, actual: 2, verdict: 'within-tolerance' });
    expect(c.pass).toBe(true);
  });

  test('covers nothing once the total itself regresses, nor a reason with a tolerance of its own', () => {
    // 99% of 3 is 2.97 < 3 more reloads: the total regresses, and so do the rate and the new reason.
    const over = compareWithBaseline(now(), sampleReport(), ['reloads.total=99%']);
    expect(over.rows.filter((r) => r.verdict === 'regressed').map((r) => r.path)).toEqual(['reloads.total', 'reloads.perHour', 'reloads.requests.pool-exhausted']);
    // Its own tolerance (1) does not allow 0 → 2, whatever the total's says.
    const own = compareWithBaseline(now(), sampleReport(), ['reloads.total=100%', 'reloads.requests.pool-exhausted=1']);
    expect(row(own, 'reloads.requests.pool-exhausted')).toMatchObject({ verdict: 'regressed', tolerance: 'reloads.requests.pool-exhausted=1' });
  });
});
