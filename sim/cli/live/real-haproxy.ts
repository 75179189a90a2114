/**
 * CLI-only file: spawns and signals real processes, writes files, polls a real socket with real timers
 * (allowed under sim/cli/ only).
 *
 * A real HAProxy 2.6 managed the way OpenShift's reload-haproxy script manages it: every reload writes the
 * cfg and map files, then starts a new process on them with `-sf <old pid>`; the new process binds the stats
 * socket and the ports, then tells the old one to finish (SIGUSR1) and exit. Chosen over master-worker mode
 * (`-W` and SIGUSR2) because
 * - it is what the router does (`haproxy -f cfg -p pidfile -x sock -sf $old_pids`), so the reload path and
 *   its window are the router's;
 * - the command owns the new process: it knows its PID without asking a master, sees it exit at once when
 *   the cfg is refused (the old process keeps serving, as after a failed router reload), and can tell the
 *   reload has completed when `show info` on the socket answers with the new PID (2.6's master CLI has no
 *   synchronous `reload`);
 * - an HAProxy the user already runs on the socket can be taken over the same way: its PID comes from
 *   `show info`.
 * `-db` keeps each process in the foreground as a child of nobody but this command; its stderr goes to
 * `haproxy.log` beside the cfg.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HaproxyConfig } from '../../../core/haproxy/config-model.ts';
import { renderHaproxyCfg, writeRenderedCfg, type RenderOptions } from '../../haproxy/haproxy-cfg.ts';
import { makeDirs } from '../write-outputs.ts';
import { sendCommand, type WireResult } from './socket-transport.ts';
import { isAlive, signalIfAlive } from './pid.ts';

export interface RealHaproxyOptions {
  /** The haproxy binary. */
  bin: string;
  /** Where the cfg is written; map files go beside it. */
  cfgPath: string;
  /** The admin-level stats socket the cfg declares and the commands go to. */
  socketPath: string;
  /** Loopback ports of the three frontends, kept the same across reloads. */
  ports: readonly [number, number, number];
  /** How long a new process may take to serve the socket. */
  startTimeoutMs?: number;
}

/** Render options for a live cfg: the same function tells a test's mock which map paths and ids to expect. */
export function liveRenderOptions(cfgPath: string, socketPath: string, ports: readonly [number, number, number]): RenderOptions {
  return { statsSocketPath: socketPath, mapDir: dirname(cfgPath), cfgFile: cfgPath, httpPort: ports[0], httpsPort: ports[1], terminatedPort: ports[2] };
}

export class HaproxyStartError extends Error {
  override name = 'HaproxyStartError';
}

/**
 * A reload after one of ours already served (the new process exited or never served the socket): the
 * previous process still serves, as after a failed router reload, so this is a verdict on the config, not an
 * environment that cannot run HAProxy (that is HaproxyStartError, on the first start).
 */
export class HaproxyReloadRefusedError extends Error {
  override name = 'HaproxyReloadRefusedError';
  constructor(
    /** The run's reload number (every reload starts one process). */
    readonly reload: number,
    /** What the refused process wrote to haproxy.log. */
    readonly output: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ReloadTiming {
  n: number;
  /** Wall time from spawning the new process until it answered `show info` with its PID. */
  wallMs: number;
}

/** A real HAProxy process: reloads awaited, commands sent as text on its stats socket (run-live.ts encodes them). */
export class RealHaproxy {
  /** PID of the process serving the socket (ours, or the one found there at start). */
  private servingPid: number | null = null;
  /** Processes this object started, by PID; an exited one is removed. */
  private readonly children = new Set<number>();
  private pending: Promise<void> | null = null;
  private starts = 0;
  readonly reloadTimings: ReloadTiming[] = [];
  readonly logPath: string;
  readonly renderOptions: RenderOptions;

  constructor(private readonly opts: RealHaproxyOptions) {
    this.renderOptions = liveRenderOptions(opts.cfgPath, opts.socketPath, opts.ports);
    this.logPath = join(dirname(opts.cfgPath), 'haproxy.log');
  }

  /** The PID serving the socket now, if any. */
  get pid(): number | null {
    return this.servingPid;
  }

  /** Looks for an HAProxy already serving the socket; a reload will replace it with `-sf`. */
  async attach(): Promise<number | null> {
    this.servingPid = await pidOnSocket(this.opts.socketPath);
    return this.servingPid;
  }

  send(line: string): Promise<WireResult> {
    return sendCommand(this.opts.socketPath, line);
  }

  beginReload(config: HaproxyConfig): void {
    // Written synchronously so the files on disk are the config of the reload that began last.
    makeDirs(dirname(this.opts.cfgPath));
    const rendered = renderHaproxyCfg(config, this.renderOptions);
    writeRenderedCfg(rendered, this.opts.cfgPath, (p, t) => writeFileSync(p, t));
    const previous = this.pending ?? Promise.resolve();
    // A reload never overlaps another (the limiter serialises them); chain anyway so order is certain.
    this.pending = previous.then(() => this.startProcess());
    // An unobserved rejection would crash the process; finishReload reports it.
    this.pending.catch(() => undefined);
  }

  async finishReload(): Promise<void> {
    const p = this.pending;
    this.pending = null;
    if (p !== null) await p;
  }

  /** Stops every process this object started (by PID) and waits for them to exit. */
  async stop(): Promise<void> {
    for (const pid of this.children) signalIfAlive(pid, 'SIGTERM');
    for (let i = 0; i < 200 && [...this.children].some(isAlive); i++) await sleep(10);
    for (const pid of this.children) if (isAlive(pid)) signalIfAlive(pid, 'SIGKILL');
    this.children.clear();
    this.servingPid = null;
  }

  /** Leaves the serving process running after this command exits (the caller prints its PID). */
  release(): void {
    this.children.clear();
  }

  private async startProcess(): Promise<void> {
    const args = ['-db', '-f', this.opts.cfgPath];
    const old = this.servingPid;
    if (old !== null) args.push('-sf', String(old));
    const reload = ++this.starts;
    // Only this process's output names why it was refused: earlier ones wrote to the same log.
    const logFrom = statSync(this.logPath, { throwIfNoEntry: false })?.size ?? 0;
    const log = openSync(this.logPath, 'a');
    const started = performance.now();
    const child = spawn(this.opts.bin, args, { stdio: ['ignore', log, log], detached: true });
    closeSync(log);
    child.unref();
    const pid = child.pid;
    if (pid === undefined) {
      const error = await new Promise<Error>((resolve) => child.once('error', resolve));
      throw new HaproxyStartError(`could not start ${this.opts.bin}: ${error.message}`);
    }
    this.children.add(pid);
    let exitCode: number | null = null;
    child.once('exit', (code, sig) => {
      exitCode = code ?? (sig === null ? -1 : 128);
      this.children.delete(pid);
    });
    const deadline = started + (this.opts.startTimeoutMs ?? 10_000);
    const fail = (what: string): Error => {
      const output = this.logTail(logFrom);
      const message = `${what}:\n${output}`;
      // Ours served before: it is still serving (a refused process exits before signalling it with -sf).
      if (old !== null && this.reloadTimings.length > 0) {
        return new HaproxyReloadRefusedError(reload, output, `reload ${reload} refused: ${message}\nthe previous process (pid ${old}) kept serving its config`);
      }
      return new HaproxyStartError(message);
    };
    for (;;) {
      if (exitCode !== null) throw fail(`haproxy ${args.join(' ')} exited with ${exitCode} before serving the socket`);
      if ((await pidOnSocket(this.opts.socketPath)) === pid) break;
      if (performance.now() > deadline) {
        signalIfAlive(pid, 'SIGTERM');
        throw fail(`haproxy (pid ${pid}) did not serve ${this.opts.socketPath} within ${this.opts.startTimeoutMs ?? 10_000} ms`);
      }
      await sleep(2);
    }
    this.reloadTimings.push({ n: this.reloadTimings.length + 1, wallMs: performance.now() - started });
    this.servingPid = pid;
    // With -sf the old process finishes on its own; one of ours is reaped by its exit handler.
  }

  private logTail(from = 0): string {
    try {
      const text = readFileSync(this.logPath).subarray(from).toString('utf8').trimEnd();
      return text === '' ? '(haproxy wrote nothing to haproxy.log)' : text.split('\n').slice(-12).join('\n');
    } catch {
      return '(no haproxy.log)';
    }
  }
}

/** The PID in `show info` of whatever answers on the socket, or null when nothing does. */
export async function pidOnSocket(socketPath: string): Promise<number | null> {
  const r = await sendCommand(socketPath, 'show info', 2000);
  if (!r.ok) return null;
  const m = /^Pid: (\d+)$/m.exec(r.reply);
  return m === null ? null : Number(m[1]);
}

/** Three loopback ports free right now (the OS picks them). */
export async function freeLoopbackPorts(): Promise<[number, number, number]> {
  const one = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const a = s.address();
        s.close(() => resolve(typeof a === 'object' && a !== null ? a.port : 0));
      });
    });
  return [await one(), await one(), await one()];
}
