/**
 * Runtime-API command throughput of the mocked HAProxy and of a real HAProxy 2.6, side by side, for the mix
 * of commands the config managers send. Not a test: it needs a real haproxy and takes about half a minute.
 *
 *   npx tsx bench/haproxy-throughput.ts [--haproxy haproxy] [--routes 100] [--cycles 200] [--inproc-cycles 5000] [--repeat 3]
 *
 * Setup: a dcm-slots router state of R http routes (2 endpoints each; pools of 10 per blueprint, 5
 * `_dynamic-pod-N` slots) rendered by the router's own strategy and sim/haproxy/haproxy-cfg.ts, loaded
 * three ways:
 * - the mock in-process: `MockHaproxy.execute(line)`, no socket;
 * - the mock behind `routerbench mock-haproxy --config cfg --socket sock` (a separate Node process);
 * - a real `haproxy -db -f cfg` on its admin stats socket.
 * The two socket targets are driven through live mode's transport (sim/cli/live/socket-transport.ts): one
 * connection per command, one command at a time, reply read to EOF, as the router's client does.
 *
 * One cycle is 18 commands built with core/haproxy/commands.ts and encoded by core/haproxy/runtime-codec.ts,
 * the text the managers send, and leaves the
 * state as it found it, so cycles repeat on an unchanged config: dcm-slots' endpoint and route work on a
 * route backend (show backend, show servers state <be>, set server addr/weight/state ready/state maint,
 * set dynamic-cookie-key, enable dynamic-cookie, show map, add map, show map <file>, del map #ref) and
 * dcm-add-del's (add server, state ready, enable health, state maint, disable health, del server). The
 * backend rotates over the routes. Every reply is checked against what the manager accepts; the first
 * cycle's replies of each socket target are compared with the in-process mock's (normalised as in the
 * conformance suite).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import * as cmd from '../core/haproxy/commands.ts';
import type { HaproxyConfig } from '../core/haproxy/config-model.ts';
import { applyChurn, emptyRouterState } from '../core/router-state.ts';
import { decodeReply, encodeCommand } from '../core/haproxy/runtime-codec.ts';
import { createStrategy } from '../core/strategies/index.ts';
import { normaliseReply } from '../sim/cli/live/haproxy-state.ts';
import { freeLoopbackPorts, liveRenderOptions } from '../sim/cli/live/real-haproxy.ts';
import { sendCommand } from '../sim/cli/live/socket-transport.ts';
import { renderHaproxyCfg, writeRenderedCfg, type RenderOptions } from '../sim/haproxy/haproxy-cfg.ts';
import { MockHaproxy } from '../sim/haproxy/mock-haproxy.ts';
import { defaultSettings } from '../sim/settings.ts';
import { benchCommand, intIn, parseBenchArgs } from './lib/cli.ts';

const opts = parseBenchArgs(
  benchCommand(
    'haproxy-throughput.ts',
    'runtime-API command throughput of the mocked HAProxy (in-process and over a unix socket) and of a real HAProxy 2.6, for the config managers\' command mix',
    'two Markdown tables: per target (in-process mock, mock-haproxy over a socket, real HAProxy, a bare Node socket server) commands per round, commands/s, mean, p50 and p99 µs per command, rejected replies and whether its first cycle\'s replies match the in-process mock; then commands/s per kind of command',
  )
    .option('--haproxy <path>', 'the haproxy binary', 'haproxy')
    .option('--routes <n>', 'http routes in the router state', intIn(1, 100_000), 100)
    .option('--cycles <n>', 'measured cycles of 18 commands per socket target', intIn(1, 1_000_000), 200)
    .option('--inproc-cycles <n>', 'measured cycles for the in-process mock', intIn(1, 10_000_000), 5000)
    .option('--repeat <n>', 'rounds (the median is shown)', intIn(1, 100), 3),
).opts<{ haproxy: string; routes: number; cycles: number; inprocCycles: number; repeat: number }>();
const HAPROXY = opts.haproxy;
const ROUTES = opts.routes;
const CYCLES = opts.cycles;
const INPROC_CYCLES = opts.inprocCycles;
const REPEAT = opts.repeat;
/** Unmeasured cycles first on each socket target (JIT of the client and of the mock's process). */
const WARMUP_CYCLES = 20;

type Ask = (line: string) => Promise<string> | string;

/** The router's config for R http routes of 2 endpoints each, as dcm-slots renders it. */
function routerConfig(routes: number): HaproxyConfig {
  const settings = defaultSettings();
  const strategy = createStrategy({ ...settings.router, strategy: 'dcm-slots' });
  const state = emptyRouterState();
  for (let i = 0; i < routes; i++) {
    const service = `svc-${i}`;
    const a = 10 + (i >> 8);
    applyChurn(state, {
      at: 0,
      type: 'endpoints.set',
      namespace: 'bench',
      service,
      endpoints: [1, 2].map((k) => ({ ip: `127.${a}.${i & 255}.${k}`, port: 8080 })),
    });
    applyChurn(state, { at: 0, type: 'route.upsert', route: { namespace: 'bench', name: `r-${i}`, host: `r-${i}.apps.example.com`, service } });
  }
  return strategy.render(state);
}

/** Accepted replies (what the managers check: core/runtime-client.ts). */
function accepted(kind: string, reply: string): boolean {
  const r = reply.trim();
  switch (kind) {
    case 'show backend':
    case 'show map':
      return r.startsWith('# ');
    case 'show servers state':
      return r.startsWith('1\n# be_id');
    case 'show map <file>':
      return r.startsWith('0x');
    case 'set server addr':
      return r.startsWith('IP changed from') || r.startsWith('no need to change') || r.startsWith('port changed from') || r === '';
    case 'add server':
      return r === 'New server registered.';
    case 'del server':
      return r === 'Server deleted.';
    default:
      return r === '';
  }
}

interface Step {
  kind: string;
  line: string | ((previousReply: string) => string);
}

/** One state-neutral cycle on the i-th route's backend. */
function cycle(i: number, mapPath: string, strict = true): Step[] {
  const be = `be_http:bench:r-${i % ROUTES}`;
  const slot = '_dynamic-pod-1';
  const ip = `127.200.${(i >> 8) & 255}.${i & 255}`;
  const key = `^bench-${i}\\.apps\\.example\\.com\\.?(:[0-9]+)?(/.*)?$`;
  const server = `bench-${i}`;
  return [
    { kind: 'show backend', line: encodeCommand(cmd.showBackend()) },
    { kind: 'show servers state', line: encodeCommand(cmd.showServersState(be)) },
    { kind: 'set server addr', line: encodeCommand(cmd.setServerAddr(be, slot, ip, 8080)) },
    { kind: 'set server weight', line: encodeCommand(cmd.setServerWeight(be, slot, '1')) },
    { kind: 'set server state', line: encodeCommand(cmd.setServerState(be, slot, 'ready')) },
    { kind: 'set server state', line: encodeCommand(cmd.setServerState(be, slot, 'maint')) },
    { kind: 'set dynamic-cookie-key', line: encodeCommand(cmd.setDynamicCookieKey(be, `k${i}`)) },
    { kind: 'enable dynamic-cookie', line: encodeCommand(cmd.enableDynamicCookie(be)) },
    { kind: 'show map', line: encodeCommand(cmd.showMapList()) },
    { kind: 'add map', line: encodeCommand(cmd.addMap(mapPath, key, be)) },
    { kind: 'show map <file>', line: encodeCommand(cmd.showMap(mapPath)) },
    {
      kind: 'del map',
      line: (shown) => {
        const reply = decodeReply(cmd.showMap(mapPath), shown);
        const row = reply.kind === 'entries' ? reply.entries.find((r) => r.key === key) : undefined;
        if (row === undefined && strict) throw new Error(`the map entry just added is not in show map: ${key}`);
        return encodeCommand(cmd.delMapRef(mapPath, row?.ref ?? '0x0'));
      },
    },
    { kind: 'add server', line: encodeCommand(cmd.addServer(be, server, ip, 8080, ['weight', '1', 'check', 'inter', '5000ms'])) },
    { kind: 'set server state', line: encodeCommand(cmd.setServerState(be, server, 'ready')) },
    { kind: 'enable health', line: encodeCommand(cmd.enableHealth(be, server)) },
    { kind: 'set server state', line: encodeCommand(cmd.setServerState(be, server, 'maint')) },
    { kind: 'disable health', line: encodeCommand(cmd.disableHealth(be, server)) },
    { kind: 'del server', line: encodeCommand(cmd.delServer(be, server)) },
  ];
}

interface Measurement {
  commands: number;
  wallMs: number;
  /** Per kind: count and summed ms. */
  byKind: Map<string, { n: number; ms: number }>;
  latenciesMs: number[];
  rejected: number;
  /** First cycle's (request, reply) pairs, for the comparison with the mock. */
  firstCycle: { line: string; reply: string }[];
}

/** `strict`: check every reply as the manager would; off for the baseline server, which answers everything with "\n". */
async function measure(ask: Ask, cycles: number, mapPath: string, offset: number, strict = true): Promise<Measurement> {
  const m: Measurement = { commands: 0, wallMs: 0, byKind: new Map(), latenciesMs: [], rejected: 0, firstCycle: [] };
  const start = performance.now();
  for (let c = 0; c < cycles; c++) {
    let previous = '';
    for (const step of cycle(offset + c, mapPath, strict)) {
      const line = typeof step.line === 'string' ? step.line : step.line(previous);
      const t0 = performance.now();
      const reply = await ask(line);
      const dt = performance.now() - t0;
      m.commands++;
      m.latenciesMs.push(dt);
      const k = m.byKind.get(step.kind) ?? { n: 0, ms: 0 };
      k.n++;
      k.ms += dt;
      m.byKind.set(step.kind, k);
      if (strict && !accepted(step.kind, reply)) {
        m.rejected++;
        if (m.rejected <= 3) process.stderr.write(`unexpected reply to '${line}': ${JSON.stringify(reply)}\n`);
      }
      if (c === 0) m.firstCycle.push({ line, reply });
      previous = reply;
    }
  }
  m.wallMs = performance.now() - start;
  return m;
}

async function waitForSocket(socket: string, proc: ChildProcess): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (proc.exitCode !== null) throw new Error(`${proc.spawnfile} exited with ${proc.exitCode}`);
    const r = await sendCommand(socket, 'show backend', 1000);
    if (r.ok) return;
    await sleep(20);
  }
  throw new Error(`nothing serves ${socket}`);
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.pid === undefined || proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  process.kill(proc.pid, 'SIGTERM');
  await exited;
}

const socketAsk =
  (socket: string): Ask =>
  async (line) => {
    const r = await sendCommand(socket, line);
    if (!r.ok) throw new Error(`${line}: ${r.error}`);
    return r.reply;
  };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

interface TargetResult {
  name: string;
  rounds: Measurement[];
  sameAsMock: boolean | null;
  /** The baseline's replies are not HAProxy's: no reply checks, no comparison. */
  baseline?: boolean;
}

/**
 * A baseline: a separate Node process whose unix socket answers every request with an empty reply at once.
 * What it measures is the client's cost plus a Node server's cost per connection: what `mock-haproxy` pays
 * before the mock does any work (HAProxy, in C, accepts connections for less).
 */
const BASELINE_SERVER = `
const net = require('node:net');
const server = net.createServer((s) => { s.on('data', () => s.end('\\n')); s.on('error', () => s.destroy()); });
server.listen(process.argv[1]);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rb-throughput-'));
  const procs: ChildProcess[] = [];
  try {
    const config = routerConfig(ROUTES);
    const cfgPath = join(dir, 'haproxy.cfg');
    const realSock = join(dir, 'haproxy.sock');
    const ports = await freeLoopbackPorts();
    const options: RenderOptions = liveRenderOptions(cfgPath, realSock, ports);
    const rendered = renderHaproxyCfg(config, options);
    writeRenderedCfg(rendered, cfgPath, (p, t) => writeFileSync(p, t));
    const mapPath = join(dir, 'os_http_be.map');
    const servers = config.backends.reduce((n, b) => n + b.servers.length, 0);
    process.stderr.write(`config: ${config.backends.length} backends, ${servers} servers, ${ROUTES} routes (${cfgPath})\n`);

    const results: TargetResult[] = [];

    // Start every server first, then interleave the targets round by round, so a burst of load from other
    // processes on the machine hits all of them alike rather than one target's whole measurement.
    const mockSock = join(dir, 'mock.sock');
    const bin = join(import.meta.dirname, '..', 'bin', 'routerbench.js');
    const mockProc = spawn(process.execPath, [bin, 'mock-haproxy', '--config', cfgPath, '--socket', mockSock], { stdio: ['ignore', 'ignore', 'inherit'] });
    const baselineSock = join(dir, 'baseline.sock');
    const baselineProc = spawn(process.execPath, ['-e', BASELINE_SERVER, baselineSock], { stdio: ['ignore', 'ignore', 'inherit'] });
    // HAProxy's per-change log lines go nowhere (in a router they go to syslog), so they cost what a cheap sink costs.
    const realProc = spawn(HAPROXY, ['-db', '-f', cfgPath], { stdio: 'ignore' });
    procs.push(mockProc, baselineProc, realProc);
    await Promise.all([waitForSocket(mockSock, mockProc), waitForSocket(baselineSock, baselineProc), waitForSocket(realSock, realProc)]);

    const inproc: TargetResult = { name: 'mock, in-process (`MockHaproxy.execute`)', rounds: [], sameAsMock: null };
    const viaSocket: TargetResult = { name: 'mock, `routerbench mock-haproxy` over a unix socket', rounds: [], sameAsMock: null };
    const real: TargetResult = { name: 'HAProxy 2.6.12 over its unix stats socket', rounds: [], sameAsMock: null };
    const baseline: TargetResult = { name: 'baseline: a Node unix-socket server answering `\\n` at once (no mock)', rounds: [], sameAsMock: null, baseline: true };

    // The first cycle on each fresh target, compared with a fresh in-process mock's; then unmeasured warm-up.
    const freshMock = (): MockHaproxy => {
      const mock = new MockHaproxy({ layout: (c) => renderHaproxyCfg(c, options).layout });
      mock.load(config);
      return mock;
    };
    const referenceMock = freshMock();
    const referenceCycle = (await measure((l) => referenceMock.execute(l), 1, mapPath, 0)).firstCycle;
    const sameAs = (m: Measurement): boolean =>
      m.firstCycle.length === referenceCycle.length && m.firstCycle.every((x, i) => normaliseReply(x.reply) === normaliseReply(referenceCycle[i]!.reply));
    viaSocket.sameAsMock = sameAs(await measure(socketAsk(mockSock), 1, mapPath, 0));
    real.sameAsMock = sameAs(await measure(socketAsk(realSock), 1, mapPath, 0));
    await measure(socketAsk(mockSock), WARMUP_CYCLES, mapPath, 1);
    await measure(socketAsk(realSock), WARMUP_CYCLES, mapPath, 1);
    await measure(socketAsk(baselineSock), WARMUP_CYCLES, mapPath, 1, false);

    for (let r = 0; r < REPEAT; r++) {
      const offset = 1 + WARMUP_CYCLES + r * CYCLES;
      // A fresh mock per round so every in-process round starts from the same state.
      const mock = freshMock();
      inproc.rounds.push(await measure((l) => mock.execute(l), INPROC_CYCLES, mapPath, 0));
      viaSocket.rounds.push(await measure(socketAsk(mockSock), CYCLES, mapPath, offset));
      real.rounds.push(await measure(socketAsk(realSock), CYCLES, mapPath, offset));
      baseline.rounds.push(await measure(socketAsk(baselineSock), CYCLES, mapPath, offset, false));
    }
    for (const p of procs) await stop(p);
    results.push(inproc, viaSocket, real, baseline);

    process.stdout.write(renderTables(results, { backends: config.backends.length, servers }));
  } finally {
    for (const p of procs) await stop(p).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

function renderTables(results: TargetResult[], size: { backends: number; servers: number }): string {
  const fmt = (x: number, digits = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const out: string[] = [];
  out.push(
    `Commands/s, one command at a time (median of ${REPEAT} rounds); ${ROUTES} routes → ${size.backends} backends, ${size.servers} servers; ` +
      `cycle of ${cycle(0, '').length} commands (see bench/haproxy-throughput.ts).`,
    '',
    '| target | commands per round | commands/s | mean µs/command | p50 µs | p99 µs | rejected replies | first cycle = in-process mock |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  );
  for (const t of results) {
    const rate = median(t.rounds.map((m) => (m.commands * 1000) / m.wallMs));
    const lat = t.rounds.flatMap((m) => m.latenciesMs);
    const rejected = t.rounds.reduce((n, m) => n + m.rejected, 0);
    out.push(
      `| ${t.name} | ${fmt(t.rounds[0]!.commands)} | ${fmt(rate)} | ${fmt(1e6 / rate, 1)} | ${fmt(percentile(lat, 50) * 1000, 1)} | ${fmt(percentile(lat, 99) * 1000, 1)} | ${t.baseline ? 'n/a' : rejected} | ${t.baseline ? 'n/a' : t.sameAsMock === null ? '(reference)' : t.sameAsMock ? 'yes' : '**no**'} |`,
    );
  }
  out.push('', 'Per command (commands/s while waiting on that command, all rounds):', '');
  const kinds = [...results[0]!.rounds[0]!.byKind.keys()];
  out.push(`| command | ${results.map((t) => t.name.split(' (')[0]!.replace(/`/g, '')).join(' | ')} |`, `|---|${results.map(() => '---:').join('|')}|`);
  for (const k of kinds) {
    const cells = results.map((t) => {
      const n = t.rounds.reduce((a, m) => a + (m.byKind.get(k)?.n ?? 0), 0);
      const ms = t.rounds.reduce((a, m) => a + (m.byKind.get(k)?.ms ?? 0), 0);
      return fmt((n * 1000) / ms);
    });
    out.push(`| \`${k}\` | ${cells.join(' | ')} |`);
  }
  return out.join('\n') + '\n';
}

await main();
