/**
 * Measures what HAProxy spends on pre-allocated pool backends and empty `_dynamic-pod-N` slots, for the
 * sweep's cost estimate (sim/sweep/cost.ts, docs/sweeps.md). Not a test: it needs a real haproxy and takes
 * a minute.
 *
 *   npx tsx bench/haproxy-memory.ts [--haproxy /usr/sbin/haproxy] [--backends 1000] [--servers 8] [--repeat 3]
 *
 * For each configuration it writes an haproxy.cfg with B backends shaped like the router template's dcm-slots
 * backends (http mode, `balance random`, a cookie, `dynamic-cookie-key`, and `server-template _dynamic-pod-
 * 1-M 172.4.0.4:8765 check inter 5000ms disabled`), starts `haproxy -db -f cfg`, waits until RSS stops
 * growing, reads VmRSS from /proc/<pid>/status and stops it. Then
 *   per backend = (RSS(B, 0 slots) − RSS(0 backends)) / B
 *   per server  = (RSS(B, M slots) − RSS(B, 0 slots)) / (B·M)
 * taking the median over the repeats.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchCommand, intIn, parseBenchArgs } from './lib/cli.ts';

const opts = parseBenchArgs(
  benchCommand(
    'haproxy-memory.ts',
    'what a real HAProxy spends (RSS) per pre-allocated pool backend and per empty _dynamic-pod-N slot server',
    'the haproxy version, the median RSS of each configuration (empty, B backends, B × M slots), then bytes per backend and per disabled slot server (the sweep\'s cost model)',
  )
    .option('--haproxy <path>', 'the haproxy binary', '/usr/sbin/haproxy')
    .option('--backends <n>', 'pool backends', intIn(1, 1_000_000), 1000)
    .option('--servers <n>', 'slot servers per backend', intIn(1, 1000), 8)
    .option('--repeat <n>', 'repeats of each configuration (the median is taken)', intIn(1, 100), 3),
).opts<{ haproxy: string; backends: number; servers: number; repeat: number }>();
const HAPROXY = opts.haproxy;
const BACKENDS = opts.backends;
const SERVERS = opts.servers;
const REPEAT = opts.repeat;

function config(backends: number, slots: number, dir: string): string {
  const lines = [
    'global',
    '  maxconn 2000',
    `  stats socket ${join(dir, 'admin.sock')} mode 600 level admin`,
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 30s',
    '  timeout server 30s',
    'frontend public',
    `  bind unix@${join(dir, 'http.sock')}`,
    '  default_backend be_default',
    'backend be_default',
  ];
  for (let b = 0; b < backends; b++) {
    const name = `be_http:_hapcm_blueprint_pool:_blueprint-http-route-${b + 1}`;
    lines.push(
      `backend ${name}`,
      '  mode http',
      '  option redispatch',
      '  option forwardfor',
      '  balance random',
      '  timeout check 5000ms',
      `  cookie k${b.toString(16)} insert indirect nocache httponly`,
      `  dynamic-cookie-key k${b.toString(16)}`,
    );
    if (slots > 0) lines.push(`  server-template _dynamic-pod- 1-${slots} 172.4.0.4:8765 check inter 5000ms disabled`);
  }
  return lines.join('\n') + '\n';
}

function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  if (m === null) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(backends: number, slots: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'haproxy-mem-'));
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(cfg, config(backends, slots, dir));
  const child = spawn(HAPROXY, ['-db', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((r) => child.once('exit', r));
  try {
    let last = -1;
    for (let i = 0; i < 100; i++) {
      await sleep(200);
      if (child.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`);
      const now = rssKiB(child.pid!);
      if (now === last && i >= 5) return now;
      last = now;
    }
    return last;
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const base: number[] = [];
const noSlots: number[] = [];
const withSlots: number[] = [];
for (let r = 0; r < REPEAT; r++) {
  base.push(await measure(0, 0));
  noSlots.push(await measure(BACKENDS, 0));
  withSlots.push(await measure(BACKENDS, SERVERS));
}
const perBackend = ((median(noSlots) - median(base)) * 1024) / BACKENDS;
const perServer = ((median(withSlots) - median(noSlots)) * 1024) / (BACKENDS * SERVERS);
const version = await new Promise<string>((resolve) => {
  const c = spawn(HAPROXY, ['-v']);
  let out = '';
  c.stdout.on('data', (d) => (out += d));
  c.on('exit', () => resolve(out.split('\n')[0] ?? ''));
});
console.log(version);
console.log(`RSS KiB (median of ${REPEAT}): empty ${median(base)}, ${BACKENDS} backends ${median(noSlots)}, ${BACKENDS}×${SERVERS} slots ${median(withSlots)}`);
console.log(`per backend: ${Math.round(perBackend)} bytes; per disabled slot server: ${Math.round(perServer)} bytes`);
