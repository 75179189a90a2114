import { createHash } from 'node:crypto';
import { InputError } from '../eventlog/input-error.ts';
import { readInputFile } from '../eventlog/regular-file.ts';
import { loadRunInput } from '../load-input.ts';
import { shellQuote } from '../scenario/load-scenario.ts';
import { coerceSettingValue } from '../settings.ts';
import { setLayer, type SettingsLayer } from '../settings-layers.ts';
import { pointAt, pointCount, pointSettings, type GridAxis, type GridValue } from './grid.ts';
import type { SweepTask } from './task.ts';

/** How a point's seeds are judged against a budget (see reports/sweep/judge.ts). */
export type Statistic = { kind: 'quantile'; q: number } | { kind: 'confidence'; level: number };

/** The bytes HAProxy spends per pre-allocated backend and per empty slot server (docs/sweeps.md). */
export interface CostModel {
  perBackendBytes: number;
  perServerBytes: number;
}

/**
 * Measured with bench/haproxy-memory.ts on HAProxy 2.6.12 (Debian 12): RSS of 1000 router-shaped backends
 * less an empty config, per backend; and of 1000 × 8 `server-template … check disabled` slots less the same
 * backends without them, per server. Round figures of the medians (11252 and 6703 bytes).
 */
export const DEFAULT_COST_MODEL: CostModel = { perBackendBytes: 11_000, perServerBytes: 6_700 };

/** What a sweep is: stored in sweep.json so results carry their definition, and compared by merge. */
export interface SweepDefinition {
  scenario: { path: string; name: string; sha256: string };
  grid: GridAxis[];
  /** Seeds in run order: the scenario's seed (or --seed) and the ones after it. */
  seeds: number[];
  set: Record<string, string>;
  /** `--router-deployment` and `--env`, when given (absent otherwise: a sweep without them writes what it did before them). */
  env?: SweepEnv;
  /** Budgets judged across seeds: the scenario's own and the --budget flags, canonical text. */
  budgets: string[];
  /** Extra budgets from --budget only (passed to every run; the scenario's come with the file). */
  extraBudgets: string[];
  statistic: Statistic;
  /** Level of the per-point confidence intervals (the --confidence level, else 0.95). */
  ciLevel: number;
  cost: CostModel;
}

/**
 * The router's environment for every run: `--router-deployment FILE` and `--env NAME=VALUE` as given, and the
 * settings they resolve to (parsed by `routerbench run`'s own code, sim/cli/run-command.ts). Precedence, low
 * to high: the scenario file, the deployment, `--env`, `--set`, the grid point. The grid point wins over the
 * env for the keys it sweeps; a key both set with `--set` and swept stays an error.
 */
export interface SweepEnv {
  /** The manifest's path as given and its SHA-256: shards must read the same file. */
  deployment?: { path: string; sha256: string };
  /** The `--env` flags, `NAME=VALUE`, in command-line order. */
  vars: string[];
  /** What they set, as dotted `router.*` keys and text values (what `--set` takes). */
  settings: Record<string, string>;
  /**
   * Where each of those came from (`--env NAME=VALUE`, `--router-deployment FILE:LINE NAME=VALUE`), for
   * the runs' setting sources. Absent in sweeps defined before sources were recorded (2026-12).
   */
  sources?: Record<string, string>;
}

export interface SweepRequest {
  file: string;
  grid: GridAxis[];
  seeds: number;
  firstSeed?: number;
  set: Record<string, string>;
  /** The router env, already parsed (its warnings printed once, by the caller). */
  routerEnv?: { deployment?: string; vars: string[]; settings: Record<string, string>; sources?: Record<string, string> };
  budgets: string[];
  statistic: Statistic;
  cost: CostModel;
  /** `--allow-large`: points past the size limits run anyway (docs/limits.md). */
  allowLarge?: boolean;
}

export const MAX_RUNS = 1_000_000;

/**
 * Validates a sweep before anything runs: the scenario loads under every point's settings (so a bad value in
 * combination is reported now, naming the point), and the seeds fit. Returns the definition.
 */
export function defineSweep(req: SweepRequest): SweepDefinition {
  for (const a of req.grid) {
    if (Object.hasOwn(req.set, a.key)) throw new InputError('--grid', `'${a.key}' is both swept and set with --set; drop one`, undefined, a.key);
  }
  if (!Number.isInteger(req.seeds) || req.seeds < 1) throw new InputError('--seeds', 'expected a whole number of seeds, at least 1');
  const statisticProblem = statisticNeeds(req.statistic, req.seeds);
  if (statisticProblem !== undefined) throw new InputError('--confidence', statisticProblem);
  const env = sweepEnvOf(req.routerEnv);
  const large = req.allowLarge === true ? { allowLarge: true } : {};
  const base = loadRunInput(req.file, { ...(req.firstSeed !== undefined && { seed: req.firstSeed }), layers: pointLayers(env, req.set, [], []), budgets: req.budgets, ...large });
  const first = base.settings.seed;
  if (first + req.seeds - 1 > 2 ** 32 - 1) throw new InputError('--seeds', `seeds ${first}..${first + req.seeds - 1} run past 4294967295`);
  const points = pointCount(req.grid);
  if (points * req.seeds > MAX_RUNS) throw new InputError('--grid', `${points} points × ${req.seeds} seeds is more than ${MAX_RUNS} runs`);
  for (let p = 0; p < points; p++) {
    const values = pointAt(req.grid, p);
    try {
      loadRunInput(req.file, { seed: first, layers: pointLayers(env, req.set, req.grid, values), ...large });
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      throw new InputError('--grid', `at ${describePoint(pointSettings(req.grid, values))}: ${err.message}`);
    }
  }
  const ciLevel = req.statistic.kind === 'confidence' ? req.statistic.level : 0.95;
  return {
    scenario: { path: req.file, name: base.name, sha256: sha256Of(req.file) },
    grid: req.grid,
    seeds: Array.from({ length: req.seeds }, (_, i) => first + i),
    set: req.set,
    ...(env !== undefined && { env }),
    // The same budget from the file and a flag is judged once.
    budgets: [...new Set(base.budgets)],
    extraBudgets: req.budgets,
    statistic: req.statistic,
    ciLevel,
    cost: req.cost,
  };
}

/** Why this statistic cannot judge a sweep of this many seeds, or undefined when it can. */
export function statisticNeeds(statistic: Statistic, seeds: number): string | undefined {
  if (statistic.kind === 'confidence' && seeds < 2) {
    return `a confidence bound of the mean needs at least 2 seeds per point (one seed has no interval), got ${seeds}: give --seeds 2 or more, or judge on --quantile`;
  }
  return undefined;
}

function sweepEnvOf(env: SweepRequest['routerEnv']): SweepEnv | undefined {
  if (env === undefined) return undefined;
  const sources = env.sources !== undefined && { sources: env.sources };
  if (env.deployment === undefined) return { vars: env.vars, settings: env.settings, ...sources };
  let sha256: string;
  try {
    sha256 = sha256Of(env.deployment);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(env.deployment, 'cannot read the Deployment manifest');
  }
  return { deployment: { path: env.deployment, sha256 }, vars: env.vars, settings: env.settings, ...sources };
}

function sha256Of(file: string): string {
  return createHash('sha256').update(readInputFile(file, 'a Deployment manifest')).digest('hex');
}

/**
 * A point's settings as layers over the scenario's: the router env, `--set`, then the grid point (a key is
 * never both set and swept, so the last two do not compete). Each value keeps its source: a swept one is
 * `--grid KEY`.
 */
export function pointLayers(env: SweepEnv | undefined, set: Readonly<Record<string, string>>, grid: readonly GridAxis[], values: readonly GridValue[]): SettingsLayer[] {
  const layers: SettingsLayer[] = [];
  if (env !== undefined) {
    const fallback = env.deployment === undefined ? '--env' : '--router-deployment or --env';
    layers.push({
      origin: '--env',
      assignments: Object.entries(env.settings).map(([key, value]) => ({ key, value: coerceSettingValue(value), source: env.sources?.[key] ?? fallback })),
    });
  }
  layers.push(setLayer(set));
  layers.push({ origin: '--grid', assignments: grid.map((a, i) => ({ key: a.key, value: values[i], source: `--grid ${a.key}` })) });
  return layers;
}

export function runCount(def: SweepDefinition): number {
  return pointCount(def.grid) * def.seeds.length;
}

/** The task at canonical position k: point ⌊k / seeds⌋, seed k mod seeds. */
export function taskAt(def: SweepDefinition, k: number): { task: SweepTask; point: Record<string, GridValue> } {
  const n = def.seeds.length;
  const values = pointAt(def.grid, Math.floor(k / n));
  return {
    task: { index: k, file: def.scenario.path, layers: pointLayers(def.env, def.set, def.grid, values), seed: def.seeds[k % n]!, seeds: n, budgets: def.extraBudgets },
    point: pointSettings(def.grid, values),
  };
}

/** `i/n`: shard i (0-based, as $JOB_COMPLETION_INDEX) of n. */
export interface Shard {
  index: number;
  count: number;
}

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (m === null) throw new InputError('--shard', `expected i/n with 0 <= i < n, e.g. 0/4 (got '${text}')`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index >= count) throw new InputError('--shard', `expected i/n with 0 <= i < n, e.g. 0/4 (got '${text}')`);
  return { index, count };
}

/**
 * The canonical positions a shard runs: every n-th from i (k ≡ i mod n). Round robin over the point-major
 * order spreads cheap and dear points evenly over the shards.
 */
export function shardTasks(def: SweepDefinition, shard: Shard | undefined): number[] {
  const total = runCount(def);
  const out: number[] = [];
  const step = shard?.count ?? 1;
  for (let k = shard?.index ?? 0; k < total; k += step) out.push(k);
  return out;
}

export function describePoint(point: Record<string, GridValue>): string {
  const parts = Object.entries(point).map(([k, v]) => `${k}=${String(v)}`);
  return parts.length === 0 ? 'the scenario settings' : parts.join(' ');
}

/** The command line that reproduces the whole sweep (without --out, --workers and --shard). */
export function sweepCommand(def: SweepDefinition): string {
  const parts = ['routerbench', 'sweep', shellQuote(def.scenario.path)];
  for (const a of def.grid) parts.push('--grid', shellQuote(`${a.key}=${a.spec}`));
  parts.push('--seeds', String(def.seeds.length), '--seed', String(def.seeds[0]));
  if (def.env?.deployment !== undefined) parts.push('--router-deployment', shellQuote(def.env.deployment.path));
  for (const e of def.env?.vars ?? []) parts.push('--env', shellQuote(e));
  for (const [k, v] of Object.entries(def.set)) parts.push('--set', shellQuote(`${k}=${v}`));
  for (const b of def.extraBudgets) parts.push('--budget', shellQuote(b));
  if (def.statistic.kind === 'quantile') parts.push('--quantile', String(def.statistic.q));
  else parts.push('--confidence', String(def.statistic.level));
  const c = def.cost;
  if (c.perBackendBytes !== DEFAULT_COST_MODEL.perBackendBytes) parts.push('--bytes-per-backend', String(c.perBackendBytes));
  if (c.perServerBytes !== DEFAULT_COST_MODEL.perServerBytes) parts.push('--bytes-per-server', String(c.perServerBytes));
  return parts.join(' ');
}
