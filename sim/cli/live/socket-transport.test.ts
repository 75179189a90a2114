import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify, sendCommand } from './socket-transport.ts';

describe('sendCommand: socket faults as the router client tells them apart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rb-socket-'));

  it('reads the reply to EOF', async () => {
    const path = join(dir, 'ok.sock');
    const server = createServer((c) => c.on('data', () => c.end('pong\n\n')));
    await new Promise<void>((r) => server.listen(path, r));
    try {
      expect(await sendCommand(path, 'ping')).toEqual({ ok: true, reply: 'pong\n\n' });
    } finally {
      server.close();
    }
  });

  it('calls a missing socket file unavailable (not retried upstream), a file nobody listens on refused', async () => {
    expect(await sendCommand(join(dir, 'missing.sock'), 'show backend')).toEqual({ ok: false, error: 'unavailable' });
    // Connecting to a file that is not a listening socket is refused, as a stale socket file left behind is.
    const stale = join(dir, 'stale.sock');
    writeFileSync(stale, '');
    expect(await sendCommand(stale, 'show backend')).toEqual({ ok: false, error: 'refused' });
  });

  it('tells the error codes apart as Go\'s dial errors end: only refused and reset are retried upstream', () => {
    // "connect: connection refused" and "connection reset by peer" (isRetriable); "no such file or directory",
    // "permission denied", "operation not permitted", "not a directory" and "broken pipe" are not.
    expect(['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EACCES', 'EPERM', 'ENOTDIR', 'EPIPE'].map(classify)).toEqual([
      'refused',
      'reset',
      'unavailable',
      'unavailable',
      'unavailable',
      'unavailable',
      'broken-pipe',
    ]);
  });

  it.skipIf(process.getuid?.() === 0)('calls a socket this process may not open unavailable', async () => {
    // root may open any socket: this only holds for an ordinary user.
    const path = join(dir, 'private.sock');
    const server = createServer((c) => c.end());
    await new Promise<void>((r) => server.listen(path, r));
    chmodSync(path, 0o000);
    try {
      expect(await sendCommand(path, 'show backend')).toEqual({ ok: false, error: 'unavailable' });
    } finally {
      server.close();
    }
  });
});
