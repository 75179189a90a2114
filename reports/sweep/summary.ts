import { RELOAD_REASONS } from '../../core/reload-reason.ts';
import { holds, parseBudget, type Budget } from '../budgets.ts';
import { quantileInterval, summarize, meanInterval, type MetricSummary } from './stats.ts';

/**
 * sweep.json's per-point summary and recommendation: a pure projection of the run rows (sorted in canonical
 * order) and the sweep definition. The types here are the subset of sim/sweep's row and definition it reads,
 * so reports/ does not depend on the runtime.
 */
type Value = number | string | boolean;

export interface SummaryRow {
  point: Record<string, Value>;
  seed: number;
  metrics: Record<string, number | null>;
  preallocated: { poolBackends: number; routeBackends: number; slotServers: number };
  pass: boolean;
}

export type Statistic = { kind: 'quantile'; q: number } | { kind: 'confidence'; level: number };

export interface SummaryInput {
  grid: ReadonlyArray<{ key: string; values: readonly Value[] }>;
  seeds: readonly number[];
  budgets: readonly string[];
  statistic: Statistic;
  ciLevel: number;
  cost: { perBackendBytes: number; perServerBytes: number };
}

export interface PointCost {
  poolBackends: number;
  /** Peak live routes over the point's seeds (each has its own backend). */
  routeBackends: number;
  /** Empty `_dynamic-pod-N` servers on pool and route backends: the figure recommendations minimise. */
  slotServers: number;
  /** poolBackends · perBackendBytes + slotServers · perServerBytes. */
  bytes: number;
  mib: number;
}

/** One budget judged across a point's seeds. */
export interface BudgetCheck {
  budget: string;
  metric: string;
  /** e.g. `p95 across seeds` or `upper 95% bound of the mean`. */
  statistic: string;
  /** The figure judged against the bound. */
  value: number | null;
  /** Confidence interval of the judged statistic (see reports/sweep/stats.ts). */
  lower: number | null;
  upper: number | null;
  pass: boolean;
}

export interface PointSummary {
  settings: Record<string, Value>;
  seeds: number;
  runsPassed: number;
  cost: PointCost;
  metrics: Record<string, MetricSummary>;
  checks: BudgetCheck[];
  /** Every budget holds at the chosen statistic and no run broke an invariant. */
  meets: boolean;
}

export interface Recommendation {
  settings: Record<string, Value>;
  metric: string;
  value: number | null;
  budget: string;
  lower: number | null;
  upper: number | null;
  statistic: string;
  cost: PointCost;
  checks: BudgetCheck[];
}

export interface SweepSummary {
  points: PointSummary[];
  recommendation: Recommendation | null;
  /** `recommended`, `none-meets-budget`, or `no-budget` (nothing to judge). */
  verdict: 'recommended' | 'none-meets-budget' | 'no-budget';
}

/** Metric paths every point summarises: reloads, the reasons any run asked for, failover p99, budget metrics. */
export function summarizedMetrics(rows: readonly SummaryRow[], budgets: readonly Budget[]): string[] {
  const paths = ['reloads.total'];
  for (const r of RELOAD_REASONS) {
    const p = `reloads.requests.${r}`;
    if (rows.some((row) => (row.metrics[p] ?? 0) !== 0)) paths.push(p);
  }
  paths.push('failover.latencyMs.p99');
  for (const b of budgets) if (!paths.includes(b.path)) paths.push(b.path);
  return paths;
}

/** rows: exactly seeds.length consecutive rows per point, points in canonical order. */
export function summarizeSweep(def: SummaryInput, rows: readonly SummaryRow[]): SweepSummary {
  const budgets = def.budgets.map((b) => parseBudget(b));
  const paths = summarizedMetrics(rows, budgets);
  const perPoint = def.seeds.length;
  const points: PointSummary[] = [];
  for (let at = 0; at < rows.length; at += perPoint) {
    const group = rows.slice(at, at + perPoint);
    const metrics: Record<string, MetricSummary> = {};
    for (const p of paths) metrics[p] = summarize(group.map((r) => r.metrics[p] ?? null), def.ciLevel);
    const checks = budgets.map((b) => judge(b, group, def.statistic));
    const invariantsHeld = group.every((r) => r.metrics['invariants.violations'] === 0);
    points.push({
      settings: group[0]!.point,
      seeds: group.length,
      runsPassed: group.filter((r) => r.pass).length,
      cost: costOf(group, def.cost),
      metrics,
      checks,
      meets: invariantsHeld && checks.every((c) => c.pass),
    });
  }
  if (budgets.length === 0) return { points, recommendation: null, verdict: 'no-budget' };
  let best: PointSummary | undefined;
  for (const p of points) if (p.meets && (best === undefined || cheaper(p.cost, best.cost))) best = p;
  if (best === undefined) return { points, recommendation: null, verdict: 'none-meets-budget' };
  const first = best.checks[0]!;
  return {
    points,
    recommendation: {
      settings: best.settings,
      metric: first.metric,
      value: first.value,
      budget: first.budget,
      lower: first.lower,
      upper: first.upper,
      statistic: first.statistic,
      cost: best.cost,
      checks: best.checks,
    },
    verdict: 'recommended',
  };
}

/** Fewest slot servers, then fewest bytes; on a tie the earlier point in grid order stays. */
function cheaper(a: PointCost, b: PointCost): boolean {
  if (a.slotServers !== b.slotServers) return a.slotServers < b.slotServers;
  return a.bytes < b.bytes;
}

function costOf(group: readonly SummaryRow[], model: SummaryInput['cost']): PointCost {
  let poolBackends = 0;
  let routeBackends = 0;
  let slotServers = 0;
  for (const r of group) {
    poolBackends = Math.max(poolBackends, r.preallocated.poolBackends);
    routeBackends = Math.max(routeBackends, r.preallocated.routeBackends);
    slotServers = Math.max(slotServers, r.preallocated.slotServers);
  }
  const bytes = poolBackends * model.perBackendBytes + slotServers * model.perServerBytes;
  return { poolBackends, routeBackends, slotServers, bytes, mib: Math.round((bytes / 1048576) * 100) / 100 };
}

/**
 * Quantile mode: the q-quantile (nearest rank) of the metric across seeds must meet the bound; lower/upper
 * is its order-statistic confidence interval at 95%. Confidence mode: the end of the mean's two-sided
 * confidence interval on the unfavourable side must meet it (the upper end for `<`/`<=`, the lower for
 * `>`/`>=`, both for `==`/`!=`). Seeds with no figure count as holding upper bounds only (budgets.ts holds).
 */
function judge(b: Budget, group: readonly SummaryRow[], stat: Statistic): BudgetCheck {
  const values = group.map((r) => r.metrics[b.path] ?? null);
  const xs = values.filter((v): v is number => v !== null).sort((x, y) => x - y);
  const upperBound = b.op === '<' || b.op === '<=';
  const base = { budget: b.text, metric: b.path };
  if (stat.kind === 'quantile') {
    // Missing figures rank below every number for an upper bound (they hold it) and above for any other.
    const missing = values.length - xs.length;
    const ranked = upperBound ? [...new Array<number>(missing).fill(-Infinity), ...xs] : [...xs, ...new Array<number>(missing).fill(Infinity)];
    const rank = Math.min(ranked.length, Math.max(1, Math.ceil(stat.q * ranked.length)));
    const v = ranked[rank - 1]!;
    const value = Number.isFinite(v) ? v : null;
    const ci = quantileInterval(ranked, stat.q, 0.95);
    const fin = (x: number | null): number | null => (x === null || !Number.isFinite(x) ? null : x);
    return { ...base, statistic: `p${pct(stat.q)} across seeds`, value, lower: fin(ci.lower), upper: fin(ci.upper), pass: holds(value, b.op, b.value) };
  }
  const ci = meanInterval(xs, stat.level);
  const label = `${pct(stat.level)}% confidence bound of the mean`;
  if (xs.length === 0) return { ...base, statistic: label, value: null, lower: null, upper: null, pass: holds(null, b.op, b.value) };
  // One seed has no interval: it cannot show a bound with confidence, so it fails.
  if (ci.lower === null || ci.upper === null) return { ...base, statistic: label, value: null, lower: null, upper: null, pass: false };
  const value = upperBound ? ci.upper : b.op === '>' || b.op === '>=' ? ci.lower : ci.upper;
  const pass = holds(ci.lower, b.op, b.value) && holds(ci.upper, b.op, b.value);
  return { ...base, statistic: label, value, lower: ci.lower, upper: ci.upper, pass };
}

function pct(x: number): string {
  return String(Math.round(x * 10000) / 100);
}
