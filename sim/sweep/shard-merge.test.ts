import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { writeFileAtomic } from '../cli/write-outputs.ts';
import { InputError } from '../eventlog/input-error.ts';
import { executeSweep, inThreadExecutor, poolExecutor } from './execute.ts';
import { parseGrid } from './grid.ts';
import { mergeSweepDirs } from './merge.ts';
import { buildSweepResult, readSweepDir, type SweepFiles } from './outputs.ts';
import { DEFAULT_COST_MODEL, defineSweep, shardTasks } from './plan.ts';

const SCENARIO = fileURLToPath(new URL('../../scenarios/route-burst.yaml', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'rb-sweep-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const def = defineSweep({
  file: SCENARIO,
  grid: parseGrid(['router.blueprintPoolSize=11,12', 'router.maxDynamicServers=2,5']),
  seeds: 2,
  set: {},
  budgets: ['reloads.total<=2'],
  statistic: { kind: 'quantile', q: 0.95 },
  cost: DEFAULT_COST_MODEL,
});

function write(dir: string, files: SweepFiles): string {
  for (const [name, text] of Object.entries(files)) writeFileAtomic(join(dir, name), text);
  return dir;
}

test('three shards merge into exactly the bytes of one unsharded sweep run on two worker threads', async () => {
  const pool = poolExecutor(2);
  let whole;
  try {
    whole = buildSweepResult(def, (await executeSweep(def, { positions: shardTasks(def, undefined), executor: pool })).rows);
  } finally {
    await pool.close();
  }
  const dirs: string[] = [];
  for (let i = 0; i < 3; i++) {
    const shard = { index: i, count: 3 };
    const { rows } = await executeSweep(def, { positions: shardTasks(def, shard), executor: inThreadExecutor() });
    const part = buildSweepResult(def, rows, { shard });
    expect(part.json).toMatchObject({ complete: false, verdict: 'incomplete', recommendation: null, shard });
    dirs.push(write(join(tmp, `shard-${i}`), part.files));
  }
  // Shards in any order.
  const merged = mergeSweepDirs([dirs[2]!, dirs[0]!, dirs[1]!].map(readSweepDir));
  for (const name of ['runs.csv', 'runs.json', 'sweep.json'] as const) expect(merged.files[name], name).toBe(whole.files[name]);
  expect(merged.json.recommendation?.settings).toEqual({ 'router.blueprintPoolSize': 12, 'router.maxDynamicServers': 2 });
  // 4 points × 2 seeds, one row each, point-major then seed.
  const rows = JSON.parse(whole.files['runs.json']) as Array<{ point: Record<string, number>; seed: number }>;
  expect(rows.map((r) => [r.point['router.blueprintPoolSize'], r.point['router.maxDynamicServers'], r.seed])).toEqual([
    [11, 2, 1], [11, 2, 2], [11, 5, 1], [11, 5, 2], [12, 2, 1], [12, 2, 2], [12, 5, 1], [12, 5, 2],
  ]);
  expect(whole.files['runs.csv'].split('\n')[0]).toMatch(/^router\.blueprintPoolSize,router\.maxDynamicServers,seed,simulatedMs,/);

  // A missing shard is named; a shard of another sweep is refused.
  expect(() => mergeSweepDirs([dirs[0]!, dirs[2]!].map(readSweepDir))).toThrow(/3 of 8 runs are missing; shards 1\/3 are not among/); // shard 1/3 holds runs 1, 4, 7
  const other = defineSweep({ ...def, file: SCENARIO, grid: def.grid, seeds: 3, set: {}, budgets: ['reloads.total<=2'], statistic: def.statistic, cost: def.cost });
  const foreign = write(join(tmp, 'foreign'), buildSweepResult(other, [], { shard: { index: 1, count: 3 } }).files);
  expect(() => mergeSweepDirs([dirs[0]!, foreign].map(readSweepDir))).toThrow(InputError);
  expect(readFileSync(join(dirs[0]!, 'sweep.json'), 'utf8')).toContain('"shard"');
});

test('a shard cut short or edited by hand is an input error naming the file and field', () => {
  const files = buildSweepResult(def, [], { shard: { index: 0, count: 3 } }).files;
  const dir = (name: string, edit: (f: SweepFiles) => SweepFiles): string => write(join(tmp, name), edit({ ...files }));
  const errorOf = (d: string): InputError => {
    try {
      mergeSweepDirs([readSweepDir(d)]);
    } catch (err) {
      if (err instanceof InputError) return err;
      throw err;
    }
    throw new Error('merged');
  };
  const noPoint = errorOf(dir('no-point', (f) => ({ ...f, 'runs.json': '[{"seed":1,"metrics":{},"pass":true,"reproduce":"r"}]' })));
  expect({ file: noPoint.file, field: noPoint.field }).toEqual({ file: join(tmp, 'no-point', 'runs.json'), field: '[0].point' });
  const row = { point: { 'router.blueprintPoolSize': 11 }, seed: 1, metrics: { 'reloads.total': 'two' }, preallocated: { poolBackends: 1, routeBackends: 1, slotServers: 1 }, pass: true, reproduce: 'r' };
  const badMetric = errorOf(dir('bad-metric', (f) => ({ ...f, 'runs.json': JSON.stringify([row]) })));
  expect(badMetric.field).toBe('[0].metrics.reloads.total');
  const seeds = errorOf(dir('bad-seeds', (f) => ({ ...f, 'sweep.json': f['sweep.json'].replace(/"seeds": \[[^\]]*\]/, '"seeds": "1,2"') })));
  expect({ file: seeds.file, field: seeds.field }).toEqual({ file: join(tmp, 'bad-seeds', 'sweep.json'), field: 'definition.seeds' });
  // An env (from --env or --router-deployment) whose vars are no list would have been spelt out letter by letter.
  const env = errorOf(dir('bad-env', (f) => ({ ...f, 'sweep.json': f['sweep.json'].replace('"definition": {', '"definition": {\n    "env": { "vars": "ROUTER_MAX_DYNAMIC_SERVERS=3", "settings": {} },') })));
  expect(env.field).toBe('definition.env.vars');
});

test('a shard row edited by hand (a field added, a key or metric not the sweep\'s) is refused, naming file, row, line and field', async () => {
  const shard = { index: 1, count: 3 };
  const { rows } = await executeSweep(def, { positions: shardTasks(def, shard), executor: inThreadExecutor() });
  const files = buildSweepResult(def, rows, { shard }).files;
  // runs.json: "[" on line 1, then a row per line; shard 1/3 of 8 runs holds positions 1, 4, 7: rows 0..2.
  const lines = files['runs.json'].split('\n');
  expect(lines.length).toBe(3 + 3); // "[", 3 rows, "]", and the empty string after the final newline
  let edits = 0;
  const withRow = (k: number, edit: (row: Record<string, unknown>) => Record<string, unknown>): string => {
    const row = JSON.parse(lines[k + 1]!.replace(/,$/, '')) as Record<string, unknown>;
    const text = JSON.stringify(edit(row)) + (k < 2 ? ',' : '');
    return write(join(tmp, `edited-${edits++}`), { ...files, 'runs.json': lines.map((l, i) => (i === k + 1 ? text : l)).join('\n') });
  };
  const errorOf = (d: string): InputError => {
    try {
      readSweepDir(d);
    } catch (err) {
      if (err instanceof InputError) return err;
      throw err;
    }
    throw new Error(`${d} was read without an error`);
  };

  // Row 1 is on line 3.
  const extra = withRow(1, (r) => ({ ...r, note: 'rerun by hand' }));
  expect(errorOf(extra)).toMatchObject({ file: join(extra, 'runs.json'), line: 3, field: '[1].note', detail: "run row 1: unknown field 'note'" });
  const nested = withRow(0, (r) => ({ ...r, preallocated: { ...(r.preallocated as object), bytes: 1 } }));
  expect(errorOf(nested)).toMatchObject({ line: 2, field: '[0].preallocated.bytes' });
  const missing = withRow(2, ({ pass: _pass, ...r }) => r);
  expect(errorOf(missing)).toMatchObject({ line: 4, field: '[2].pass', detail: 'run row 2: missing (expected boolean)' });
  const wrongType = withRow(2, (r) => ({ ...r, seed: '2' }));
  expect(errorOf(wrongType)).toMatchObject({ line: 4, field: '[2].seed' });
  const point = withRow(0, (r) => ({ ...r, point: { ...(r.point as object), 'router.reloadIntervalMs': 5000 } }));
  expect(errorOf(point)).toMatchObject({ line: 2, field: '[0].point.router.reloadIntervalMs', detail: expect.stringContaining("unknown grid key 'router.reloadIntervalMs'") });
  const metric = withRow(0, (r) => ({ ...r, metrics: { ...(r.metrics as object), 'reloads.made-up': 1 } }));
  expect(errorOf(metric)).toMatchObject({ field: '[0].metrics.reloads.made-up', detail: expect.stringContaining("unknown metric 'reloads.made-up'") });
  const noMetric = withRow(0, (r) => {
    const { 'reloads.total': _total, ...m } = r.metrics as Record<string, unknown>;
    return { ...r, metrics: m };
  });
  expect(errorOf(noMetric)).toMatchObject({ field: '[0].metrics.reloads.total', detail: "run row 0: missing metric 'reloads.total'" });

  // Keys in another order are the same row: the merge writes the sweep's order, so the bytes do not change.
  const reordered = withRow(1, (r) => Object.fromEntries(Object.entries(r).reverse()));
  expect(readSweepDir(reordered).rows).toEqual(readSweepDir(write(join(tmp, 'as-written'), files)).rows);
  expect(JSON.stringify(readSweepDir(reordered).rows)).toBe(JSON.stringify(rows.filter((r) => r !== undefined)));

  // A definition whose keys an editor reordered is the same definition, read back in the sweep's order.
  const defReordered = JSON.parse(files['sweep.json']) as { definition: Record<string, unknown> };
  defReordered.definition = Object.fromEntries(Object.entries(defReordered.definition).reverse());
  const reorderedDef = write(join(tmp, 'def-reordered'), { ...files, 'sweep.json': JSON.stringify(defReordered) });
  expect(JSON.stringify(readSweepDir(reorderedDef).json.definition)).toBe(JSON.stringify((JSON.parse(files['sweep.json']) as { definition: unknown }).definition));

  // sweep.json: a definition field the sweep does not write; --confidence with one seed, which sweep refuses.
  const defExtra = write(join(tmp, 'def-extra'), { ...files, 'sweep.json': files['sweep.json'].replace('"definition": {', '"definition": {\n    "by": "hand",') });
  expect(errorOf(defExtra)).toMatchObject({ file: join(defExtra, 'sweep.json'), field: 'definition.by' });
  const oneSeed = JSON.parse(files['sweep.json']) as { definition: Record<string, unknown> };
  oneSeed.definition = { ...oneSeed.definition, seeds: [1], statistic: { kind: 'confidence', level: 0.9 }, ciLevel: 0.9 };
  const confident = write(join(tmp, 'one-seed'), { ...files, 'sweep.json': JSON.stringify(oneSeed) });
  expect(errorOf(confident)).toMatchObject({ field: 'definition.statistic', detail: expect.stringContaining('needs at least 2 seeds') });
});
