/**
 * CLI-only test: runs `routerbench live` as a process, with real HAProxy processes where one is needed
 * (allowed under sim/cli/ only).
 *
 * What the command does around the run: refused reloads are verdicts that leave the old process serving,
 * settings and budgets live mode cannot honour are named rather than passed, temporary files go once no
 * HAProxy of ours uses them, SIGTERM stops like Ctrl-C, and paths or ports HAProxy cannot take are refused
 * before anything starts.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pidOnSocket } from './real-haproxy.ts';
import { isAlive, signalIfAlive } from './pid.ts';

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'routerbench.js');
const which = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' });
const HAPROXY = which.status === 0 ? which.stdout.trim() : '';
const haproxyAvailable = HAPROXY !== '' && spawnSync(HAPROXY, ['-v']).status === 0;
const describeReal = haproxyAvailable ? describe : describe.skip;
if (!haproxyAvailable) console.warn('live-command: `haproxy` is not on PATH, so the command is not tested against a real process (CI installs it)');

const dir = mkdtempSync(join(tmpdir(), 'routerbench-live-cmd-'));
/** Every HAProxy PID a test saw serving; all stopped in afterAll. */
const pids = new Set<number>();

afterAll(async () => {
  for (const pid of pids) signalIfAlive(pid, 'SIGTERM');
  for (let i = 0; i < 100 && [...pids].some(isAlive); i++) await new Promise((r) => setTimeout(r, 20));
  rmSync(dir, { recursive: true, force: true });
});

const HEADER = JSON.stringify({ routerbench: 'eventlog', version: 1, settings: { router: { strategy: 'dcm-slots', blueprintPoolSize: 3, maxDynamicServers: 3 } } });
const eps = (at: number, service: string, hosts: number[]) =>
  JSON.stringify({ at, type: 'endpoints.set', namespace: 'shop', service, endpoints: hosts.map((h) => ({ ip: `192.0.2.${h}`, port: 8080 })) });
const route = (at: number, name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ at, type: 'route.upsert', route: { namespace: 'shop', name, host: `${name}.apps.example.com`, service: 'web', ...extra } });

/** Two reloads under dcm-slots: `initial` at 0, and at 2 s a route with its own certificate (no blueprint matches). */
function twoReloadLog(sub: string): string {
  const file = join(sub, 'churn.jsonl');
  writeFileSync(file, [HEADER, eps(0, 'web', [10, 11]), route(0, 'web'), route(2000, 'billing', { tls: { termination: 'edge', certificate: 'c', key: 'k' } })].join('\n') + '\n');
  return file;
}

/** A haproxy that fails its `failOn`-th start as a refused cfg does (message, exit 1) and is the real one otherwise. */
function flakyHaproxy(sub: string, failOn: number): string {
  const script = join(sub, 'flaky-haproxy.sh');
  const count = join(sub, 'starts');
  writeFileSync(
    script,
    `#!/bin/sh\nn=$(( $(cat '${count}' 2>/dev/null || echo 0) + 1 ))\necho $n > '${count}'\n` +
      `if [ $n -eq ${failOn} ]; then echo "[ALERT] start $n refused by the test wrapper" >&2; exit 1; fi\nexec '${HAPROXY}' "$@"\n`,
  );
  chmodSync(script, 0o755);
  return script;
}

interface CliOut {
  report: { pass: boolean; reproduce: string; reloads: { total: number }; budgets: { name: string; pass: boolean; skipped?: string }[]; warnings: { list: { message: string }[] }; invariants: { violations: { name: string; violations?: string[] }[] } };
  live: { haproxyPid: number | null; cfgPath: string; reloads: unknown[]; reloadRefused: { reload: number; message: string } | null };
}

function live(args: string[], env: Record<string, string> = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [BIN, 'live', ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
}

function parse(r: SpawnSyncReturns<string>): CliOut {
  const out = JSON.parse(r.stdout) as CliOut;
  if (out.live.haproxyPid !== null) pids.add(out.live.haproxyPid);
  return out;
}

/** What the command made in a TMPDIR (tsx keeps its cache there too). */
const ours = (t: string): string[] => readdirSync(t).filter((f) => f.startsWith('routerbench-live-'));

/** A fresh directory for TMPDIR, so a test can see exactly what the command left in it. */
function tmp(sub: string): string {
  const t = join(sub, 'tmp');
  mkdirSync(t);
  return t;
}

describe('routerbench live refuses what HAProxy cannot take, before starting anything', () => {
  const sub = mkdtempSync(join(dir, 'usage-'));
  const log = join(sub, 'log.jsonl');
  writeFileSync(log, [HEADER, eps(0, 'web', [10])].join('\n') + '\n');

  for (const [option, path] of [
    ['--haproxy-socket', join(sub, 'a b', 'haproxy.sock')],
    ['--haproxy-socket', join(sub, 'x#y', 'haproxy.sock')],
    ['--haproxy-config', join(sub, "it's", 'haproxy.cfg')],
    ['--haproxy-config', join(sub, 'back\\slash', 'haproxy.cfg')],
  ] as const) {
    it(`${option} ${JSON.stringify(path.slice(sub.length))}: exit 2 naming the option`, () => {
      const socket = option === '--haproxy-socket' ? path : join(sub, 'ok.sock');
      const r = live([log, '--haproxy-socket', socket, ...(option === '--haproxy-config' ? ['--haproxy-config', path] : []), '--haproxy-bin', '/nonexistent/haproxy']);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(`routerbench live: ${option}`);
      expect(r.stderr).toContain("HAProxy's cfg cannot hold");
      expect(existsSync(dirname(path))).toBe(false);
    });
  }

  it('a regular file at --haproxy-socket: exit 2, the file untouched', () => {
    const file = join(sub, 'not-a-socket');
    writeFileSync(file, 'keep me\n');
    const r = live([log, '--haproxy-socket', file, '--haproxy-bin', '/nonexistent/haproxy']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--haproxy-socket ${file} exists and is not a socket`);
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
  });

  it('--ports with a port twice: exit 2', () => {
    const r = live([log, '--haproxy-socket', join(sub, 'ok.sock'), '--ports', '18090,18090,18091']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('the three ports must differ');
  });

  it('an HAProxy that cannot start: exit 2, and the temporary directory is removed', () => {
    const t = tmp(sub);
    const r = live([log, '--haproxy-socket', join(sub, 'gone.sock'), '--haproxy-bin', '/nonexistent/haproxy', '--speed', 'max'], { TMPDIR: t });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('could not start /nonexistent/haproxy');
    expect(ours(t)).toEqual([]);
  });
});

describeReal('routerbench live against a real HAProxy: failures, warnings and cleanup', () => {
  it('a reload refused mid-run is a verdict (exit 1): the old process keeps serving, its files stay', { timeout: 60_000 }, async () => {
    const sub = mkdtempSync(join(dir, 'refused-'));
    const socket = join(sub, 'haproxy.sock');
    const t = tmp(sub);
    const r = live([twoReloadLog(sub), '--haproxy-socket', socket, '--haproxy-bin', flakyHaproxy(sub, 2), '--speed', 'max', '--json'], { TMPDIR: t });
    const out = parse(r);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('routerbench live: reload 2 refused');
    expect(r.stderr).toContain('[ALERT] start 2 refused by the test wrapper');
    expect(out.live.reloadRefused?.reload).toBe(2);
    expect(out.report.pass).toBe(false);
    expect(JSON.stringify(out.report.invariants.violations)).toContain('reload 2: the real HAProxy refused the config the mock loaded');
    // The first process still serves the socket from the temporary directory, which is therefore kept.
    expect(out.live.reloads).toHaveLength(1);
    expect(out.live.haproxyPid).not.toBeNull();
    expect(await pidOnSocket(socket)).toBe(out.live.haproxyPid);
    expect(existsSync(out.live.cfgPath)).toBe(true);
    expect(dirname(out.live.cfgPath).startsWith(t)).toBe(true);
  });

  it('with --stop the refused run stops the old process and removes the temporary directory and the socket', { timeout: 60_000 }, () => {
    const sub = mkdtempSync(join(dir, 'refused-stop-'));
    const socket = join(sub, 'haproxy.sock');
    const t = tmp(sub);
    const r = live([twoReloadLog(sub), '--haproxy-socket', socket, '--haproxy-bin', flakyHaproxy(sub, 2), '--speed', 'max', '--stop', '--json'], { TMPDIR: t });
    const out = parse(r);
    expect(r.status, r.stderr).toBe(1);
    expect(out.live.reloadRefused?.reload).toBe(2);
    expect(out.live.haproxyPid).toBeNull();
    expect(ours(t)).toEqual([]);
    expect(existsSync(socket)).toBe(false);
  });

  it('--out writes the compact output log, and every command with --trace runtime; report.json is the same', { timeout: 60_000 }, () => {
    const sub = mkdtempSync(join(dir, 'trace-'));
    const socket = join(sub, 'haproxy.sock');
    const log = join(sub, 'churn.jsonl');
    // Endpoints change after the initial reload: dcm-slots sets them in its slots with runtime commands.
    writeFileSync(log, [HEADER, eps(0, 'web', [10, 11]), route(0, 'web'), eps(1000, 'web', [10, 11, 12]), eps(1500, 'web', [10])].join('\n') + '\n');
    const runs = ['compact', 'traced'].map((name) => {
      const out = join(sub, name);
      const r = live([log, '--haproxy-socket', socket, '--speed', 'max', '--stop', '--out', out, ...(name === 'traced' ? ['--trace', 'runtime'] : [])]);
      expect(r.status, r.stderr).toBe(0);
      const records = readFileSync(join(out, 'output.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { type?: string; outcome?: string; trace?: string[] });
      const rebuilt = spawnSync(process.execPath, [BIN, 'report', join(out, 'output.jsonl'), '--json'], { encoding: 'utf8' });
      expect(rebuilt.status, rebuilt.stderr).toBe(0);
      return { report: readFileSync(join(out, 'report.json'), 'utf8'), records, rebuilt: rebuilt.stdout };
    });
    const [compact, traced] = runs as [(typeof runs)[0], (typeof runs)[0]];
    expect(traced.report).toBe(compact.report);
    expect(traced.rebuilt).toBe(compact.rebuilt);
    const commands = (JSON.parse(compact.report) as { runtimeApi: { commands: number } }).runtimeApi.commands;
    expect(commands).toBeGreaterThan(0);
    expect(traced.records[0]!.trace).toEqual(['runtime']);
    expect(traced.records.filter((r) => r.type === 'runtime.command')).toHaveLength(commands);
    expect(compact.records.filter((r) => r.type === 'runtime.command' && r.outcome === 'ok')).toHaveLength(0);
    expect(compact.records.some((r) => r.type === 'runtime.counts')).toBe(true);
  });

  it('a refused first start stays exit 2 and leaves nothing behind', { timeout: 60_000 }, () => {
    const sub = mkdtempSync(join(dir, 'refused-first-'));
    const socket = join(sub, 'haproxy.sock');
    const t = tmp(sub);
    const r = live([twoReloadLog(sub), '--haproxy-socket', socket, '--haproxy-bin', flakyHaproxy(sub, 1), '--speed', 'max'], { TMPDIR: t });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('[ALERT] start 1 refused by the test wrapper');
    expect(ours(t)).toEqual([]);
    expect(existsSync(socket)).toBe(false);
  });

  it('failover budgets are skipped, not passed, in every output; socket fault settings are named as ignored', { timeout: 60_000 }, () => {
    const sub = mkdtempSync(join(dir, 'cluster-'));
    const scenario = join(sub, 'cluster.yaml');
    writeFileSync(
      scenario,
      [
        'name: live-cluster',
        'router: { strategy: dcm-slots }',
        'cluster:',
        '  nodes:',
        '    - { name: infra-1, ip: 198.18.0.11 }',
        '    - { name: infra-2, ip: 198.18.0.12 }',
        '  ipfailover: { virtualIps: 198.18.0.100 }',
        'events:',
        '  - { at: 0, type: endpoints.set, namespace: shop, service: web, endpoints: [{ ip: 192.0.2.10, port: 8080 }] }',
        '  - { at: 0, type: route.upsert, route: { namespace: shop, name: web, host: web.apps.example.com, service: web } }',
        'budgets:',
        '  failover.splitBrainMs: "<= 1"',
        '  reloads.total: "<= 1"',
        'sim: { settleMs: 2000 }',
      ].join('\n') + '\n',
    );
    const socket = join(sub, 'haproxy.sock');
    const t = tmp(sub);
    const outDir = join(sub, 'out');
    // A directory an earlier `run` of two inputs wrote, and a kill left a partial file in: reused.
    mkdirSync(join(outDir, 'old'), { recursive: true });
    for (const f of ['index.html', 'summary.md', 'report.json.partial', join('old', 'report.json')]) writeFileSync(join(outDir, f), 'earlier\n');
    const r = live([scenario, '--haproxy-socket', socket, '--set', 'haproxy.resetRate=0.05', '--speed', 'max', '--stop', '--json', '--out', outDir], { TMPDIR: t });
    const out = parse(r);
    expect(r.status, r.stderr).toBe(0);
    const reason = 'live mode runs no keepalived cluster';
    expect(out.report.budgets.map((b) => [b.name, b.skipped])).toEqual([
      ['invariants.violations', undefined],
      ['reloads.total', undefined],
      ['failover.splitBrainMs', reason],
    ]);
    // Its outputs replaced the earlier run's, whose others are gone.
    expect(readdirSync(outDir).sort()).toEqual(['junit.xml', 'live.json', 'output.jsonl', 'report.html', 'report.json', 'summary.md']);
    // The outputs `run` writes, the skipped budget shown as such in each.
    expect(readFileSync(join(outDir, 'junit.xml'), 'utf8')).toContain(`<skipped message="${reason}"/>`);
    expect(readFileSync(join(outDir, 'summary.md'), 'utf8')).toContain(`## routerbench: 1 scenario, passed, 1 budget not judged\n`);
    expect(readFileSync(join(outDir, 'report.html'), 'utf8')).toContain(`<td class="muted">not judged: ${reason}</td>`);
    const notJudged = "budgets 'failover.splitBrainMs <= 1' not judged in live mode: the keepalived cluster is not run";
    const faults = 'haproxy.resetRate=0.05 ignored: live mode does not inject simulated socket faults';
    expect(r.stderr).toContain(notJudged);
    expect(r.stderr).toContain(faults);
    const warnings = out.report.warnings.list.map((w) => w.message);
    expect(warnings.some((w) => w.startsWith(notJudged))).toBe(true);
    expect(warnings.some((w) => w.startsWith(faults))).toBe(true);
    // The reproduce line runs it live again, on the same socket at the same speed.
    expect(out.report.reproduce).toBe(`routerbench live ${scenario} --seed 1 --set haproxy.resetRate=0.05 --haproxy-socket ${socket} --speed max`);
    // --stop on a passing run: nothing of ours is left, so neither are its files.
    expect(ours(t)).toEqual([]);
    // A file of the user's in --out: refused before HAProxy starts (exit 2), naming the directory and the file.
    writeFileSync(join(outDir, 'notes.txt'), 'mine\n');
    const refused = live([scenario, '--haproxy-socket', socket, '--speed', 'max', '--stop', '--out', outDir], { TMPDIR: t });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`routerbench: ${outDir}: holds 'notes.txt', which routerbench did not write`);
    expect(readdirSync(outDir)).toContain('report.json');
    expect(existsSync(socket)).toBe(false);
  });

  it('SIGTERM stops between steps like Ctrl-C: exit 130, and with --stop HAProxy and its files are gone', { timeout: 60_000 }, async () => {
    const sub = mkdtempSync(join(dir, 'sigterm-'));
    const socket = join(sub, 'haproxy.sock');
    const t = tmp(sub);
    const log = join(sub, 'slow.jsonl');
    // At real time the last event is 30 s away: the run is surely waiting for it when SIGTERM comes.
    writeFileSync(log, [HEADER, eps(0, 'web', [10]), route(0, 'web'), eps(30_000, 'web', [11])].join('\n') + '\n');
    const child = spawn(process.execPath, [BIN, 'live', log, '--haproxy-socket', socket, '--speed', '1', '--stop'], { env: { ...process.env, TMPDIR: t }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let pid: number | null = null;
    for (let i = 0; i < 500 && pid === null; i++) {
      pid = await pidOnSocket(socket);
      if (pid === null) await new Promise((r) => setTimeout(r, 20));
    }
    expect(pid, stderr).not.toBeNull();
    pids.add(pid!);
    child.kill('SIGTERM');
    expect(await exited, stderr).toBe(130);
    expect(stderr).toContain('interrupted (SIGTERM); haproxy stopped');
    expect(isAlive(pid!)).toBe(false);
    expect(ours(t)).toEqual([]);
    expect(existsSync(socket)).toBe(false);
  });
});
