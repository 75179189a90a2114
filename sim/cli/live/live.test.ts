/**
 * CLI-only test: starts real HAProxy processes, real sockets and timers (allowed under sim/cli/ only).
 *
 * Live mode against a real HAProxy 2.6 must end in exactly the state the mock ends in when the simulation
 * replays the same log with the same settings: same `show servers state`, same `show map` list, same
 * entries in every map (pointers, time since last change and health-check columns normalised).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isChurnEvent, type InputEvent } from '../../../core/events.ts';
import { applyChurn, emptyRouterState } from '../../../core/router-state.ts';
import { showServersState } from '../../../core/haproxy/commands.ts';
import { decodeReply } from '../../../core/haproxy/runtime-codec.ts';
import { createStrategy } from '../../../core/strategies/index.ts';
import type { StrategyName } from '../../../core/strategy.ts';
import { Engine } from '../../engine.ts';
import { renderHaproxyCfg, writeRenderedCfg } from '../../haproxy/haproxy-cfg.ts';
import { MockHaproxy } from '../../haproxy/mock-haproxy.ts';
import { loadRunInput } from '../../load-input.ts';
import { MemorySink } from '../../output/output-sink.ts';
import type { OutputRecord } from '../../output/records.ts';
import { RouterProcess } from '../../router-process.ts';
import { runOne } from '../../run.ts';
import { msToUs } from '../../scheduler.ts';
import type { RunInput } from '../../run-input.ts';
import { diffStates, dumpState, type StateDump } from './haproxy-state.ts';
import { freeLoopbackPorts, liveRenderOptions, pidOnSocket } from './real-haproxy.ts';
import { runLive } from './run-live.ts';
import { sendCommand } from './socket-transport.ts';
import { isAlive } from './pid.ts';

const haproxyAvailable = spawnSync('haproxy', ['-v']).status === 0;
const TITLE = 'routerbench live against a real HAProxy 2.6';
const describeReal = haproxyAvailable ? describe : describe.skip;
if (!haproxyAvailable) console.warn('live: `haproxy` is not on PATH, so live mode is not tested against a real process (CI installs it)');

const HEADER = (strategy: StrategyName) =>
  JSON.stringify({ routerbench: 'eventlog', version: 1, settings: { router: { strategy, blueprintPoolSize: 3, maxDynamicServers: 3 } } });
const eps = (at: number, service: string, hosts: number[]) =>
  JSON.stringify({ at, type: 'endpoints.set', namespace: 'shop', service, endpoints: hosts.map((h) => ({ ip: `192.0.2.${h}`, port: 8080 })) });
const route = (at: number, name: string, service: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ at, type: 'route.upsert', route: { namespace: 'shop', name, host: `${name}.apps.example.com`, service, ...extra } });

/**
 * The log, with dcm-slots (pools of 3 per blueprint, 3 `_dynamic-pod-N` slots):
 * - t = 0: initial sync (web with .10 .11, api with .20, route web) → reload `initial`, ends at 1 s;
 * - 10 s: edge route api → an edge pool backend (runtime: addr/state/maps), no reload;
 * - 11 s: web scales up to .10 .11 .12 → .12 into `_dynamic-pod-1`, no reload;
 * - 12 s: api scales up to .20 .21 → the pool backend's next slot, no reload;
 * - 13 s: web scales down to .11 .12 → .10 to maint, no reload;
 * - 14 s: http route web2 with path /v2 → an http pool backend, no reload;
 * - 20 s: edge route billing with its own certificate → no blueprint matches → reload `no-blueprint-match`
 *   (20 s since the last start ≥ RELOAD_INTERVAL 5 s, so it starts at once and ends at 21 s);
 * - 30 s: api becomes .22 alone → api now has its own backend (.20 .21 static): .22 into a slot, .20 .21
 *   to maint, no reload.
 * So 2 reloads (initial, no-blueprint-match), and the final ready servers are web {.11, .12}, api {.22}.
 *
 * With dcm-add-del every route add reloads: initial at 0; route-change at 10 s (starts at once, ends at
 * 11 s); the 11 s scale-up arrives while that reload runs (inputs before timers at equal times) and asks
 * for one more (reload-in-progress), due at 10 + 5 = 15 s; the 12 s scale-up sends `enable health` to api's
 * static server, which has no check (a single endpoint is rendered without one), HAProxy refuses, so
 * runtime-api-error folds into the 15 s reload, as does web2's route-change at 14 s; billing at 20 s starts
 * a fourth (20 ≥ 15 + 5). So 4 reloads, and the same final ready servers.
 */
const EXPECTED_RELOADS = { 'dcm-slots': 2, 'dcm-add-del': 4 } as const;
function writeLog(dir: string, strategy: StrategyName): string {
  const file = join(dir, `churn-${strategy}.jsonl`);
  const lines = [
    HEADER(strategy),
    eps(0, 'web', [10, 11]),
    eps(0, 'api', [20]),
    route(0, 'web', 'web'),
    route(10_000, 'api', 'api', { tls: { termination: 'edge' } }),
    eps(11_000, 'web', [10, 11, 12]),
    eps(12_000, 'api', [20, 21]),
    eps(13_000, 'web', [11, 12]),
    route(14_000, 'web2', 'web', { path: '/v2' }),
    route(20_000, 'billing', 'api', { tls: { termination: 'edge', certificate: 'c', key: 'k' } }),
    eps(30_000, 'api', [22]),
  ];
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** The simulation of the same input, with the mock laid out as the live cfg is; returns its state dumps and records. */
async function simulate(input: RunInput, options: ReturnType<typeof liveRenderOptions>): Promise<{ dump: StateDump[]; records: OutputRecord[] }> {
  const engine = new Engine();
  const mock = new MockHaproxy({ layout: (c) => renderHaproxyCfg(c, options).layout, clockS: () => Math.floor(engine.nowUs / 1e6) });
  const sink = new MemorySink();
  const { settings } = input;
  const router = new RouterProcess(createStrategy(settings.router), { load: (c) => mock.load(c), send: (c) => mock.send(c) }, engine, (r) => sink.record(r), {
    reloadIntervalMs: settings.router.reloadIntervalMs,
    reloadDurationMs: settings.router.reloadDurationMs,
    commitIntervalMs: settings.router.commitIntervalMs,
  });
  router.start();
  engine.run(input.events(), (e: InputEvent) => (isChurnEvent(e) ? router.onChurn(e) : undefined), { settleUs: msToUs(settings.sim.settleMs) });
  expect(router.settled).toBe(true);
  return { dump: await dumpState((l) => mock.execute(l)), records: sink.records };
}

async function ask(socket: string, line: string): Promise<string> {
  const r = await sendCommand(socket, line);
  if (!r.ok) throw new Error(`${line}: ${r.error}`);
  return r.reply;
}

function readyServers(reply: string, backend: string): string[] {
  const decoded = decodeReply(showServersState(''), reply);
  if (decoded.kind !== 'servers') throw new Error(`not a servers state listing: ${reply}`);
  return decoded.rows
    // Running (op state 2), not in forced/inherited maint or drain; a used `_dynamic-pod-N` slot keeps its
    // config-maint bit 0x04 (from `disabled`) in HAProxy 2.6 yet serves once set to ready.
    .filter((s) => s.backendName === backend && s.opState === 2 && (s.adminState & 0x1b) === 0)
    .map((s) => `${s.address}:${s.port}`)
    .sort();
}

const commandLines = (records: readonly OutputRecord[]) => records.flatMap((r) => (r.type === 'runtime.command' ? [r.line] : []));

describeReal(haproxyAvailable ? TITLE : `${TITLE}: skipped, \`haproxy\` is not on PATH (CI installs it)`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'routerbench-live-test-'));
  /** Every HAProxy PID this suite saw serve a socket; all stopped in afterAll. */
  const pids = new Set<number>();

  afterAll(async () => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone (replaced by a reload's -sf)
      }
    }
    for (let i = 0; i < 100 && [...pids].some(isAlive); i++) await new Promise((r) => setTimeout(r, 20));
    rmSync(dir, { recursive: true, force: true });
  });

  for (const strategy of ['dcm-slots', 'dcm-add-del'] as const) {
    it(`${strategy}: the real HAProxy ends in the mock's state after the same log`, { timeout: 60_000 }, async () => {
      const sub = mkdtempSync(join(dir, `${strategy}-`));
      const input = loadRunInput(writeLog(dir, strategy), {});
      const socket = join(sub, 'haproxy.sock');
      const cfgPath = join(sub, 'haproxy.cfg');
      const ports = await freeLoopbackPorts();
      const options = liveRenderOptions(cfgPath, socket, ports);

      // A real HAProxy on the config rendered from the scenario's initial state (the events at t = 0).
      const state = emptyRouterState();
      for (const e of input.events()) if (e.at === 0 && isChurnEvent(e)) applyChurn(state, e);
      writeRenderedCfg(renderHaproxyCfg(createStrategy(input.settings.router).render(state), options), cfgPath, (p, t) => writeFileSync(p, t));
      const first = spawn('haproxy', ['-db', '-f', cfgPath], { stdio: 'ignore' });
      pids.add(first.pid!);
      for (let i = 0; i < 200 && (await pidOnSocket(socket)) !== first.pid; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await pidOnSocket(socket)).toBe(first.pid);

      // Live mode at full speed takes that process over at its first reload.
      const sink = new MemorySink();
      const live = await runLive(input, { socketPath: socket, cfgPath, speed: 0, ports, sink });
      if (live.live.haproxyPid !== null) pids.add(live.live.haproxyPid);
      expect(live.live.haproxyPid).not.toBe(first.pid);
      expect(await pidOnSocket(socket)).toBe(live.live.haproxyPid);

      // The simulation of the same log, through sim/run.ts and through a RouterProcess whose mock we can ask.
      const simReport = runOne(input).report;
      const sim = await simulate(input, options);

      // The reloads derived above, the same in both, and actually run against the real process.
      expect(simReport.reloads.total).toBe(EXPECTED_RELOADS[strategy]);
      expect(live.report.reloads).toEqual(simReport.reloads);
      expect(live.live.reloads).toHaveLength(EXPECTED_RELOADS[strategy]);
      // The same runtime commands in the same order, and the real replies equal the mock's.
      expect(commandLines(sink.records)).toEqual(commandLines(sim.records));
      expect(commandLines(sink.records).length).toBeGreaterThan(10);
      expect(live.report.runtimeApi).toEqual(simReport.runtimeApi);
      expect(live.live.replyMismatches).toBe(0);

      // The real state, read back independently over the socket, equals the mock's.
      const real = await dumpState((l) => ask(socket, l));
      expect(real.map((d) => d.request)).toEqual(sim.dump.map((d) => d.request));
      expect(real.filter((d) => d.request.startsWith('show map /')).length).toBe(5);
      expect(diffStates(real, sim.dump)).toEqual([]);
      expect(live.live.stateDifferences).toEqual([]);

      // And it is the desired state: the ready servers are the current endpoints (derivation above).
      const servers = real.find((d) => d.request === 'show servers state')!.reply;
      expect(readyServers(servers, 'be_http:shop:web')).toEqual(['192.0.2.11:8080', '192.0.2.12:8080']);
      expect(readyServers(servers, 'be_edge_http:shop:api')).toEqual(['192.0.2.22:8080']);
      const httpMap = real.find((d) => d.request === `show map ${join(sub, 'os_http_be.map')}`)!.reply;
      expect(httpMap).toMatch(/ \^web2\\\.apps\\\.example\\\.com\\\.\?\(:\[0-9\]\+\)\?\/v2\(\/\.\*\)\?\$ be_http:shop:web2\n/);
      expect(live.report.pass).toBe(true);
    });
  }

  it('paces the log against the wall clock with --speed', { timeout: 60_000 }, async () => {
    const sub = mkdtempSync(join(dir, 'speed-'));
    const input = loadRunInput(writeLog(dir, 'dcm-slots'), { set: { 'sim.settleMs': '0' } });
    // The last event is at 30 s of log time; at speed 100 it is due 300 ms after the start.
    const live = await runLive(input, { socketPath: join(sub, 'haproxy.sock'), cfgPath: join(sub, 'haproxy.cfg'), speed: 100, stopAtEnd: true });
    expect(live.live.wallMs).toBeGreaterThanOrEqual(300);
    expect(live.live.haproxyPid).toBeNull();
    expect(live.report.reloads.total).toBe(2);
    expect(live.live.stateDifferences).toEqual([]);
  });

  it('the CLI command runs the log and leaves HAProxy serving with its PID printed', { timeout: 60_000 }, () => {
    const sub = mkdtempSync(join(dir, 'cli-'));
    const bin = join(import.meta.dirname, '..', '..', '..', 'bin', 'routerbench.js');
    const socket = join(sub, 'haproxy.sock');
    const r = spawnSync(
      process.execPath,
      [bin, 'live', writeLog(dir, 'dcm-slots'), '--haproxy-socket', socket, '--haproxy-config', join(sub, 'haproxy.cfg'), '--speed', 'max', '--json'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    const out = JSON.parse(r.stdout) as { report: { reloads: { total: number }; pass: boolean }; live: { haproxyPid: number; stateDifferences: unknown[] } };
    if (out.live.haproxyPid !== null) pids.add(out.live.haproxyPid);
    expect(r.status, r.stderr).toBe(0);
    expect(out.report).toMatchObject({ reloads: { total: 2 }, pass: true });
    expect(out.live.stateDifferences).toEqual([]);
    expect(isAlive(out.live.haproxyPid)).toBe(true);
  });
});
