/**
 * CLI-only file: real unix sockets and real timers (allowed under sim/cli/ only).
 *
 * The transport under the runtime-API client in live mode: one connection per command, as the router's
 * client does (configmanager/haproxy client.go), the reply read to EOF. Socket failures become the
 * transport errors the client's retry logic (core/runtime-client.ts) understands: an unlistened socket is
 * `refused`, a connection dropped mid-way is `reset`, no EOF within the deadline is `timeout`, a socket
 * file that is missing or may not be opened is `unavailable`.
 */
import { createConnection } from 'node:net';
import type { TransportFault } from '../../../core/runtime-effect.ts';

/** What crossed the socket: HAProxy's reply bytes, or the connection's fault (decoded by core/haproxy/runtime-codec.ts). */
export type WireResult = { ok: true; reply: string } | { ok: false; error: TransportFault };

/** The router client's default per-command deadline is well above this; a healthy HAProxy answers in < 1 ms. */
export const COMMAND_TIMEOUT_MS = 10_000;

export function sendCommand(socketPath: string, line: string, timeoutMs = COMMAND_TIMEOUT_MS): Promise<WireResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (r: WireResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const c = createConnection(socketPath);
    const timer = setTimeout(() => {
      c.destroy();
      finish({ ok: false, error: 'timeout' });
    }, timeoutMs);
    c.on('connect', () => c.write(line.endsWith('\n') ? line : `${line}\n`));
    c.on('data', (d: Buffer) => chunks.push(d));
    c.on('end', () => finish({ ok: true, reply: Buffer.concat(chunks).toString('utf8') }));
    c.on('error', (err: NodeJS.ErrnoException) => {
      c.destroy();
      finish({ ok: false, error: classify(err.code) });
    });
  });
}

/** The transport fault a socket error code stands for. */
export function classify(code: string | undefined): TransportFault {
  // ECONNREFUSED: a stale socket file, nobody listening on it.
  if (code === 'ECONNREFUSED') return 'refused';
  // No socket file (HAProxy not started yet, or between a stop and a start), or one this process may not
  // open: Go's dial says "no such file or directory" or "permission denied", which the router's client does
  // not retry.
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EPERM' || code === 'ENOTDIR') return 'unavailable';
  // The command written after HAProxy closed the connection: "write: broken pipe", not retried either.
  if (code === 'EPIPE') return 'broken-pipe';
  return 'reset';
}
