import { join } from 'node:path';
import { z } from 'zod';
import { knownMetricPaths } from '../../reports/budgets.ts';
import { summarizeSweep, type SweepSummary } from '../../reports/sweep/summary.ts';
import { InputError } from '../eventlog/input-error.ts';
import { readInputFile } from '../eventlog/regular-file.ts';
import { runCount, statisticNeeds, sweepCommand, type Shard, type SweepDefinition } from './plan.ts';
import { describeIssue } from '../output/output-log-reader.ts';
import type { GridValue } from './grid.ts';
import { firstIssue, RunRowSchema, ShardSchema, SweepDefinitionSchema } from './sweep-dir-schema.ts';
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
  const read = (name: string): { text: string; value: unknown } => {
    const file = join(dir, name);
    let text: string;
    try {
      text = readInputFile(file, `a sweep's ${name}`).toString('utf8');
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw new InputError(file, 'not found: give directories written by `routerbench sweep --out`');
    }
    try {
      return { text, value: JSON.parse(text) };
    } catch (err) {
      throw new InputError(file, `not JSON (${(err as Error).message})`);
    }
  };
  const sweepFile = join(dir, 'sweep.json');
  const json = read('sweep.json').value as SweepJson;
  if (json?.routerbench !== 'sweep' || json.version !== 1 || typeof json.definition !== 'object') {
    throw new InputError(sweepFile, 'not a routerbench sweep.json (version 1)');
  }
  const defParsed = SweepDefinitionSchema.safeParse(json.definition);
  if (!defParsed.success) {
    const defIssue = describeIssue(defParsed.error.issues[0]!, 'definition');
    throw new InputError(sweepFile, defIssue.message, undefined, defIssue.field);
  }
  // The parse rebuilds the definition in the schema's key order, the order a sweep writes: a definition an
  // editor reordered still compares equal with the other shards' and merges into the same bytes.
  json.definition = defParsed.data as SweepJson['definition'];
  const statisticProblem = statisticNeeds(json.definition.statistic, json.definition.seeds.length);
  if (statisticProblem !== undefined) throw new InputError(sweepFile, statisticProblem, undefined, 'definition.statistic');
  const shardIssue = json.shard === undefined ? undefined : firstIssue(ShardSchema, json.shard, 'shard');
  if (shardIssue !== undefined) throw new InputError(sweepFile, shardIssue.message, undefined, shardIssue.field);

  const runsFile = join(dir, 'runs.json');
  const { text, value: rows } = read('runs.json');
  if (!Array.isArray(rows)) throw new InputError(runsFile, 'expected a JSON array of run rows');
  const lineOf = rowLines(text, rows.length);
  const parsed = z.array(RunRowSchema).safeParse(rows);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const k = issue.path[0] as number;
    const { field, message } = describeIssue(issue);
    throw new InputError(runsFile, `run row ${k}: ${message}`, lineOf(k), field);
  }
  const def = json.definition;
  const metricPaths = knownMetricPaths();
  const gridKeys = def.grid.map((a) => a.key);
  const canonical = parsed.data.map((row, k): RunRow => {
    for (const [field, o, expected, what] of [
      ['point', row.point, gridKeys, 'grid key'],
      ['metrics', row.metrics, metricPaths, 'metric'],
    ] as const) {
      const problem = keysProblem(o, expected, what);
      if (problem !== undefined) throw new InputError(runsFile, `run row ${k}: ${problem.message}`, lineOf(k), `[${k}].${field}.${problem.key}`);
    }
    // Rebuilt in the order the sweep writes, so a row whose keys an editor reordered merges to the same bytes.
    const point: Record<string, GridValue> = {};
    for (const key of gridKeys) point[key] = row.point[key]!;
    const metrics: Record<string, number | null> = {};
    for (const m of metricPaths) metrics[m] = row.metrics[m]!;
    const { poolBackends, routeBackends, slotServers } = row.preallocated;
    return { point, seed: row.seed, metrics, preallocated: { poolBackends, routeBackends, slotServers }, pass: row.pass, reproduce: row.reproduce };
  });
  return { dir, json, rows: canonical };
}

/** The first key missing from, or not expected in, an object whose keys must be exactly `expected`. */
function keysProblem(o: Record<string, unknown>, expected: readonly string[], what: string): { key: string; message: string } | undefined {
  for (const key of expected) if (!Object.hasOwn(o, key)) return { key, message: `missing ${what} '${key}'` };
  const known = new Set(expected);
  for (const key of Object.keys(o)) if (!known.has(key)) return { key, message: `unknown ${what} '${key}' (this sweep's are ${expected.join(', ') || 'none'})` };
  return undefined;
}

/**
 * The line of row k, when the file keeps the layout the sweep writes (`[`, then a row per line): a
 * reformatted file has no such line, and the row index alone names the row.
 */
function rowLines(text: string, rows: number): (k: number) => number | undefined {
  const lines = text.split('\n');
  let layout = lines[0]?.trim() === '[' && lines.length >= rows + 2;
  for (let k = 0; layout && k < rows; k++) layout = lines[k + 1]!.trimStart().startsWith('{');
  return (k) => (layout ? k + 2 : undefined);
}
