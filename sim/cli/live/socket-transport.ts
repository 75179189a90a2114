/**
 * CLI-only file: real unix sockets and real timers (allowed under sim/cli/ only).
 *
 * The transport under the runtime-API client in live mode: one connection per command, as the router's
 * client does (configmanager/haproxy client.go), the reply read to EOF. Socket failures become the
 * transport errors the client's retry logic (core/runtime-client.ts) understands: a missing or
 * unlistened socket is `refused`, a connection dropped mid-way is `reset`, no EOF within the deadline is
 * `timeout`.
 */
import { createConnection } from 'node:net';

/** What crossed the socket: HAProxy's reply bytes, or the connection's fault (decoded by core/haproxy/runtime-codec.ts). */
export type WireResult = { ok: true; reply: string } | { ok: false; error: 'refused' | 'reset' | 'timeout' };

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

function classify(code: string | undefined): 'refused' | 'reset' {
  // ENOENT: no socket file (HAProxy not started yet, or between a stop and a start); ECONNREFUSED: a stale file.
  if (code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EACCES') return 'refused';
  return 'reset';
}
