import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { readInputFile } from './regular-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'rb-regular-'));
let files = 0;

describe('reading a whole input file', () => {
  test.prop([fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 1, max: 64 })])('gives the file as it is when within the limit, refuses it when larger', (bytes, max) => {
    const file = join(dir, `f${files++}`);
    writeFileSync(file, bytes);
    if (bytes.length <= max) expect(readInputFile(file, 'a scenario', max)).toEqual(Buffer.from(bytes));
    else expect(() => readInputFile(file, 'a scenario', max)).toThrow(`${file}: a scenario is larger than ${max} bytes, the limit for a file read whole`);
  });

  it('refuses /dev/zero behind a symlink and a named pipe without reading them', () => {
    const zero = join(dir, 'zero.yaml');
    symlinkSync('/dev/zero', zero);
    expect(() => readInputFile(zero, 'a scenario')).toThrow(`${zero}: a scenario must be a regular file, not a character device`);
    const fifo = join(dir, 'pipe.cfg');
    execFileSync('mkfifo', [fifo]);
    expect(() => readInputFile(fifo, 'an haproxy.cfg')).toThrow(`${fifo}: an haproxy.cfg must be a regular file, not a named pipe`);
  });

  it('reports a directory as the path error it is (EISDIR), which the CLI names', () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    expect(() => readInputFile(sub, 'a scenario')).toThrow(expect.objectContaining({ code: 'EISDIR', path: sub }));
  });
});
