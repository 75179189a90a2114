import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { knownMetricPaths } from '../../reports/budgets.ts';
import { summarizeSweep, type SweepSummary } from '../../reports/sweep/summary.ts';
import { InputError } from '../eventlog/input-error.ts';
import { runCount, sweepCommand, type Shard, type SweepDefinition } from './plan.ts';
import { firstIssue, RunRowSchema, SweepDefinitionSchema } from './sweep-dir-schema.ts';
import type { RunRow } from './task.ts';

/**
 * The files a sweep writes, as text: a pure function of the definition and the finished rows, so a sweep
 * run in one go, in shards then merged, or with any number of workers writes the same bytes.
 */
export interface SweepFiles {
  'runs.csv': string;
  'runs.json': string;
  'sweep.json': string;
}

/** sweep.json. `complete` is false for a shard or an interrupted sweep: then no recommendation is made. */
export interface SweepJson {
  routerbench: 'sweep';
  version: 1;
  definition: SweepDefinition;
  runs: { expected: number; completed: number };
  complete: boolean;
  shard?: Shard;
  interrupted?: boolean;
  reproduce: string;
  points: SweepSummary['points'];
  verdict: SweepSummary['verdict'] | 'incomplete';
  recommendation: SweepSummary['recommendation'];
}

export interface SweepResult {
  json: SweepJson;
  files: SweepFiles;
}

/**
 * rows: the finished runs in canonical order (undefined holes are runs not done). A complete sweep gets the
 * per-point summary and recommendation; a partial one (shard, Ctrl-C) the summary of the points whose every
 * seed finished, and verdict `incomplete`.
 */
export function buildSweepResult(def: SweepDefinition, rows: ReadonlyArray<RunRow | undefined>, opts: { shard?: Shard; interrupted?: boolean } = {}): SweepResult {
  // Index loops, not filter/every: those skip the holes of a sparse array.
  const done: RunRow[] = [];
  for (let k = 0; k < rows.length; k++) if (rows[k] !== undefined) done.push(rows[k]!);
  const complete = opts.shard === undefined && opts.interrupted !== true && done.length === runCount(def);
  const n = def.seeds.length;
  const whole: RunRow[] = [];
  for (let at = 0; at + n <= rows.length; at += n) {
    const group: RunRow[] = [];
    for (let k = at; k < at + n; k++) if (rows[k] !== undefined) group.push(rows[k]!);
    if (group.length === n) whole.push(...group);
  }
  const summary = summarizeSweep(def, whole);
  const json: SweepJson = {
    routerbench: 'sweep',
    version: 1,
    definition: def,
    runs: { expected: runCount(def), completed: done.length },
    complete,
    ...(opts.shard !== undefined && { shard: opts.shard }),
    ...(opts.interrupted === true && { interrupted: true }),
    reproduce: sweepCommand(def),
    points: summary.points,
    verdict: complete ? summary.verdict : 'incomplete',
    recommendation: complete ? summary.recommendation : null,
  };
  return {
    json,
    files: {
      'runs.csv': renderRunsCsv(def, done),
      'runs.json': renderRunsJson(done),
      'sweep.json': JSON.stringify(json, null, 2) + '\n',
    },
  };
}

/** One row per line, inside a JSON array: valid JSON and readable in a diff. */
export function renderRunsJson(rows: readonly RunRow[]): string {
  if (rows.length === 0) return '[]\n';
  return '[\n' + rows.map((r) => JSON.stringify(r)).join(',\n') + '\n]\n';
}

/** Tidy CSV: the grid keys, seed, every metric, pre-allocation, verdict, reproduce. RFC 4180 quoting. */
export function renderRunsCsv(def: SweepDefinition, rows: readonly RunRow[]): string {
  const metrics = knownMetricPaths();
  const header = [...def.grid.map((a) => a.key), 'seed', ...metrics, 'poolBackends', 'routeBackends', 'slotServers', 'pass', 'reproduce'];
  const lines = [header.map(csvCell).join(',')];
  for (const r of rows) {
    const cells = [
      ...def.grid.map((a) => r.point[a.key]),
      r.seed,
      ...metrics.map((m) => r.metrics[m] ?? null),
      r.preallocated.poolBackends,
      r.preallocated.routeBackends,
      r.preallocated.slotServers,
      r.pass,
      r.reproduce,
    ];
    lines.push(cells.map(csvCell).join(','));
  }
  return lines.join('\n') + '\n';
}

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  // A leading = + - @ would be a formula in a spreadsheet: quote and prefix with ' (OWASP CSV injection).
  const guarded = /^[=+@\t\r]/.test(s) || (/^-/.test(s) && !/^-\d/.test(s)) ? `'${s}` : s;
  return /[",\n\r']/.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

/** What merge reads back from a sweep directory. */
export interface SweepDir {
  dir: string;
  json: SweepJson;
  rows: RunRow[];
}

export function readSweepDir(dir: string): SweepDir {
  const read = (name: string): unknown => {
    const file = join(dir, name);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new InputError(file, 'not found: give directories written by `routerbench sweep --out`');
    }
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new InputError(file, `not JSON (${(err as Error).message})`);
    }
  };
  const json = read('sweep.json') as SweepJson;
  if (json?.routerbench !== 'sweep' || json.version !== 1 || typeof json.definition !== 'object') {
    throw new InputError(join(dir, 'sweep.json'), 'not a routerbench sweep.json (version 1)');
  }
  const defIssue = firstIssue(SweepDefinitionSchema, json.definition, 'definition');
  if (defIssue !== undefined) throw new InputError(join(dir, 'sweep.json'), defIssue.message, undefined, defIssue.field);
  const rows = read('runs.json');
  if (!Array.isArray(rows)) throw new InputError(join(dir, 'runs.json'), 'expected a JSON array of run rows');
  const rowIssue = firstIssue(z.array(RunRowSchema), rows, '');
  if (rowIssue !== undefined) throw new InputError(join(dir, 'runs.json'), rowIssue.message, undefined, rowIssue.field);
  return { dir, json, rows: rows as RunRow[] };
}
