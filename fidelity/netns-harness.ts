/**
 * Real keepalived in isolated network namespaces: the reference the VRRP simulator is checked against.
 *
 * This file does real I/O in real time (processes, namespaces, the wall clock) ON PURPOSE: measuring a real
 * keepalived cannot be done on a virtual clock. That is allowed for fidelity/ only, and nothing on the
 * simulation path (sim/run.ts, sim/cluster, sim/vrrp, core, reports) may import it — only the fidelity tests
 * and bench/keepalived-fidelity.ts do.
 *
 * Topology (never connected to the host's namespace; every address in 198.18.0.0/15):
 *
 *   <prefix>-br : bridge br0 (mcast_snooping 0, so the 224.0.0.18 adverts reach every port), ports p0..pN-1
 *   <prefix>-<i>: node i, `eth0` = the peer of p<i>, its primary IP, lo up; keepalived runs here.
 *
 * Every veth pair is created inside the bridge namespace with its peer moved straight into the node's
 * namespace, so no interface ever appears in the host namespace. The prefix is unique per run.
 *
 * Faults:
 * - crash(node): SIGKILL the VRRP child, then (keepalived runs with --dont-respawn, so the parent exits by
 *   itself) SIGKILL the parent if it lingers. Killing the parent first would not be a crash: the child gets
 *   its parent-death signal and shuts down gracefully (priority 0). The VIP stays on the dead node's eth0.
 * - hostLoss(node): crash + `ip link set eth0 down` in the node: the host is gone, its stale VIP unreachable.
 * - shutdown(node): SIGTERM to the parent (graceful stop, priority-0 advert, VIPs removed).
 * - routerFail/routerRecover(node): create/remove the flag file the node's check script tests.
 * - partition/heal(node): bridge port state 0 (disabled: frames dropped, carrier stays up → silent, split
 *   brain) / 3 (forwarding).
 * - carrierDown/carrierUp(node): `ip link set p<i> down` on the bridge side: the node's eth0 loses carrier and
 *   keepalived goes to FAULT at once (not a partition keepalived can miss).
 *
 * VIP ownership is watched with `ip -ts -o monitor address` in each node namespace (address-monitor.ts: kernel
 * events, stamped in UTC to the microsecond when `ip` reads them). Adverts and gratuitous ARPs are watched by
 * a python3 packet socket in the bridge namespace (wire-observer.ts; optional: `adverts` and `garps` stay
 * empty without python3). Fault times are the wall clock (Date.now, ms)
 * right BEFORE the fault's system call or command: keepalived runs at real-time priority and, once signalled,
 * can keep this process off the CPU for tens of ms, so a stamp taken after would be late. A stamp before is
 * early by at most 1 ms (Date.now's resolution) plus, for a partition, the ~2-5 ms the `bridge` command
 * (also at real-time priority) takes to start.
 *
 * Cleanup (destroy(), also from a process 'exit' hook): every process we spawned is killed by its PID (the
 * VRRP child's PID read from its pid file and checked against /proc/<pid>/cmdline first), then every
 * namespace we created is deleted by name (deleting the bridge namespace removes the veth pairs).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { watchAddresses, type AddressEvent } from './address-monitor.ts';
import { killIfOurs, readPid } from './keepalived-process.ts';
import { realtimePrefix, wallUs } from './real-time.ts';
import { watchWire, type AdvertEvent, type GarpEvent } from './wire-observer.ts';

export interface NetnsNode {
  name: string;
  ip: string;
}

export interface NetnsClusterOptions {
  nodes: NetnsNode[];
  /** Every address that keepalived will add (checked to be in 198.18.0.0/15). */
  vips: string[];
  /** keepalived.conf for a node; `routerDownFlag` is the file whose existence must make its router check fail. */
  conf: (node: string, paths: { routerDownFlag: string }) => string;
  prefixLength?: number;
  /** Keep the working directory (configs, keepalived logs) after destroy(). */
  keepWorkDir?: boolean;
}

/** Why the real-keepalived tests cannot run here, or null when they can. */
export function netnsUnavailableReason(): string | null {
  if (process.platform !== 'linux') return 'not Linux (network namespaces are a Linux feature)';
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'not root (creating network namespaces needs CAP_SYS_ADMIN)';
  for (const [cmd, args] of [
    ['ip', ['netns', 'list']],
    ['bridge', ['-V']],
    ['keepalived', ['-v']],
  ] as const) {
    const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 5000 });
    if (r.error || r.status !== 0) return `'${cmd} ${args.join(' ')}' failed (${r.error?.message ?? r.stderr.trim()}): apt-get install -y iproute2 keepalived`;
  }
  return null;
}

export function inBenchmarkRange(ip: string): boolean {
  const p = ip.split('.').map(Number);
  return p.length === 4 && p.every((x) => Number.isInteger(x) && x >= 0 && x <= 255) && p[0] === 198 && (p[1] === 18 || p[1] === 19);
}

interface NodeRt {
  index: number;
  name: string;
  ip: string;
  ns: string;
  conf: string;
  flag: string;
  log: string;
  pidFile: string;
  vrrpPidFile: string;
  checkersPidFile: string;
  keepalived: ChildProcess | null;
  vrrpPid: number | null;
  monitor: ChildProcess | null;
}

const CMD_TIMEOUT_MS = 10_000;

export class NetnsCluster {
  readonly prefix: string;
  readonly workDir: string;
  readonly bridgeNs: string;
  readonly events: AddressEvent[] = [];
  readonly adverts: AdvertEvent[] = [];
  readonly garps: GarpEvent[] = [];
  /**
   * When the last fault was certainly in effect (µs): the stamp returned by a fault method is taken before it
   * acts; for a partition the `bridge` command takes a few ms more, and an advert in between may still cross.
   */
  lastFaultEndUs = 0;
  private observer: ChildProcess | null = null;
  private readonly nodes = new Map<string, NodeRt>();
  private readonly namespaces: string[] = [];
  private readonly exitHook = (): void => this.destroySync();
  private readonly rt = realtimePrefix();
  private destroyed = false;

  private constructor(private readonly opts: NetnsClusterOptions) {
    this.prefix = `rbk${process.pid.toString(36)}${Math.floor(Math.random() * 36 ** 3).toString(36)}`;
    this.workDir = mkdtempSync(join(tmpdir(), `${this.prefix}-`));
    this.bridgeNs = `${this.prefix}-br`;
  }

  /** Build the namespaces and start the address monitors (keepalived is started with start()). */
  static async create(opts: NetnsClusterOptions): Promise<NetnsCluster> {
    if (opts.nodes.length < 1 || opts.nodes.length > 32) throw new Error(`netns-harness: 1..32 nodes, got ${opts.nodes.length}`);
    for (const ip of [...opts.nodes.map((n) => n.ip), ...opts.vips])
      if (!inBenchmarkRange(ip)) throw new Error(`netns-harness: ${ip} is outside 198.18.0.0/15`);
    const c = new NetnsCluster(opts);
    process.once('exit', c.exitHook);
    try {
      await c.build();
    } catch (err) {
      await c.destroy();
      throw err;
    }
    return c;
  }

  private run(args: string[]): void {
    const r = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8', timeout: CMD_TIMEOUT_MS });
    if (r.error || r.status !== 0) throw new Error(`netns-harness: '${args.join(' ')}' failed: ${r.error?.message ?? r.stderr.trim()}`);
  }

  private addNamespace(ns: string): void {
    this.run(['ip', 'netns', 'add', ns]);
    this.namespaces.push(ns);
  }

  private async build(): Promise<void> {
    const br = this.bridgeNs;
    this.addNamespace(br);
    this.run(['ip', '-n', br, 'link', 'add', 'br0', 'type', 'bridge', 'mcast_snooping', '0']);
    this.run(['ip', '-n', br, 'link', 'set', 'br0', 'up']);
    const plen = this.opts.prefixLength ?? 24;
    this.opts.nodes.forEach((n, index) => {
      const ns = `${this.prefix}-${index}`;
      this.addNamespace(ns);
      this.run(['ip', '-n', br, 'link', 'add', `p${index}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
      this.run(['ip', '-n', br, 'link', 'set', `p${index}`, 'master', 'br0', 'up']);
      this.run(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
      this.run(['ip', '-n', ns, 'addr', 'add', `${n.ip}/${plen}`, 'dev', 'eth0']);
      this.run(['ip', '-n', ns, 'link', 'set', 'eth0', 'up']);
      const file = (ext: string) => join(this.workDir, `${n.name}.${ext}`);
      const rt: NodeRt = {
        index,
        name: n.name,
        ip: n.ip,
        ns,
        conf: file('conf'),
        flag: file('router-down'),
        log: file('log'),
        pidFile: file('pid'),
        vrrpPidFile: file('vrrp.pid'),
        checkersPidFile: file('checkers.pid'),
        keepalived: null,
        vrrpPid: null,
        monitor: null,
      };
      writeFileSync(rt.conf, this.opts.conf(n.name, { routerDownFlag: rt.flag }));
      this.nodes.set(n.name, rt);
      this.startMonitor(rt);
    });
    this.startObserver();
    // `ip monitor` prints nothing when it is ready; give it time to subscribe before anything moves.
    await sleep(300);
  }

  private startMonitor(rt: NodeRt): void {
    rt.monitor = watchAddresses(this.rt, rt.ns, rt.name, (e) => this.events.push(e));
  }

  private startObserver(): void {
    const byIp = new Map(this.opts.nodes.map((n) => [n.ip, n.name]));
    const byPort = new Map([...this.nodes.values()].map((rt) => [String(rt.index), rt.name]));
    this.observer = watchWire(this.rt, this.bridgeNs, { nodeOfIp: (ip) => byIp.get(ip), nodeOfPort: (port) => byPort.get(port) }, {
      advert: (e) => this.adverts.push(e),
      garp: (e) => this.garps.push(e),
    });
  }

  private node(name: string): NodeRt {
    const rt = this.nodes.get(name);
    if (!rt) throw new Error(`netns-harness: unknown node '${name}'`);
    return rt;
  }

  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  isRunning(name: string): boolean {
    const rt = this.node(name);
    return rt.keepalived !== null && rt.keepalived.exitCode === null && rt.keepalived.signalCode === null;
  }

  /** Start keepalived (VRRP only, foreground, no respawn) in the node's namespace; resolves once its VRRP child runs. */
  async start(name: string): Promise<void> {
    const rt = this.node(name);
    if (this.isRunning(name)) throw new Error(`netns-harness: keepalived already runs on ${name}`);
    for (const f of [rt.pidFile, rt.vrrpPidFile, rt.checkersPidFile]) if (existsSync(f)) unlinkSync(f);
    const fd = openSync(rt.log, 'a');
    try {
      const [cmd, ...pre] = [...this.rt, 'ip'];
      rt.keepalived = spawn(
        cmd!,
        [...pre, 'netns', 'exec', rt.ns, 'keepalived', '--dont-fork', '--log-console', '--log-detail', '--no-syslog', '--vrrp', '--dont-respawn',
          '-f', rt.conf, '-p', rt.pidFile, '-r', rt.vrrpPidFile, '-c', rt.checkersPidFile],
        { stdio: ['ignore', fd, fd] },
      );
    } finally {
      closeSync(fd);
    }
    rt.vrrpPid = null;
    for (let i = 0; i < 300 && rt.vrrpPid === null; i++) {
      await sleep(10);
      if (!this.isRunning(name)) break;
      rt.vrrpPid = readPid(rt.vrrpPidFile);
    }
    if (rt.vrrpPid === null) throw new Error(`netns-harness: keepalived on ${name} did not start its VRRP child; log:\n${this.logTail(name)}`);
  }

  /** Process crash: SIGKILL the VRRP child (silent: no priority-0 advert), then the parent. Returns the fault time (µs). */
  async crash(name: string): Promise<number> {
    const rt = this.node(name);
    if (rt.vrrpPid === null || !this.isRunning(name)) throw new Error(`netns-harness: keepalived is not running on ${name}`);
    const at = wallUs();
    killIfOurs(rt.vrrpPid, rt.conf, 'SIGKILL');
    this.lastFaultEndUs = at;
    rt.vrrpPid = null;
    await this.waitExit(rt, 2000, 'SIGKILL');
    return at;
  }

  /** Host loss: the process crash, then the node's interface goes down (its stale VIP is unreachable). */
  async hostLoss(name: string): Promise<number> {
    const at = await this.crash(name);
    this.run(['ip', '-n', this.node(name).ns, 'link', 'set', 'eth0', 'down']);
    return at;
  }

  /** The host is back: its interface comes up (start keepalived separately). */
  hostBack(name: string): void {
    this.run(['ip', '-n', this.node(name).ns, 'link', 'set', 'eth0', 'up']);
  }

  /** Graceful stop: SIGTERM to keepalived's parent. Returns the fault time; resolves once keepalived exited. */
  async shutdown(name: string): Promise<number> {
    const rt = this.node(name);
    if (!this.isRunning(name)) throw new Error(`netns-harness: keepalived is not running on ${name}`);
    const at = wallUs();
    rt.keepalived!.kill('SIGTERM');
    this.lastFaultEndUs = at;
    await this.waitExit(rt, 5000, 'SIGKILL');
    rt.vrrpPid = null;
    return at;
  }

  /**
   * Stall: SIGSTOP the VRRP child (a frozen process: it neither sends nor reads, while the kernel keeps
   * queueing what arrives on its sockets). `resume` sends SIGCONT. Returns the time (µs).
   */
  stall(name: string): number {
    const rt = this.node(name);
    if (rt.vrrpPid === null || !this.isRunning(name)) throw new Error(`netns-harness: keepalived is not running on ${name}`);
    const at = wallUs();
    killIfOurs(rt.vrrpPid, rt.conf, 'SIGSTOP');
    this.lastFaultEndUs = at;
    return at;
  }

  resume(name: string): number {
    const rt = this.node(name);
    if (rt.vrrpPid === null) throw new Error(`netns-harness: keepalived is not running on ${name}`);
    killIfOurs(rt.vrrpPid, rt.conf, 'SIGCONT');
    return wallUs();
  }

  /** The router check starts failing (the flag file exists). */
  routerFail(name: string): number {
    const at = wallUs();
    writeFileSync(this.node(name).flag, 'down\n');
    this.lastFaultEndUs = at;
    return at;
  }

  routerRecover(name: string): number {
    rmSync(this.node(name).flag, { force: true });
    return wallUs();
  }

  /** Config reload: the node's keepalived.conf is rewritten and keepalived gets SIGHUP. Returns the time (µs). */
  reload(name: string, conf: string): number {
    const rt = this.node(name);
    if (!this.isRunning(name)) throw new Error(`netns-harness: keepalived is not running on ${name}`);
    writeFileSync(rt.conf, conf);
    const at = wallUs();
    rt.keepalived!.kill('SIGHUP');
    return at;
  }

  /** Silent partition of the node from every other: its bridge port drops frames, carrier stays up. */
  partition(name: string): number {
    const at = wallUs();
    this.run([...this.rt, 'bridge', '-n', this.bridgeNs, 'link', 'set', 'dev', `p${this.node(name).index}`, 'state', '0']);
    this.lastFaultEndUs = wallUs();
    return at;
  }

  heal(name: string): number {
    const at = wallUs();
    this.run([...this.rt, 'bridge', '-n', this.bridgeNs, 'link', 'set', 'dev', `p${this.node(name).index}`, 'state', '3']);
    return at;
  }

  /** The node's eth0 loses carrier (bridge-side port down): keepalived sees its interface go down. */
  carrierDown(name: string): number {
    this.run(['ip', '-n', this.bridgeNs, 'link', 'set', `p${this.node(name).index}`, 'down']);
    return wallUs();
  }

  carrierUp(name: string): number {
    this.run(['ip', '-n', this.bridgeNs, 'link', 'set', `p${this.node(name).index}`, 'up']);
    return wallUs();
  }

  /** Nodes holding `address` now, from the monitored events (sorted). */
  holders(address: string): string[] {
    const held = new Set<string>();
    for (const e of this.events) {
      if (e.address !== address) continue;
      if (e.added) held.add(e.node);
      else held.delete(e.node);
    }
    return [...held].sort();
  }

  /** Poll `pred` every `pollMs` until it holds or `timeoutMs` passes; returns whether it held. */
  async waitFor(pred: () => boolean, timeoutMs: number, pollMs = 10): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (pred()) return true;
      if (Date.now() >= end) return false;
      await sleep(pollMs);
    }
  }

  logTail(name: string, lines = 30): string {
    try {
      return readFileSync(this.node(name).log, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  private async waitExit(rt: NodeRt, timeoutMs: number, then: NodeJS.Signals): Promise<void> {
    const p = rt.keepalived;
    if (!p) return;
    const exited = await this.waitFor(() => p.exitCode !== null || p.signalCode !== null, timeoutMs);
    if (!exited) {
      p.kill(then);
      await this.waitFor(() => p.exitCode !== null || p.signalCode !== null, 2000);
    }
    rt.keepalived = null;
  }

  /** Kill every process we started (by PID) and delete every namespace we created (by name). Idempotent. */
  async destroy(): Promise<void> {
    this.destroySync();
    await sleep(50);
  }

  private destroySync(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    process.removeListener('exit', this.exitHook);
    for (const rt of this.nodes.values()) {
      const vrrp = rt.vrrpPid ?? readPid(rt.vrrpPidFile);
      if (vrrp !== null) killIfOurs(vrrp, rt.conf, 'SIGKILL');
      const p = rt.keepalived;
      if (p && p.pid !== undefined && p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      const m = rt.monitor;
      if (m && m.pid !== undefined && m.exitCode === null && m.signalCode === null) m.kill('SIGKILL');
      rt.keepalived = rt.monitor = null;
    }
    const o = this.observer;
    if (o && o.pid !== undefined && o.exitCode === null && o.signalCode === null) o.kill('SIGKILL');
    this.observer = null;
    // Namespaces last, the bridge first (it owns one end of every veth pair).
    for (const ns of this.namespaces) spawnSync('ip', ['netns', 'del', ns], { timeout: CMD_TIMEOUT_MS });
    if (!this.opts.keepWorkDir) rmSync(this.workDir, { recursive: true, force: true });
  }
}
