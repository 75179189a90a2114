import { closestName } from '../core/closest-name.ts';
import { RELOAD_REASONS } from '../core/reload-reason.ts';
import type { BudgetResult, Report } from './report.ts';

/**
 * Budgets: bounds on report.json metrics that gate a run. A budget reads `path op number`, e.g.
 * `reloads.total <= 2`; scenario files write the same as a map entry `reloads.total: "<= 2"`.
 * Verdicts are data here; rendering and exit codes come later (the CLI maps a failed budget to exit 1).
 */
export const BUDGET_OPS = ['<=', '<', '>=', '>', '==', '!='] as const;
export type BudgetOp = (typeof BUDGET_OPS)[number];

export interface Budget {
  /** Canonical metric path, e.g. `failover.latencyMs.p99` (aliases resolved). */
  path: string;
  op: BudgetOp;
  value: number;
  /** Canonical text, `path op value`, e.g. `reloads.total <= 2`. */
  text: string;
}

/** A budget that cannot be read, or names a metric report.json does not have. Bad input: exit code 2. */
export class BudgetSyntaxError extends Error {
  constructor(
    readonly text: string,
    detail: string,
    /** What was being read: a budget, or a baseline tolerance (same metric names). */
    what: 'budget' | 'tolerance' = 'budget',
  ) {
    super(`bad ${what} '${text}': ${detail}`);
    this.name = 'BudgetSyntaxError';
  }
}

/** Invariant violations must always be 0: judged on every run whatever the scenario says. */
export const BUILTIN_BUDGETS: readonly string[] = ['invariants.violations == 0'];

/** Metrics whose value is a plain number at that path of report.json. */
const NUMERIC_PATHS = [
  'simulatedMs',
  'events',
  'reloads.total',
  'reloads.perHour',
  'runtimeApi.commands',
  'runtimeApi.errors',
  'failover.incidents',
  'failover.latencyMs.p50',
  'failover.latencyMs.p95',
  'failover.latencyMs.p99',
  'failover.latencyMs.max',
  'failover.vipUnavailableMs',
  'failover.blackholeMs',
  'failover.staleVipMs',
  'failover.splitBrainMs',
  'failover.flaps',
  // VRRP traffic, VIP spread and unicast exposure (all 0 when the run has no cluster).
  'failover.traffic.advertsSent',
  'failover.traffic.packetsSent',
  'failover.traffic.deliveries',
  'failover.traffic.dropped',
  'failover.traffic.advertsPerSec',
  'failover.traffic.packetsPerSec',
  'failover.spread.min',
  'failover.spread.max',
  'failover.spread.cv',
  'failover.exposure.totalMs',
  'invariants.checked',
  // Input the run ignored or a check it skipped: a gate of `== 0` keeps a log free of them.
  'warnings.total',
] as const;

/** Short forms people write (the issue's own `--tolerance failover.p99=5%`). */
export const METRIC_ALIASES: Readonly<Record<string, string>> = {
  'failover.p50': 'failover.latencyMs.p50',
  'failover.p95': 'failover.latencyMs.p95',
  'failover.p99': 'failover.latencyMs.p99',
  'failover.max': 'failover.latencyMs.max',
};

const REQUESTS_PREFIX = 'reloads.requests.';
const PATH_RE = /^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;
const NUMBER_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/**
 * A bound as the scenario map form takes it (`"<= 2"`), as a JSON Schema pattern: an operator and a
 * number, as parseBudget reads them (which also refuses numbers too large to be finite).
 */
export const BOUND_PATTERN = `^\\s*(${[...BUDGET_OPS].sort((a, b) => b.length - a.length).join('|')})\\s*${NUMBER_RE.source.slice(1, -1)}\\s*$`;

// The first run of operator characters; checked against BUDGET_OPS so `=>` or `=` get a clear message.
const OP_RE = /[<>=!]+/;

/** Every metric path a budget may name, for messages and docs (reason paths listed per known reason). */
export function knownMetricPaths(): string[] {
  return [
    ...NUMERIC_PATHS,
    'invariants.violations',
    ...RELOAD_REASONS.map((r) => REQUESTS_PREFIX + r),
  ];
}

/** The canonical name of a metric path, or null if report.json has no such metric. */
export function canonicalMetricPath(path: string): string | null {
  const p = METRIC_ALIASES[path] ?? path;
  if ((NUMERIC_PATHS as readonly string[]).includes(p) || p === 'invariants.violations') return p;
  if (p.startsWith(REQUESTS_PREFIX) && p.length > REQUESTS_PREFIX.length) {
    const reason = p.slice(REQUESTS_PREFIX.length);
    if (/^[a-z0-9-]+$/.test(reason)) return p;
  }
  return null;
}

function isKnownReason(reason: string): boolean {
  return (RELOAD_REASONS as readonly string[]).includes(reason);
}

/**
 * Reads `reloads.total <= 2` (spaces optional). With `bound`, reads the scenario map form:
 * `parseBudget('reloads.total', '<= 2')`. Throws BudgetSyntaxError naming what is wrong.
 */
export function parseBudget(text: string, bound?: string): Budget {
  const whole = bound === undefined ? text : `${text} ${bound}`;
  let pathText: string;
  let rest: string;
  if (bound === undefined) {
    const m = OP_RE.exec(text);
    if (m === null) {
      throw new BudgetSyntaxError(whole, `expected 'metric op number' with op one of ${BUDGET_OPS.join(' ')}, e.g. 'reloads.total <= 2'`);
    }
    pathText = text.slice(0, m.index);
    rest = text.slice(m.index);
  } else {
    pathText = text;
    rest = bound;
  }
  const path = pathText.trim();
  if (path === '') throw new BudgetSyntaxError(whole, 'no metric before the operator, e.g. \'reloads.total <= 2\'');
  if (!PATH_RE.test(path)) throw new BudgetSyntaxError(whole, `'${path}' is not a metric path (dotted names like 'reloads.total')`);

  const r = rest.trim();
  const opText = /^[<>=!]*/.exec(r)?.[0] ?? '';
  if (!(BUDGET_OPS as readonly string[]).includes(opText)) {
    const found = opText === '' ? '' : `'${opText}' is not an operator; `;
    throw new BudgetSyntaxError(whole, `${found}the bound must start with one of ${BUDGET_OPS.join(' ')}, e.g. '<= 2'`);
  }
  const op = opText as BudgetOp;
  const valueText = r.slice(op.length).trim();
  if (valueText === '') throw new BudgetSyntaxError(whole, `no number after '${op}'`);
  if (!NUMBER_RE.test(valueText)) throw new BudgetSyntaxError(whole, `'${valueText}' is not a number`);
  const value = Number(valueText);
  if (!Number.isFinite(value)) throw new BudgetSyntaxError(whole, `'${valueText}' is not a finite number`);

  const canonical = canonicalMetricPath(path);
  if (canonical === null) {
    const near = closestName(path, [...knownMetricPaths(), ...Object.keys(METRIC_ALIASES)]);
    const hint = near === undefined ? '' : ` (did you mean '${near}'?)`;
    throw new BudgetSyntaxError(whole, `unknown metric '${path}'${hint}; known: ${NUMERIC_PATHS.join(', ')}, invariants.violations, reloads.requests.<reason>`);
  }
  // Checked here too, not only when judged: a typo in a reason should stop the run before it simulates.
  if (canonical.startsWith(REQUESTS_PREFIX) && !isKnownReason(canonical.slice(REQUESTS_PREFIX.length))) {
    const reason = canonical.slice(REQUESTS_PREFIX.length);
    const near = closestName(reason, RELOAD_REASONS);
    throw new BudgetSyntaxError(whole, `unknown reload reason '${reason}'${near === undefined ? '' : ` (did you mean '${near}'?)`}; known: ${RELOAD_REASONS.join(', ')}`);
  }
  return { path: canonical, op, value, text: `${canonical} ${op} ${value}` };
}

/**
 * The value of a metric in a report: a number, or null when the report has no figure for it (e.g. failover
 * latency percentiles of a run with no failover). `invariants.violations` is the count of violations;
 * `reloads.requests.<reason>` is 0 when no request had that reason. Throws BudgetSyntaxError on an unknown path.
 */
export function metricAt(report: Report, path: string): number | null {
  const canonical = canonicalMetricPath(path);
  if (canonical === null) throw new BudgetSyntaxError(path, 'unknown metric');
  if (canonical === 'invariants.violations') return report.invariants.violations.length;
  if (canonical.startsWith(REQUESTS_PREFIX)) {
    const reason = canonical.slice(REQUESTS_PREFIX.length);
    const n = report.reloads.requests[reason];
    if (n !== undefined) return n;
    // A typo in a reason would silently read 0 and always pass: only known reasons default to 0.
    if (isKnownReason(reason)) return 0;
    throw new BudgetSyntaxError(path, `unknown reload reason '${reason}'; known: ${RELOAD_REASONS.join(', ')}`);
  }
  let node: unknown = report;
  for (const key of canonical.split('.')) {
    if (node === null || typeof node !== 'object') return null;
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === 'number' ? node : null;
}

/**
 * Whether `actual op value` holds. A metric with no figure (null) holds upper bounds (`<`, `<=`: nothing
 * exceeded them, e.g. no failover so no latency) and fails every other bound (no evidence it held).
 */
export function holds(actual: number | null, op: BudgetOp, value: number): boolean {
  if (actual === null) return op === '<' || op === '<=';
  switch (op) {
    case '<=':
      return actual <= value;
    case '<':
      return actual < value;
    case '>=':
      return actual >= value;
    case '>':
      return actual > value;
    case '==':
      return actual === value;
    case '!=':
      return actual !== value;
  }
}

/**
 * Judges a report against budgets (plus the built-in ones, first, once). A budget that cannot be read or
 * names an unknown metric throws BudgetSyntaxError: that is an input error, not a failed budget.
 */
export function evaluateBudgets(report: Report, budgets: readonly string[]): BudgetResult[] {
  const parsed = [...BUILTIN_BUDGETS, ...budgets].map((b) => parseBudget(b));
  const seen = new Set<string>();
  const results: BudgetResult[] = [];
  for (const b of parsed) {
    if (seen.has(b.text)) continue;
    seen.add(b.text);
    const actual = metricAt(report, b.path);
    results.push({ name: b.path, limit: `${b.op} ${b.value}`, actual, pass: holds(actual, b.op, b.value) });
  }
  return results;
}

/** Scenario map form (`{ 'reloads.total': '<= 2' }`) to canonical budget strings; throws on a bad entry. */
export function budgetsFromMap(map: Record<string, string>): string[] {
  return Object.entries(map).map(([path, bound]) => parseBudget(path, bound).text);
}
