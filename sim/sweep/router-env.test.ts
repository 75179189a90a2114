import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { writeFileAtomic } from '../cli/write-outputs.ts';
import { InputError } from '../eventlog/input-error.ts';
import { loadRunInput } from '../load-input.ts';
import { runOne } from '../run.ts';
import { flattenLayers } from '../settings-layers.ts';
import { sweepTaskOverrides } from './task.ts';
import { executeSweep, inThreadExecutor, poolExecutor, type SweepExecutor } from './execute.ts';
import { parseGrid } from './grid.ts';
import { mergeSweepDirs } from './merge.ts';
import { buildSweepResult, readSweepDir, type SweepResult } from './outputs.ts';
import { DEFAULT_COST_MODEL, defineSweep, shardTasks, taskAt, type SweepDefinition, type SweepRequest } from './plan.ts';

// The router env (--env, --router-deployment) in a sweep: resolved once into settings, laid under --set and
// the grid point, carried to every task (worker threads too) and recorded in the definition.
const SCENARIO = fileURLToPath(new URL('../../scenarios/route-burst.yaml', import.meta.url));
const DEPLOYMENT = fileURLToPath(new URL('./testdata/router-deployment.yaml', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'rb-sweep-env-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const request: SweepRequest = {
  file: SCENARIO,
  grid: parseGrid(['router.blueprintPoolSize=11,12']),
  seeds: 2,
  set: {},
  budgets: ['reloads.total<=2'],
  statistic: { kind: 'quantile', q: 0.95 },
  cost: DEFAULT_COST_MODEL,
};
const maxDyn2 = { vars: ['ROUTER_MAX_DYNAMIC_SERVERS=2'], settings: { 'router.maxDynamicServers': '2' } };

async function sweep(def: SweepDefinition, executor: SweepExecutor = inThreadExecutor()): Promise<SweepResult> {
  try {
    return buildSweepResult(def, (await executeSweep(def, { positions: shardTasks(def, undefined), executor })).rows);
  } finally {
    await executor.close();
  }
}

test('env settings reach worker-thread runs: the same rows as --set, and the definition records the flags', async () => {
  const viaEnv = defineSweep({ ...request, routerEnv: maxDyn2 });
  const viaSet = defineSweep({ ...request, set: { 'router.maxDynamicServers': '2' } });
  const [env, set] = [await sweep(viaEnv, poolExecutor(2)), await sweep(viaSet)];
  expect(env.files['runs.json']).toBe(set.files['runs.json']);
  expect(env.files['runs.csv']).toBe(set.files['runs.csv']);
  expect(env.json.definition.env).toEqual(maxDyn2);
  expect(env.json.reproduce).toContain('--env ROUTER_MAX_DYNAMIC_SERVERS=2');
  // A sweep without the flags records no env at all (its sweep.json is what it was before them).
  expect(Object.hasOwn(set.json.definition, 'env')).toBe(false);
});

test('the grid point wins over the env for the keys it sweeps; --set wins over the env', async () => {
  const grid = parseGrid(['router.maxDynamicServers=1,5']);
  const swept = await sweep(defineSweep({ ...request, grid, routerEnv: maxDyn2 }));
  const plain = await sweep(defineSweep({ ...request, grid }));
  expect(swept.files['runs.json']).toBe(plain.files['runs.json']);
  const rows = JSON.parse(swept.files['runs.json']) as Array<{ point: Record<string, number>; reproduce: string }>;
  expect(rows.map((r) => r.point['router.maxDynamicServers'])).toEqual([1, 1, 5, 5]);
  expect(rows[2]!.reproduce).toContain('--set router.maxDynamicServers=5');

  const def = defineSweep({ ...request, routerEnv: maxDyn2, set: { 'router.maxDynamicServers': '5' } });
  const { task } = taskAt(def, 0);
  expect(flattenLayers(task.layers)).toEqual({ 'router.maxDynamicServers': 5, 'router.blueprintPoolSize': 11 });
});

test('a deployment is recorded by path and SHA-256; shards with the env merge into the bytes of one sweep', async () => {
  const routerEnv = { deployment: DEPLOYMENT, vars: [], settings: { 'router.strategy': 'dcm-slots', 'router.maxDynamicServers': '2' } };
  const def = defineSweep({ ...request, routerEnv });
  expect(def.env?.deployment).toEqual({ path: DEPLOYMENT, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  expect(buildSweepResult(def, []).json.reproduce).toContain(`--router-deployment ${DEPLOYMENT}`);
  const whole = await sweep(def, poolExecutor(2));
  const dirs = [join(tmp, 'shard-0'), join(tmp, 'shard-1')];
  for (const [index, dir] of dirs.entries()) {
    const shard = { index, count: 2 };
    const part = buildSweepResult(def, (await executeSweep(def, { positions: shardTasks(def, shard), executor: inThreadExecutor() })).rows, { shard });
    for (const [name, text] of Object.entries(part.files)) writeFileAtomic(join(dir, name), text);
  }
  const merged = mergeSweepDirs(dirs.map(readSweepDir));
  for (const name of ['runs.csv', 'runs.json', 'sweep.json'] as const) expect(merged.files[name], name).toBe(whole.files[name]);

  // A shard run with other env settings is another sweep: merge refuses it, naming the difference.
  const other = defineSweep({ ...request, routerEnv: maxDyn2 });
  const foreign = join(tmp, 'foreign');
  for (const [name, text] of Object.entries(buildSweepResult(other, [], { shard: { index: 1, count: 2 } }).files)) writeFileAtomic(join(foreign, name), text);
  expect(() => mergeSweepDirs([dirs[0]!, foreign].map(readSweepDir))).toThrow(/differs .*\(env: /);
  // And a sweep with no env against one with it, too.
  const bare = join(tmp, 'bare');
  for (const [name, text] of Object.entries(buildSweepResult(defineSweep(request), [], { shard: { index: 1, count: 2 } }).files)) writeFileAtomic(join(bare, name), text);
  expect(() => mergeSweepDirs([dirs[0]!, bare].map(readSweepDir))).toThrow(InputError);
});

test('a deployment that cannot be read is an input error naming the file', () => {
  const missing = join(tmp, 'no-such-deploy.yaml');
  expect(() => defineSweep({ ...request, routerEnv: { deployment: missing, vars: [], settings: {} } })).toThrow(InputError);
});

test("a point's run names its sources: the grid for a swept key, the env entry for the env's, --seeds for the seed", () => {
  const grid = parseGrid(['router.blueprintPoolSize=11,12']);
  const routerEnv = { ...maxDyn2, sources: { 'router.maxDynamicServers': '--env ROUTER_MAX_DYNAMIC_SERVERS=2' } };
  const def = defineSweep({ ...request, grid, routerEnv, set: { 'sim.settleMs': '100' } });
  // Position 3 is point 1 (blueprintPoolSize 12), its second seed: route-burst's seed 1, then 2.
  const { task } = taskAt(def, 3);
  const input = loadRunInput(task.file, sweepTaskOverrides(task));
  expect([input.settings.router.blueprintPoolSize, input.settings.router.maxDynamicServers, input.settings.sim.settleMs, input.settings.seed]).toEqual([12, 2, 100, 2]);
  const { report } = runOne(input);
  expect(report.settingSources).toMatchObject({
    seed: '--seeds 2',
    'router.blueprintPoolSize': '--grid router.blueprintPoolSize',
    'router.maxDynamicServers': '--env ROUTER_MAX_DYNAMIC_SERVERS=2',
    'sim.settleMs': '--set sim.settleMs=100',
  });
  // The reproduce line stays what it was: every command-line setting as --set, the seed as --seed.
  expect(report.reproduce).toBe(`routerbench run ${SCENARIO} --seed 2 --set router.maxDynamicServers=2 --set sim.settleMs=100 --set router.blueprintPoolSize=12 --budget 'reloads.total<=2'`);
});
