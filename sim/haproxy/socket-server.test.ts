import { createConnection, createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeRequestLength, serveConnection } from './socket-server.ts';

describe('completeRequestLength', () => {
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
});

describe('serveConnection', () => {
  let dir = '';
  let server: Server;
  const seen: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'routerbench-socket-'));
    server = createServer((s) =>
      serveConnection(s, {
        execute: (request) => {
          seen.push(request);
          return `got ${JSON.stringify(request)}\n\n`;
        },
      }),
    );
    await new Promise<void>((resolve) => server.listen(join(dir, 's.sock'), resolve));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = (parts: string[], halfClose: boolean): Promise<string> =>
    new Promise((resolve, reject) => {
      const c = createConnection(join(dir, 's.sock'));
      let out = '';
      c.setEncoding('utf8');
      c.on('connect', () => {
        for (const p of parts) c.write(p);
        if (halfClose) c.end();
      });
      c.on('data', (d: string) => (out += d));
      c.on('close', () => resolve(out));
      c.on('error', reject);
    });

  it('replies once the request is complete, even if it arrives in pieces, then closes', async () => {
    expect(await ask(['show ', 'backend\n'], false)).toBe('got "show backend\\n"\n\n');
    expect(await ask(['add map m <<\nk', ' v\n', '\n'], false)).toBe('got "add map m <<\\nk v\\n\\n"\n\n');
  });

  it('answers a request without a newline when the client half-closes', async () => {
    expect(await ask(['show backend'], true)).toBe('got "show backend"\n\n');
  });
});
