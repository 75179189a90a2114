import { createConnection, createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeRequestLength } from './cli-line.ts';
import { completeRequestsLength, serveConnection } from './socket-server.ts';

describe('request framing', () => {
  it('ends a plain request at its first newline', () => {
    expect(completeRequestLength('show backend')).toBe(-1);
    expect(completeRequestLength('show backend\n')).toBe(13);
    expect(completeRequestLength('show backend\nshow map\n')).toBe(13);
  });

  it('waits for the empty line that ends a payload', () => {
    expect(completeRequestLength('add map m <<\n')).toBe(-1);
    expect(completeRequestLength('add map m <<\nk v\n')).toBe(-1);
    // 'add map m <<\n' is 13 bytes, 'k v\n' 4, the empty line 1: 18.
    expect(completeRequestLength('add map m <<\nk v\n\n')).toBe(18);
    expect(completeRequestLength('add map m <<\n\n')).toBe(14);
  });

  it('takes every complete request received so far', () => {
    // 'a\n' (2) + 'add map m <<\nk v\n\n' (18); the unterminated 'b' waits.
    expect(completeRequestsLength('a\nadd map m <<\nk v\n\nb')).toBe(20);
    expect(completeRequestsLength('partial')).toBe(0);
  });
});

describe('serveConnection', () => {
  let dir = '';
  let server: Server;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'routerbench-socket-'));
    server = createServer((s) => serveConnection(s, { execute: (request) => `got ${JSON.stringify(request)}\n\n` }));
    await new Promise<void>((resolve) => server.listen(join(dir, 's.sock'), resolve));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = (parts: string[], halfClose: boolean): Promise<{ out: string; error?: string }> =>
    new Promise((resolve) => {
      const c = createConnection(join(dir, 's.sock'));
      let out = '';
      let error: string | undefined;
      c.setEncoding('utf8');
      c.on('connect', () => {
        for (const p of parts) c.write(p);
        if (halfClose) c.end();
      });
      c.on('data', (d: string) => (out += d));
      c.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
      c.on('close', () => resolve(error === undefined ? { out } : { out, error }));
    });

  it('replies once the request is complete, even if it arrives in pieces, then closes', async () => {
    expect(await ask(['show ', 'backend\n'], false)).toEqual({ out: 'got "show backend\\n"\n\n' });
    expect(await ask(['add map m <<\nk', ' v\n', '\n'], false)).toEqual({ out: 'got "add map m <<\\nk v\\n\\n"\n\n' });
  });

  it('answers all the lines sent together', async () => {
    expect(await ask(['a\nb\n'], false)).toEqual({ out: 'got "a\\nb\\n"\n\n' });
  });

  it('gives no answer to a request the client ends without a newline', async () => {
    expect(await ask(['show backend'], true)).toEqual({ out: '' });
  });

  it('drops the connection, unanswered, for a line longer than HAProxy buffers', async () => {
    expect((await ask([`show backend ${'x'.repeat(20_000)}`], false)).out).toBe('');
  });
});
