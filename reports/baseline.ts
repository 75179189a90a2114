import { RELOAD_REASONS } from '../core/reload-reason.ts';
import { BudgetSyntaxError, canonicalMetricPath, metricAt } from './budgets.ts';
import type { MetricComparison, Report } from './report.ts';

/**
 * Comparison of a report with a baseline report.json. Simulated counts are exact, so every metric compares
 * exactly unless a tolerance is given (`failover.p99=5%` relative, `reloads.total=2` absolute). Verdicts
 * are data; renderers show them and the CLI decides the exit code from `pass`.
 */
export interface Tolerance {
  path: string;
  /** Allowed worsening as a fraction of the baseline value (5% → 0.05). */
  relative?: number;
  /** Allowed worsening in the metric's unit. */
  absolute?: number;
  text: string;
}

export type Direction = 'lower-is-better' | 'neutral';

export interface BaselineComparison {
  scenario: string;
  rows: MetricComparison[];
  regressions: number;
  pass: boolean;
  /** E.g. the baseline is of another scenario or seed. */
  warnings: string[];
}

/** Metrics compared, in display order; every one but the neutral ones is better lower. */
const COMPARED: ReadonlyArray<readonly [string, Direction]> = [
  ['reloads.total', 'lower-is-better'],
  ['reloads.perHour', 'lower-is-better'],
  ['runtimeApi.errors', 'lower-is-better'],
  ['runtimeApi.commands', 'neutral'],
  ['failover.incidents', 'neutral'],
  ['failover.latencyMs.p50', 'lower-is-better'],
  ['failover.latencyMs.p95', 'lower-is-better'],
  ['failover.latencyMs.p99', 'lower-is-better'],
  ['failover.latencyMs.max', 'lower-is-better'],
  ['failover.vipUnavailableMs', 'lower-is-better'],
  ['failover.blackholeMs', 'lower-is-better'],
  ['failover.splitBrainMs', 'lower-is-better'],
  ['failover.staleVipMs', 'lower-is-better'],
  ['failover.flaps', 'lower-is-better'],
  ['invariants.violations', 'lower-is-better'],
  ['events', 'neutral'],
  ['simulatedMs', 'neutral'],
];

/** The metrics a comparison can fail on: the lower-is-better ones and each known reload reason. */
const TOLERABLE: ReadonlySet<string> = new Set([
  ...COMPARED.filter(([, d]) => d === 'lower-is-better').map(([p]) => p),
  ...RELOAD_REASONS.map((r) => `reloads.requests.${r}`),
]);

/** `failover.p99=5%` or `reloads.total=2`. Throws BudgetSyntaxError (an input error) otherwise. */
export function parseTolerance(text: string): Tolerance {
  const m = /^\s*([^=\s]+)\s*=\s*([0-9]*\.?[0-9]+)\s*(%?)\s*$/.exec(text);
  if (m === null) throw new BudgetSyntaxError(text, "a tolerance reads 'metric=5%' (relative) or 'metric=2' (absolute)", 'tolerance');
  const path = canonicalMetricPath(m[1]!);
  if (path === null) throw new BudgetSyntaxError(text, `unknown metric '${m[1]}'`, 'tolerance');
  // A tolerance on a metric that can never regress would be silently ignored: refuse it instead.
  if (!TOLERABLE.has(path)) {
    const why = COMPARED.some(([p]) => p === path) ? 'is shown but never fails a run' : 'is not compared with the baseline';
    throw new BudgetSyntaxError(text, `'${path}' ${why}; a tolerance applies to ${[...TOLERABLE].filter((p) => !p.startsWith('reloads.requests.')).join(', ')} and reloads.requests.<reason>`, 'tolerance');
  }
  const n = Number(m[2]);
  return m[3] === '%' ? { path, relative: n / 100, text: `${path}=${m[2]}%` } : { path, absolute: n, text: `${path}=${m[2]}` };
}

export function compareWithBaseline(report: Report, baseline: Report, tolerances: ReadonlyArray<Tolerance | string> = []): BaselineComparison {
  const tol = new Map<string, Tolerance>();
  for (const t of tolerances) {
    const parsed = typeof t === 'string' ? parseTolerance(t) : t;
    tol.set(parsed.path, parsed);
  }
  const warnings: string[] = [];
  if (report.scenario !== baseline.scenario) warnings.push(`baseline is of scenario '${baseline.scenario}', this run is '${report.scenario}'`);
  if (report.seed !== baseline.seed) warnings.push(`baseline ran with seed ${baseline.seed}, this run with ${report.seed}`);
  if (report.strategy !== baseline.strategy) warnings.push(`baseline used strategy ${baseline.strategy}, this run ${report.strategy}`);

  const reasons = [...new Set([...Object.keys(baseline.reloads.requests), ...Object.keys(report.reloads.requests)])].sort();
  // A baseline made before a figure existed never measured it: not a figure to regress from.
  const unmeasured = new Set<string>();
  for (const key of ['blackholeMs', 'staleVipMs'] as const) {
    if (typeof (baseline.failover as Partial<Record<typeof key, unknown>>)[key] !== 'number') {
      unmeasured.add(`failover.${key}`);
      warnings.push(`the baseline has no failover.${key} (made before that figure existed); not compared`);
    }
  }
  const metrics: Array<readonly [string, Direction]> = [
    ...COMPARED.slice(0, 2),
    ...reasons.map((r) => [`reloads.requests.${r}`, 'lower-is-better'] as const),
    ...COMPARED.slice(2).filter(([p]) => !unmeasured.has(p)),
  ];
  const rows = metrics.map(([path, direction]) => compareOne(path, direction, requestsAware(baseline, path), requestsAware(report, path), tol.get(path)));
  coverByTotal(rows, tol.get('reloads.total'));
  const regressions = rows.filter((r) => r.verdict === 'regressed').length;
  return { scenario: report.scenario, rows, regressions, pass: regressions === 0, warnings };
}

/**
 * A tolerance on reloads.total speaks for the reloads as a whole: while the total is within it, the metrics
 * that only break the reloads down (their rate, the requests by reason) do not fail on their own unless they
 * have a tolerance of their own. Without this, `reloads.total=100%` would never let a run pass, since more
 * reloads mean a higher rate and more requests of some reason, often from zero.
 */
function coverByTotal(rows: MetricComparison[], total: Tolerance | undefined): void {
  if (total === undefined) return;
  const totalRow = rows.find((r) => r.path === 'reloads.total');
  if (totalRow === undefined || totalRow.verdict === 'regressed') return;
  for (const r of rows) {
    if (r.verdict !== 'regressed' || r.tolerance !== undefined) continue;
    if (r.path !== 'reloads.perHour' && !r.path.startsWith('reloads.requests.')) continue;
    r.verdict = 'within-tolerance';
    r.tolerance = `${total.text} (through reloads.total)`;
  }
}

/** metricAt, except that a reason neither build knows still reads 0 when absent (it came from a report). */
function requestsAware(report: Report, path: string): number | null {
  if (path.startsWith('reloads.requests.')) return report.reloads.requests[path.slice('reloads.requests.'.length)] ?? 0;
  return metricAt(report, path);
}

function compareOne(path: string, direction: Direction, baseline: number | null, actual: number | null, tolerance: Tolerance | undefined): MetricComparison {
  const delta = baseline !== null && actual !== null ? actual - baseline : null;
  const deltaRatio = delta !== null && baseline !== null && baseline !== 0 ? delta / baseline : null;
  const row: MetricComparison = { path, baseline, actual, delta, deltaRatio, verdict: 'same' };
  if (tolerance !== undefined) row.tolerance = tolerance.text;
  if (baseline === actual) return row;
  if (direction === 'neutral') return { ...row, verdict: 'changed' };
  // A value appearing or vanishing (e.g. no failover before, one now) is a change the numbers cannot rank.
  if (delta === null) return { ...row, verdict: actual === null ? 'improved' : 'regressed' };
  if (delta < 0) return { ...row, verdict: 'improved' };
  const allowed = tolerance === undefined ? 0 : tolerance.absolute ?? (tolerance.relative ?? 0) * Math.abs(baseline!);
  // A percentage is a decimal fraction that binary floats round: 29% of 100 comes out 28.999999999999996.
  // A relative allowance is therefore compared with a few ulps of slack, so exactly 29% passes.
  const slack = tolerance?.relative === undefined ? 0 : Math.abs(allowed) * 4 * Number.EPSILON;
  return { ...row, verdict: delta <= allowed + slack ? 'within-tolerance' : 'regressed' };
}

/** Checks that parsed JSON is a report.json v1 (enough of it to compare); returns an error message or null. */
export function reportShapeError(raw: unknown): string | null {
  if (raw === null || typeof raw !== 'object') return 'not a JSON object';
  const r = raw as Partial<Report>;
  if (r.routerbench !== 'report') return 'not a routerbench report (routerbench: "report" missing)';
  if (r.version !== 1) return `report version ${String(r.version)} is not 1`;
  if (typeof r.reloads?.total !== 'number' || typeof r.failover?.latencyMs !== 'object' || !Array.isArray(r.invariants?.violations)) {
    return 'report lacks reloads, failover or invariants';
  }
  // Every figure compared is a count or a duration: a string, NaN or a negative value was edited in, and
  // would compare as a regression (or an improvement) that never happened.
  const requests = r.reloads.requests;
  if (requests === null || typeof requests !== 'object') return 'reloads.requests is not an object of counts by reason';
  const figures: Array<[string, unknown]> = [
    ...COMPARED.filter(([p]) => p !== 'invariants.violations').map(([p]): [string, unknown] => [p, valueAt(raw, p)]),
    ...Object.entries(requests).map(([reason, n]): [string, unknown] => [`reloads.requests.${reason}`, n]),
  ];
  for (const [path, v] of figures) {
    if (v === null || v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) return `${path} is ${JSON.stringify(v) ?? String(v)}, not a number`;
    if (v < 0) return `${path} is ${v}: a count or a duration is never negative`;
  }
  return null;
}

function valueAt(o: unknown, path: string): unknown {
  for (const key of path.split('.')) {
    if (o === null || typeof o !== 'object') return undefined;
    o = (o as Record<string, unknown>)[key];
  }
  return o;
}
