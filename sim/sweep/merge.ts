import { InputError } from '../eventlog/input-error.ts';
import { runCount, type SweepDefinition } from './plan.ts';
import { buildSweepResult, type SweepDir, type SweepResult } from './outputs.ts';
import type { RunRow } from './task.ts';

/**
 * Shards (or any directories holding parts of one sweep) back into the result one unsharded run writes.
 * The definitions must be identical (same scenario bytes, grid, seeds, settings, budgets, statistic, cost);
 * every run must be present exactly once (a run present twice must be identical).
 */
export function mergeSweepDirs(dirs: readonly SweepDir[]): SweepResult {
  if (dirs.length === 0) throw new InputError('merge', 'give the directories of the shards to merge');
  const def = dirs[0]!.json.definition;
  const canonical = JSON.stringify(def);
  for (const d of dirs.slice(1)) {
    if (JSON.stringify(d.json.definition) !== canonical) {
      throw new InputError(d.dir, `its sweep differs from ${dirs[0]!.dir}'s (${firstDifference(def, d.json.definition)}); shards must come from the same command line and scenario file`);
    }
  }
  const rows = new Array<RunRow | undefined>(runCount(def));
  for (const d of dirs) {
    for (const row of d.rows) {
      const k = indexOfRow(def, row);
      if (k === undefined) throw new InputError(d.dir, `runs.json holds a run outside the sweep: ${JSON.stringify(row.point)} seed ${row.seed}`);
      const had = rows[k];
      if (had !== undefined && JSON.stringify(had) !== JSON.stringify(row)) {
        throw new InputError(d.dir, `run ${JSON.stringify(row.point)} seed ${row.seed} differs from the same run in another directory`);
      }
      rows[k] = row;
    }
  }
  let missing = 0;
  for (let k = 0; k < rows.length; k++) if (rows[k] === undefined) missing++;
  if (missing > 0) {
    const shards = dirs.map((d) => d.json.shard).filter((s) => s !== undefined);
    const count = shards[0]?.count;
    const have = new Set(shards.map((s) => s.index));
    const absent = count === undefined ? [] : Array.from({ length: count }, (_, i) => i).filter((i) => !have.has(i));
    const hint = absent.length > 0 ? `; shards ${absent.map((i) => `${i}/${count}`).join(', ')} are not among the directories` : '';
    throw new InputError('merge', `${missing} of ${rows.length} runs are missing${hint}`);
  }
  return buildSweepResult(def, rows);
}

/** Canonical position of a row: its point's index in the grid (first axis slowest) times seeds, plus its seed's. */
export function indexOfRow(def: SweepDefinition, row: RunRow): number | undefined {
  let p = 0;
  for (const a of def.grid) {
    const i = a.values.findIndex((v) => v === row.point[a.key]);
    if (i < 0) return undefined;
    p = p * a.values.length + i;
  }
  const s = def.seeds.indexOf(row.seed);
  if (s < 0) return undefined;
  return p * def.seeds.length + s;
}

function firstDifference(a: SweepDefinition, b: SweepDefinition): string {
  // Both sides' keys: an optional field (env) may be in one definition only.
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof SweepDefinition>) {
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) return `${k}: ${JSON.stringify(a[k])} vs ${JSON.stringify(b[k])}`;
  }
  return 'definition';
}
