import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { writeEventLogFile } from './event-log-writer.ts';
import { checkOutDir, makeDirs, writeFileAtomic } from './write-outputs.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-write-'));

test('a directory where a file should go is refused by its own name, and nothing is left beside it', () => {
  const target = join(dir, 'taken');
  mkdirSync(target);
  expect(() => writeFileAtomic(target, 'x')).toThrow(`${target}: is a directory`);
  expect(() => writeEventLogFile(target, '{}', [])).toThrow(`${target}: is a directory`);
  expect(readdirSync(dir)).toEqual(['taken']);
});

test('missing parent directories are made, for reports and event logs alike', () => {
  writeFileAtomic(join(dir, 'a', 'b', 'report.json'), '{}\n');
  writeEventLogFile(join(dir, 'c', 'd', 'log.jsonl'), '{"routerbench":"eventlog","version":1}', []);
  expect(readFileSync(join(dir, 'a', 'b', 'report.json'), 'utf8')).toBe('{}\n');
  expect(existsSync(join(dir, 'c', 'd', 'log.jsonl'))).toBe(true);
});

test('--out is checked before any work: a file at it or above it', () => {
  const file = join(dir, 'plain');
  writeFileSync(file, '');
  expect(() => checkOutDir(file)).toThrow(`${file}: exists and is not a directory (--out)`);
  expect(() => checkOutDir(join(file, 'sub', 'deeper'))).toThrow(`${file} is a file, not a directory (--out)`);
  expect(() => checkOutDir(join(dir, 'new', 'out'))).not.toThrow();
  expect(existsSync(join(dir, 'new'))).toBe(false);
});

test('makeDirs makes each missing directory and returns the first; under /proc it fails instead of spinning', () => {
  const top = join(dir, 'm1');
  expect(makeDirs(join(top, 'm2', 'm3'))).toBe(top);
  expect(existsSync(join(top, 'm2', 'm3'))).toBe(true);
  expect(makeDirs(join(top, 'm2'))).toBeUndefined();
  if (existsSync('/proc/self')) expect(() => makeDirs('/proc/routerbench-x/y')).toThrow();
});
