import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'routerbench.js');
const SCENARIO = join(import.meta.dirname, '..', '..', 'scenarios', 'route-burst.yaml');
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

  it('1 when no point meets the budget, saying so; the files are still written', () => {
    const out = join(dir, 'none');
    // Pools of 10 and 11 run out during burst A: 4 reloads (sim/sweep/route-burst.test.ts), budget <= 2.
    const r = cli('sweep', SCENARIO, '--grid', 'router.blueprintPoolSize=10,11', '--set', 'router.maxDynamicServers=2', '--seeds', '1', '--workers', '0', '--out', out);
    expect(r.code).toBe(1);
    expect(r.out).toContain('no point of the grid meets the budget (reloads.total <= 2, reloads.requests.pool-exhausted == 0)');
    const sweep = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(sweep).toMatchObject({ verdict: 'none-meets-budget', recommendation: null, complete: true });
    expect(readFileSync(join(out, 'sweep.html'), 'utf8')).toContain('No point of the grid meets the budget.');
  }, 120_000);

  it('Ctrl-C stops cleanly, keeps the finished rows and exits 130', async () => {
    const out = join(dir, 'stopped');
    const child = spawn(process.execPath, [BIN, 'sweep', SCENARIO, '--grid', 'router.blueprintPoolSize=0..19', '--seeds', '2', '--workers', '1', '--out', out], {
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
    const sweep = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(sweep).toMatchObject({ interrupted: true, complete: false, verdict: 'incomplete' });
    const rows = JSON.parse(readFileSync(join(out, 'runs.json'), 'utf8')) as unknown[];
    expect(rows.length).toBe(sweep.runs.completed);
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(rows.length).toBeLessThan(40);
  }, 120_000);
});
