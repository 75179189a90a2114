import { knownMetricPaths, metricAt } from '../../reports/budgets.ts';
import { BlueprintPool } from '../../core/dcm/pool.ts';
import { InputError } from '../eventlog/input-error.ts';
import { loadRunInput, type InputOverrides } from '../load-input.ts';
import { inputErrorData, type InputErrorData } from '../parallel/error-data.ts';
import type { OutputRecord } from '../output/records.ts';
import { runOne } from '../run.ts';
import type { Settings } from '../settings.ts';
import type { SettingsLayer } from '../settings-layers.ts';
import type { GridValue } from './grid.ts';

/** One run of a sweep: everything a worker needs, as plain data (it crosses a thread boundary). */
export interface SweepTask {
  /** Position in the canonical order (point-major, then seed): rows are stored by it. */
  index: number;
  file: string;
  /**
   * Every setting the command line gives this run, as layers resolved in the main thread (plan.ts
   * pointLayers): the router env's settings (`--router-deployment`, `--env`), `--set` over them, the grid
   * point's values over both. Workers never parse the env again (so its warnings print once).
   */
  layers: SettingsLayer[];
  seed: number;
  /** How many seeds each point runs (`--seeds`): the seed's source. */
  seeds: number;
  /** `--budget` flags (the scenario's own budgets come with the file). */
  budgets: string[];
}

/** What HAProxy holds pre-allocated under a run's settings (sim/sweep cost model, docs/sweeps.md). */
export interface Preallocated {
  /** Pool backends: every blueprint's pool slots (dcm-slots only). */
  poolBackends: number;
  /** Route backends at the busiest moment of the run (peak live routes). */
  routeBackends: number;
  /** Empty `_dynamic-pod-N` slot servers on pool and route backends (dcm-slots only). */
  slotServers: number;
}

/** One tidy row per (point, seed). Every number in it comes from the run's report.json. */
export interface RunRow {
  point: Record<string, GridValue>;
  seed: number;
  /** Every metric a budget may name (knownMetricPaths), null where the run has no figure. */
  metrics: Record<string, number | null>;
  preallocated: Preallocated;
  /** The run's own verdict: the scenario's budgets, the sweep's --budget flags and the invariants. */
  pass: boolean;
  /** The command that reproduces this run alone. */
  reproduce: string;
}

/** Runs one task in this thread. Deterministic: the same task gives the same row. */
export function runSweepTask(task: SweepTask, point: Record<string, GridValue>): RunRow {
  // Every point's size was judged when the sweep was defined (defineSweep), with or without --allow-large.
  const input = loadRunInput(task.file, { ...sweepTaskOverrides(task), allowLarge: true });
  const routes = new PeakRoutes();
  const { report } = runOne(input, undefined, [routes]);
  const metrics: Record<string, number | null> = {};
  for (const path of knownMetricPaths()) metrics[path] = metricAt(report, path);
  return {
    point,
    seed: task.seed,
    metrics,
    preallocated: preallocatedOf(input.settings, routes.peak),
    pass: report.pass,
    reproduce: report.reproduce,
  };
}

/** What a task lays over the scenario: its layers, and its seed (from `--seeds`) on top. */
export function sweepTaskOverrides(task: SweepTask): InputOverrides {
  const seed: SettingsLayer = { origin: '--seeds', assignments: [{ key: 'seed', value: task.seed, source: `--seeds ${task.seeds}` }] };
  return { layers: [...task.layers, seed], budgets: task.budgets };
}

/** Pool backends and empty slot servers the rendered configuration carries, as core/haproxy/render.ts renders them. */
export function preallocatedOf(settings: Settings, routeBackends: number): Preallocated {
  const r = settings.router;
  if (r.strategy !== 'dcm-slots') return { poolBackends: 0, routeBackends, slotServers: 0 };
  // The same pool the strategy provisions: defaults (http, edge, passthrough) plus custom blueprints from
  // settings, each with its pool size (the pool-size annotation read as upstream reads it).
  const poolBackends = new BlueprintPool(r.blueprintPoolSize, r.blueprints).poolRoutes().length;
  return { poolBackends, routeBackends, slotServers: (poolBackends + routeBackends) * r.maxDynamicServers };
}

/** Live routes over the run, from the output log's input records; `peak` is the most at once. */
class PeakRoutes {
  private readonly live = new Set<string>();
  peak = 0;
  add(r: OutputRecord): void {
    if (r.type !== 'input') return;
    if (r.event === 'route.upsert') {
      this.live.add(r.subject);
      if (this.live.size > this.peak) this.peak = this.live.size;
    } else if (r.event === 'route.delete') {
      this.live.delete(r.subject);
    }
  }
}

/** A worker's answer: a row, or the user's input error as data. */
export type SweepTaskResult = { ok: true; row: RunRow } | InputErrorData;

/** runSweepTask for a worker thread: input errors come back as data; anything else is thrown as a bug. */
export function runSweepTaskInWorker(task: SweepTask, point: Record<string, GridValue>): SweepTaskResult {
  try {
    return { ok: true, row: runSweepTask(task, point) };
  } catch (err) {
    if (err instanceof InputError) return inputErrorData(err);
    throw err;
  }
}
