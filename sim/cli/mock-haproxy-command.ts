import { chmodSync, existsSync, lstatSync, rmSync, statSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { availableParallelism, hostname } from 'node:os';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../eventlog/input-error.ts';
import { readInputFile } from '../eventlog/regular-file.ts';
import { parseHaproxyCfg, type ParsedCfg } from '../haproxy/cfg-parser.ts';
import { MockHaproxy } from '../haproxy/mock-haproxy.ts';
import { DEFAULT_PROCESS_INFO } from '../haproxy/show-info.ts';
import { serveConnection } from '../haproxy/socket-server.ts';

/**
 * The longest unix socket path bind(2) takes with its terminating NUL: sun_path is 108 bytes on Linux, 104 on
 * macOS and the BSDs. Node hands a longer path to the kernel truncated, without an error, so the socket
 * would appear under another name than the one printed and removed.
 */
export const SOCKET_PATH_BYTES_MAX = process.platform === 'linux' ? 107 : 103;

interface MockHaproxyOptions {
  config: string;
  socket: string;
}

/** Whether a connection to the unix socket is accepted: refused (or gone) means a stale file left behind. */
function someoneListens(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    const done = (answer: boolean): void => {
      probe.destroy();
      resolve(answer);
    };
    probe.once('connect', () => done(true));
    probe.once('error', (e: NodeJS.ErrnoException) => done(e.code !== 'ECONNREFUSED' && e.code !== 'ENOENT'));
    // A listener too busy to answer within a second is still a listener.
    probe.setTimeout(1000, () => done(true));
  });
}

/**
 * `routerbench mock-haproxy --config haproxy.cfg --socket PATH`: the mocked HAProxy 2.6 runtime API on a
 * real unix socket, for pointing a real router (or socat) at it. The only file in sim/haproxy's orbit that
 * does real I/O. SIGHUP and SIGUSR2 reload the cfg (runtime changes are lost, as in HAProxy);
 * SIGINT/SIGTERM stop it at once, as HAProxy's hard stop does: connections still open are dropped, the
 * socket is removed, and it exits 0 (a requested stop, not a failure).
 */
export function registerMockHaproxyCommand(program: Command): void {
  program
    .command('mock-haproxy')
    .description(
      'serve the mocked HAProxy 2.6 runtime API on a unix socket, loaded from an haproxy.cfg; SIGHUP/SIGUSR2 reload the cfg, SIGINT/SIGTERM stop it (exit 0)',
    )
    .requiredOption('--config <file>', 'haproxy.cfg to load (map files are read from the paths it names; the `mode` of its `stats socket` line, the one at --socket or else the first, sets the socket\'s permissions)')
    .requiredOption('--socket <path>', `unix socket path to listen on (at most ${SOCKET_PATH_BYTES_MAX} bytes)`)
    .action(async (opts: MockHaproxyOptions) => {
      const socketBytes = Buffer.byteLength(opts.socket);
      if (socketBytes > SOCKET_PATH_BYTES_MAX) {
        throw new InputError(
          opts.socket,
          `--socket path is ${socketBytes} bytes, longer than a unix socket path can be (at most ${SOCKET_PATH_BYTES_MAX} bytes): choose a shorter path`,
        );
      }
      const mock = new MockHaproxy({
        clockS: () => Math.floor(Date.now() / 1000),
        processInfo: { ...DEFAULT_PROCESS_INFO, pid: process.pid, node: hostname(), nbthread: availableParallelism() },
      });
      if (!existsSync(opts.config)) throw new InputError(opts.config, 'no such file (--config)');
      if (statSync(opts.config).isDirectory()) throw new InputError(opts.config, 'is a directory; --config takes an haproxy.cfg file');
      const load = (): ParsedCfg => {
        const parsed = parseHaproxyCfg(readInputFile(opts.config, 'an haproxy.cfg').toString('utf8'), {
          cfgFile: opts.config,
          readFile: (p) => readInputFile(p, 'a map file').toString('utf8'),
        });
        mock.load(parsed.config, parsed.layout);
        return parsed;
      };
      // The cfg's stats socket at this path, else its first: its `mode` gives the socket's permissions.
      const parsedAtStart = load();
      const statsSocket = parsedAtStart.statsSockets.find((s) => s.path === opts.socket) ?? parsedAtStart.statsSockets[0];
      // HAProxy replaces a stale socket file on start; do the same, but never remove anything else, nor the
      // socket of a process still listening there (it would stay up, unreachable, and lose the path on our exit).
      if (existsSync(opts.socket)) {
        if (!lstatSync(opts.socket).isSocket()) throw new InputError(opts.socket, 'exists and is not a socket: remove it or choose another --socket path');
        if (await someoneListens(opts.socket)) {
          throw new InputError(opts.socket, 'another process is listening on this socket (an HAProxy or another mock-haproxy?): stop it or choose another --socket path');
        }
        rmSync(opts.socket);
      }
      const dir = dirname(opts.socket);
      if (!existsSync(dir)) throw new InputError(opts.socket, `cannot listen: the directory ${dir} does not exist`);
      const connections = new Set<Socket>();
      const server = createServer((socket) => {
        connections.add(socket);
        socket.once('close', () => connections.delete(socket));
        serveConnection(socket, mock);
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', (e: NodeJS.ErrnoException) => reject(new InputError(opts.socket, `cannot listen: ${e.code ?? e.message}`)));
        server.listen(opts.socket, resolve);
      });
      if (statsSocket?.mode !== undefined) chmodSync(opts.socket, statsSocket.mode);
      if (statsSocket?.level !== undefined && statsSocket.level !== 'admin') {
        process.stderr.write(`mock-haproxy: ${opts.config}:${statsSocket.line}: level ${statsSocket.level} is not modelled; the socket answers at level admin\n`);
      }
      process.stderr.write(
        `mock-haproxy: serving ${opts.socket} (${mock.backendList.length} backends, ${mock.mapListing().length} maps) from ${opts.config}\n`,
      );
      const reload = (): void => {
        try {
          load();
          process.stderr.write(`mock-haproxy: reloaded ${opts.config}\n`);
        } catch (e) {
          process.stderr.write(`mock-haproxy: reload failed, keeping the running config: ${(e as Error).message}\n`);
        }
      };
      process.on('SIGHUP', reload);
      process.on('SIGUSR2', reload);
      await new Promise<void>((resolve) => {
        let stopping = false;
        const stop = (): void => {
          // A second signal during the brief close asks for the same stop: the default action would end the
          // process with another exit code than the documented 0.
          if (stopping) return;
          stopping = true;
          // `close` alone waits for every open connection, and a client may hold one idle for as long as it likes.
          server.close(() => {
            for (const s of ['SIGINT', 'SIGTERM'] as const) process.off(s, stop);
            process.off('SIGHUP', reload);
            process.off('SIGUSR2', reload);
            resolve();
          });
          for (const c of connections) c.destroy();
          rmSync(opts.socket, { force: true });
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
