import { availableParallelism } from 'node:os';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeSweep, inThreadExecutor } from '../sweep/execute.ts';
import { parseGrid } from '../sweep/grid.ts';
import { buildSweepResult } from '../sweep/outputs.ts';
import { DEFAULT_COST_MODEL, defineSweep, shardTasks, type Statistic } from '../sweep/plan.ts';
import { describeOutcome } from './sweep-outcome.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'routerbench.js');
const SCENARIO = join(import.meta.dirname, '..', '..', 'scenarios', 'route-burst.yaml');
const DEPLOYMENT = join(import.meta.dirname, '..', 'sweep', 'testdata', 'router-deployment.yaml');
const dir = mkdtempSync(join(tmpdir(), 'rb-sweep-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('routerbench sweep exit codes', () => {
  it('2 for a bad grid key or range, naming the flag; nothing written', () => {
    const out = join(dir, 'bad');
    const key = cli('sweep', SCENARIO, '--grid', 'router.poolSize=0..3', '--out', out);
    expect(key.code).toBe(2);
    expect(key.err).toMatch(/^routerbench: --grid: field 'router.poolSize': unknown setting 'router.poolSize'/);
    const range = cli('sweep', SCENARIO, '--grid', 'router.blueprintPoolSize=9..3');
    expect(range.code).toBe(2);
    expect(range.err).toContain("--grid: field 'router.blueprintPoolSize': range '9..3' is empty");
    expect(existsSync(out)).toBe(false);
  }, 120_000);

  it('2 for a bad line deep in an event log, found by a worker thread: file, line and field, nothing written', () => {
    const log = join(dir, 'bad-deep.jsonl');
    const good = Array.from({ length: 300 }, (_, i) => `{"at":${i},"type":"endpoints.delete","namespace":"ns","service":"s${i}"}`);
    // Header on line 1, 300 good events on lines 2..301, the bad one on line 302.
    writeFileSync(log, ['{"routerbench":"eventlog","version":1}', ...good, '{"at":400,"type":"bogus"}'].join('\n') + '\n');
    const out = join(dir, 'bad-deep');
    const r = cli('sweep', log, '--grid', 'router.maxDynamicServers=1,2', '--seeds', '2', '--workers', '2', '--out', out);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${log}:302: field 'type': unknown event type "bogus"`);
    expect(existsSync(out)).toBe(false);
  }, 120_000);

  it('1 when no point meets the budget, saying so; the files are still written', () => {
    const out = join(dir, 'none');
    // Pools of 10 and 11 run out during burst A: 4 reloads (sim/sweep/route-burst.test.ts), budget <= 2.
    const r = cli('sweep', SCENARIO, '--grid', 'router.blueprintPoolSize=10,11', '--set', 'router.maxDynamicServers=2', '--seeds', '1', '--workers', '0', '--out', out);
    expect(r.code).toBe(1);
    expect(r.out).toContain('no point of the grid meets the budget (reloads.total <= 2, reloads.requests.pool-exhausted == 0)');
    const sweep = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(sweep).toMatchObject({ verdict: 'none-meets-budget', recommendation: null, complete: true });
    const html = readFileSync(join(out, 'sweep.html'), 'utf8');
    expect(html).toContain('No point of the grid meets the budget (<code>reloads.total &lt;= 2</code>, <code>reloads.requests.pool-exhausted == 0</code>): widen the grid.');
    // Both run out of pool (4 reloads, some asked for as pool-exhausted): neither meets either budget, so the
    // closest is the first in grid order, on the page as on stdout.
    expect(r.out).toContain('closest: router.blueprintPoolSize=10:');
    expect(html).toContain('Closest: <code>router.blueprintPoolSize=10</code>, meeting 0 of 2 budgets');
  }, 120_000);

  // One worker runs in this process; a worker per core (at least 2) re-runs the sweep in a child node
  // --single-threaded, which must hear the Ctrl-C once, through this process, and stop just the same.
  it.each([
    ['1', false],
    [String(Math.max(2, availableParallelism())), true],
  ])('Ctrl-C stops cleanly, keeps the finished rows and exits 130 (--workers %s)', async (workers, rerun) => {
    const out = join(dir, `stopped-${workers}`);
    const child = spawn(process.execPath, [BIN, 'sweep', SCENARIO, '--grid', 'router.blueprintPoolSize=0..19', '--seeds', '2', '--workers', workers, '--out', out], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const code = await new Promise<number | null>((resolve) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d;
        // Plain progress lines (stderr is not a terminal): interrupt after the first one (10% = 4 of 40 runs).
        if (/runs \(\d+%\)/.test(stderr) && !child.killed) child.kill('SIGINT');
      });
      child.on('exit', (c) => resolve(c));
    });
    expect(code).toBe(130);
    expect(stderr).toContain('stopping: keeping the finished runs');
    expect(stderr.includes('V8 single-threaded')).toBe(rerun);
    const sweep = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(sweep).toMatchObject({ interrupted: true, complete: false, verdict: 'incomplete' });
    const rows = JSON.parse(readFileSync(join(out, 'runs.json'), 'utf8')) as unknown[];
    expect(rows.length).toBe(sweep.runs.completed);
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(rows.length).toBeLessThan(40);
  }, 120_000);
});

describe('routerbench sweep --env and --router-deployment', () => {
  const read = (out: string, name: string): string => readFileSync(join(out, name), 'utf8');
  const small = ['--grid', 'router.blueprintPoolSize=11,12', '--seeds', '2', '--no-progress'];

  it('--env ROUTER_MAX_DYNAMIC_SERVERS=2 on worker threads gives the runs of --set router.maxDynamicServers=2; the reproduce line carries it', () => {
    const env = join(dir, 'env');
    const set = join(dir, 'set');
    const a = cli('sweep', SCENARIO, ...small, '--env', 'ROUTER_MAX_DYNAMIC_SERVERS=2', '--workers', '2', '--out', env);
    const b = cli('sweep', SCENARIO, ...small, '--set', 'router.maxDynamicServers=2', '--workers', '0', '--out', set);
    expect([a.code, b.code], a.err + b.err).toEqual([0, 0]);
    expect(read(env, 'runs.json')).toBe(read(set, 'runs.json'));
    expect(read(env, 'runs.csv')).toBe(read(set, 'runs.csv'));
    const sweep = JSON.parse(read(env, 'sweep.json'));
    expect(sweep.definition.env).toEqual({
      vars: ['ROUTER_MAX_DYNAMIC_SERVERS=2'],
      settings: { 'router.maxDynamicServers': '2' },
      sources: { 'router.maxDynamicServers': '--env ROUTER_MAX_DYNAMIC_SERVERS=2' },
    });
    expect(sweep.reproduce).toContain('--env ROUTER_MAX_DYNAMIC_SERVERS=2');
    expect(a.out).toContain('--env ROUTER_MAX_DYNAMIC_SERVERS=2');
  }, 120_000);

  it('--env with a string that reads as a number (a blueprint namespace 007) keeps it a string, in the runs and their reproduce lines', () => {
    const out = join(dir, 'env-007');
    const r = cli('sweep', SCENARIO, ...small, '--env', 'ROUTER_BLUEPRINT_ROUTE_NAMESPACE=007', '--workers', '0', '--out', out);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(read(out, 'sweep.json')).definition.env.settings).toEqual({ 'router.blueprintNamespace': '"007"' });
    const rows = JSON.parse(read(out, 'runs.json')) as Array<{ reproduce: string }>;
    for (const row of rows) expect(row.reproduce).toContain(`--set 'router.blueprintNamespace="007"'`);
  }, 120_000);

  it('--router-deployment reads the manifest (a grid key wins over its value); its warnings print once', () => {
    const out = join(dir, 'deploy');
    const r = cli('sweep', SCENARIO, ...small, '--router-deployment', DEPLOYMENT, '--workers', '0', '--out', out);
    expect(r.code, r.err).toBe(0);
    const warning = 'warning: ROUTER_SERVICE_NAMESPACE: valueFrom is not resolved offline; treated as unset\n';
    expect(r.err.split(warning).length - 1).toBe(1);
    const sweep = JSON.parse(read(out, 'sweep.json'));
    expect(sweep.definition.env).toMatchObject({
      deployment: { path: DEPLOYMENT },
      settings: { 'router.strategy': 'dcm-slots', 'router.maxDynamicServers': '2', 'router.blueprintPoolSize': '10', 'router.reloadIntervalMs': '5000' },
      // Each env entry's `- name:` line in testdata/router-deployment.yaml (15, 17, 19, 21), its text as written.
      sources: {
        'router.strategy': `--router-deployment ${DEPLOYMENT}:15 ROUTER_HAPROXY_CONFIG_MANAGER=true`,
        'router.maxDynamicServers': `--router-deployment ${DEPLOYMENT}:17 ROUTER_MAX_DYNAMIC_SERVERS=2`,
        'router.blueprintPoolSize': `--router-deployment ${DEPLOYMENT}:19 ROUTER_BLUEPRINT_ROUTE_POOL_SIZE=10`,
        'router.reloadIntervalMs': `--router-deployment ${DEPLOYMENT}:21 RELOAD_INTERVAL=5s`,
      },
    });
    expect(sweep.reproduce).toContain(`--router-deployment ${DEPLOYMENT}`);
    // The manifest's pool of 10 gives way to the grid's 11 and 12; its 2 slots reach every run.
    const rows = JSON.parse(read(out, 'runs.json')) as Array<{ point: Record<string, number>; reproduce: string }>;
    expect(rows.map((row) => row.point['router.blueprintPoolSize'])).toEqual([11, 11, 12, 12]);
    for (const row of rows) expect(row.reproduce).toMatch(/--set router\.maxDynamicServers=2 .*--set router\.blueprintPoolSize=1[12]/);
    expect(sweep.recommendation.settings).toEqual({ 'router.blueprintPoolSize': 12 });
  }, 120_000);

  it('a garbage value warns once, as run documents, and the router default applies', () => {
    const out = join(dir, 'garbage');
    const r = cli('sweep', SCENARIO, ...small, '--env', 'ROUTER_MAX_DYNAMIC_SERVERS=lots', '--workers', '0', '--out', out);
    expect(r.code, r.err).toBe(0);
    const warning = 'warning: ROUTER_MAX_DYNAMIC_SERVERS=lots: not a 32-bit integer; the router uses its default 5\n';
    expect(r.err.split(warning).length - 1).toBe(1);
    expect(JSON.parse(read(out, 'sweep.json')).definition.env.settings).toEqual({ 'router.maxDynamicServers': '5' });
  }, 120_000);

  it('2 for a missing deployment file or a malformed --env, nothing written', () => {
    const out = join(dir, 'missing');
    const missing = cli('sweep', SCENARIO, ...small, '--router-deployment', join(dir, 'no-such-deploy.yaml'), '--out', out);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('no-such-deploy.yaml: cannot read the Deployment manifest');
    const malformed = cli('sweep', SCENARIO, ...small, '--env', 'ROUTER_MAX_DYNAMIC_SERVERS', '--out', out);
    expect(malformed.code).toBe(2);
    expect(malformed.err).toContain("--env: expected NAME=VALUE, got 'ROUTER_MAX_DYNAMIC_SERVERS'");
    expect(existsSync(out)).toBe(false);
    expect(cli('sweep', '--help').out).toMatch(/--env <NAME=VALUE>[\s\S]*--router-deployment <file>/);
  }, 120_000);
});

describe('routerbench sweep --confidence', () => {
  it('2 with --seeds 1, before any run: one seed has no interval to bound; nothing written', () => {
    const out = join(dir, 'one-seed');
    const r = cli('sweep', SCENARIO, '--grid', 'router.blueprintPoolSize=11,12', '--seeds', '1', '--confidence', '0.5', '--out', out);
    expect(r.code).toBe(2);
    expect(r.err).toContain('routerbench: --confidence: a confidence bound of the mean needs at least 2 seeds per point');
    expect(r.out).toBe('');
    // No run started: no progress line, no closing "runs in" line.
    expect(r.err).not.toContain('runs');
    expect(existsSync(out)).toBe(false);
  }, 120_000);

  it('says "too few seeds leave a side unbounded" only of an interval with an unbounded side', async () => {
    const outcome = async (seeds: number, statistic: Statistic): Promise<string> => {
      const def = defineSweep({ file: SCENARIO, grid: parseGrid(['router.blueprintPoolSize=12']), seeds, set: { 'router.maxDynamicServers': '2' }, budgets: [], statistic, cost: DEFAULT_COST_MODEL });
      const { rows } = await executeSweep(def, { positions: shardTasks(def, undefined), executor: inThreadExecutor() });
      return describeOutcome(buildSweepResult(def, rows).json, undefined);
    };
    // Pool 12 with 2 slots reloads twice on every seed (sim/sweep/route-burst.test.ts): with 2 seeds of 2
    // reloads the mean's interval has zero width, 2 – 2, bounded on both sides.
    const confident = await outcome(2, { kind: 'confidence', level: 0.5 });
    expect(confident).toContain('reloads.total <= 2: 50% confidence bound of the mean = 2 (its confidence interval: 2 – 2)\n');
    expect(confident).not.toContain('too few seeds');
    // The p95 of 3 seeds, B ~ Binomial(3, 0.95): P(B ≥ 3) = 0.857 > 0.025, so no upper bound; P(B < 2) =
    // 0.05³ + 3 · 0.95 · 0.05² = 0.0072 ≤ 0.025 < P(B < 3), so the lower bound is the 2nd smallest, 2.
    const quantile = await outcome(3, { kind: 'quantile', q: 0.95 });
    expect(quantile).toContain('reloads.total <= 2: p95 across seeds = 2 (its confidence interval: 2 – unbounded; too few seeds leave a side unbounded)\n');
  }, 120_000);
});

describe('routerbench merge', () => {
  it('--out is required, and says so in --help', () => {
    const help = cli('merge', '--help');
    expect(help.out).toContain('Usage: routerbench merge <dirs...> --out <dir>');
    expect(help.out).toMatch(/--out <dir>\s+required:/);
    expect(cli('merge', join(dir, 'anything'))).toMatchObject({ code: 2, err: expect.stringContaining("required option '--out <dir>' not specified") });
  });

  it('2 for a shard whose runs.json holds a row edited by hand, naming the file, the row and the field; nothing written', () => {
    const shard = join(dir, 'shard-0');
    expect(cli('sweep', SCENARIO, '--grid', 'router.blueprintPoolSize=11,12', '--seeds', '2', '--shard', '0/1', '--workers', '0', '--no-progress', '--out', shard).code).toBe(0);
    const runs = join(shard, 'runs.json');
    const lines = readFileSync(runs, 'utf8').split('\n');
    // Line 1 is "[", so row 0 is line 2.
    lines[1] = lines[1]!.replace('"pass":', '"checkedBy":"me","pass":');
    writeFileSync(runs, lines.join('\n'));
    const out = join(dir, 'merged');
    const r = cli('merge', shard, '--out', out);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`routerbench: ${runs}:2: field '[0].checkedBy': run row 0: unknown field 'checkedBy'`);
    expect(existsSync(out)).toBe(false);
  }, 120_000);

  it('2 for --out naming one of the shards, and for a shard whose figures were edited negative; the shard untouched', () => {
    const shard = join(dir, 'shard-edited');
    expect(cli('sweep', SCENARIO, '--grid', 'router.blueprintPoolSize=11,12', '--seeds', '2', '--shard', '0/1', '--workers', '0', '--no-progress', '--out', shard).code).toBe(0);
    const runs = join(shard, 'runs.json');
    const before = readFileSync(runs, 'utf8');
    const into = cli('merge', shard, '--out', join(shard, '.', ''));
    expect(into.code).toBe(2);
    expect(into.err).toContain(`routerbench: --out: ${join(shard, '.', '')} is one of the shards being merged (${shard})`);
    expect(readFileSync(runs, 'utf8')).toBe(before);
    const lines = before.split('\n');
    // Row 0 (line 2) with a negative reload count.
    lines[1] = lines[1]!.replace(/"reloads\.total":\d+/, '"reloads.total":-2');
    expect(lines[1]).toContain('"reloads.total":-2');
    writeFileSync(runs, lines.join('\n'));
    const out = join(dir, 'merged-negative');
    const r = cli('merge', shard, '--out', out);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`routerbench: ${runs}:2: field '[0].metrics.reloads.total': run row 0: -2 is negative; counts and durations never are`);
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});
