import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Input a hostile but realistic user gives: endless files, pipes, files larger than memory. Each case is a
 * CLI process (about 2 s), two at a time; limits are tried with small values through their environment
 * variables (docs/limits.md), never with gigabyte files.
 */
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'routerbench.js');
const dir = mkdtempSync(join(tmpdir(), 'rb-hostile-'));

interface Result {
  code: number;
  out: string;
  err: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, ...env }, timeout: 60_000, maxBuffer: 1 << 20 }, (err, out, errText) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, out, err: errText });
    });
  });
}

async function inPairs(cases: Array<() => Promise<Result>>): Promise<Result[]> {
  const results: Result[] = [];
  for (let i = 0; i < cases.length; i += 2) results.push(...(await Promise.all(cases.slice(i, i + 2).map((c) => c()))));
  return results;
}

const HEADER = '{"routerbench":"eventlog","version":1}';
const ROUTE = '{"at":0,"type":"route.upsert","route":{"namespace":"shop","name":"web","host":"web.example.com","service":"web"}}';

const zero = (name: string): string => {
  const link = join(dir, name);
  symlinkSync('/dev/zero', link);
  return link;
};

describe('endless and special files are refused, not read into memory', () => {
  it('/dev/zero as an event log, a scenario, an haproxy.cfg, a Deployment manifest and a baseline: exit 2, named', async () => {
    const log = join(dir, 'ok.jsonl');
    writeFileSync(log, `${HEADER}\n${ROUTE}\n`);
    const [asLog, asScenario, asCfg, asDeployment, asBaseline] = await inPairs([
      () => cli(['run', zero('zero.jsonl')]),
      () => cli(['run', zero('zero.yaml')]),
      () => cli(['mock-haproxy', '--config', zero('zero.cfg'), '--socket', join(dir, 'never.sock')]),
      () => cli(['run', log, '--router-deployment', zero('deploy.yaml')]),
      () => cli(['run', log, '--baseline', zero('report.json')]),
    ]);
    const device = 'must be a regular file, not a character device';
    expect(asLog).toMatchObject({ code: 2 });
    expect(asLog!.err).toContain(`${join(dir, 'zero.jsonl')}: an event log ${device}`);
    expect(asScenario!.err).toContain(`${join(dir, 'zero.yaml')}: a scenario ${device}`);
    expect(asCfg!.err).toContain(`${join(dir, 'zero.cfg')}: an haproxy.cfg ${device}`);
    expect(asDeployment!.err).toContain(`${join(dir, 'deploy.yaml')}: a Deployment manifest ${device}`);
    expect(asBaseline!.err).toContain(`${join(dir, 'report.json')}: a baseline report ${device}`);
    for (const r of [asScenario, asCfg, asDeployment, asBaseline]) expect(r!.code).toBe(2);
  }, 120_000);

  it('an event log given as a named pipe is refused at once rather than hanging on its second opening', async () => {
    const fifo = join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    const r = await cli(['run', fifo]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${fifo}: an event log must be a regular file, not a named pipe`);
  }, 60_000);

  it('a line longer than the line limit is bad input naming the line, and nothing is written', async () => {
    const log = join(dir, 'long.jsonl');
    // Line 3 is 2,000 bytes of one string; the limit is set to 1,000 bytes (the default is 64 MiB).
    writeFileSync(log, `${HEADER}\n${ROUTE}\n"${'x'.repeat(1998)}"\n`);
    const out = join(dir, 'long-out');
    const r = await cli(['run', log, '--out', out], { ROUTERBENCH_MAX_LINE_BYTES: '1000' });
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${log}:3: line longer than 1000 bytes`);
    expect(readdirSync(dir)).not.toContain('long-out');
  }, 60_000);
});

describe('an interrupted run leaves no output behind', () => {
  // Scale events at 100,000 an hour for 100 simulated hours: about ten million events, minutes of work, so
  // the signal always comes mid-run.
  const LONG = 'name: long\nrouter: { strategy: reload-always }\ngenerate:\n  durationMs: 360000000\n  world: { services: 20 }\n  scale: { perHour: 100000, max: 8 }\n';

  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`${signal} (a timeout's, or Ctrl-C) mid-run: exit ${code}, no output.jsonl.partial, and the --out directory it made is gone`, async () => {
      const scenario = join(dir, `long-${signal}.yaml`);
      writeFileSync(scenario, LONG);
      const out = join(dir, `long-out-${signal}`, 'nested');
      const child = spawn(process.execPath, [BIN, 'run', scenario, '--out', out, '--no-progress'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      const partial = join(out, 'output.jsonl.partial');
      for (let i = 0; i < 400 && !existsSync(partial); i++) await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(partial), err).toBe(true);
      child.kill(signal);
      expect(await exited).toBe(code);
      expect(err).toContain(`routerbench: stopped by ${signal}; the unfinished runs' outputs were removed`);
      expect(existsSync(partial)).toBe(false);
      // Both directories were made by the command, and both are removed.
      expect(existsSync(join(dir, `long-out-${signal}`))).toBe(false);
    }, 60_000);
  }
});

describe('messages name the flag or the file at fault', () => {
  it('--out empty or under /proc, and a Deployment manifest of two documents', async () => {
    const log = join(dir, 'msg.jsonl');
    writeFileSync(log, `${HEADER}\n${ROUTE}\n`);
    const twoDocs = join(dir, 'two-docs.yaml');
    writeFileSync(twoDocs, 'apiVersion: apps/v1\nkind: Deployment\n---\napiVersion: v1\n');
    const [empty, proc, deployment] = await inPairs([
      () => cli(['run', log, '--out', '']),
      () => cli(['run', log, '--out', '/proc/routerbench-x']),
      () => cli(['run', log, '--router-deployment', twoDocs]),
    ]);
    expect(empty).toMatchObject({ code: 2, err: 'routerbench: --out: the directory is empty (""): give a directory to write to\n' });
    expect(proc).toMatchObject({ code: 2, err: expect.stringContaining('routerbench: /proc/routerbench-x: cannot create the output directory (--out /proc/routerbench-x): no such file or directory (ENOENT)') });
    expect(deployment).toMatchObject({ code: 2, err: expect.stringContaining(`routerbench: ${twoDocs}:3:1: a Deployment manifest holds one YAML document, and a second one starts here`) });
  }, 120_000);
});

describe('a run that runs out of memory', () => {
  it('is said once, as such, exit 2, and leaves no output (a worker heap of 64 MiB stands in for the machine)', async () => {
    // 200 services of 10,000 pods: 2,000,000 endpoints, under the estimate's limit (1.2 GB) but far past 64 MiB.
    const scenario = join(dir, 'oom.yaml');
    writeFileSync(scenario, 'name: oom\ngenerate:\n  durationMs: 3600000\n  world: { services: 200, endpointsPerService: 10000 }\n');
    const out = join(dir, 'oom-out');
    const [run, sweep] = await inPairs([
      () => cli(['run', scenario, '--out', out, '--no-progress'], { ROUTERBENCH_WORKER_HEAP_MB: '64' }),
      () => cli(['sweep', scenario, '--seeds', '1', '--workers', '1', '--no-progress'], { ROUTERBENCH_WORKER_HEAP_MB: '64' }),
    ]);
    expect(run).toMatchObject({ code: 2, err: `routerbench: ${scenario}: the run ran out of memory: the input asks for more than this process can hold (docs/limits.md); its partial outputs were removed\n` });
    expect(existsSync(out)).toBe(false);
    expect(sweep).toMatchObject({ code: 2, err: `routerbench: ${scenario}: the run of point {} seed 1 ran out of memory: the point asks for more than a worker can hold (docs/limits.md)\n` });
  }, 120_000);
});
