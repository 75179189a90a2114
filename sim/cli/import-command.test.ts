import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, expect, test, vi } from 'vitest';
import { readEventLogFile } from '../eventlog/event-log-reader.ts';
import { InputError } from '../eventlog/input-error.ts';
import { registerImportCommand } from './import-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-import-'));
const program = () => {
  const p = new Command().exitOverride();
  registerImportCommand(p);
  return p;
};
afterEach(() => vi.restoreAllMocks());

const ROUTE = {
  type: 'ADDED',
  object: {
    apiVersion: 'route.openshift.io/v1',
    kind: 'Route',
    metadata: { name: 'a', namespace: 'ns', creationTimestamp: '2026-11-29T10:00:00Z' },
    spec: { host: 'a.example.com', to: { kind: 'Service', name: 'web' } },
  },
};

test('import writes a v1 log readable by the event-log reader, and reports skipped objects on stderr', async () => {
  const input = join(dir, 'watch.json');
  writeFileSync(input, `${JSON.stringify(ROUTE, null, 2)}\n{"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod"}}\n`);
  const out = join(dir, 'out.jsonl');
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  await program().parseAsync(['import', input, '-o', out], { from: 'user' });
  // The first object's time is the log's 0, and the route was created then.
  expect([...readEventLogFile(out)]).toEqual([{ at: 0, type: 'route.upsert', route: { namespace: 'ns', name: 'a', host: 'a.example.com', service: 'web', createdAt: 0 } }]);
  expect(JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!)).toMatchObject({ routerbench: 'eventlog', version: 1, source: 'kubernetes-watch' });
  const said = stderr.mock.calls.map((c) => String(c[0])).join('');
  expect(said).toContain(`${input}:20:1: field 'object.kind': Pod: unsupported object "v1" "Pod"`);
  expect(said).toContain('imported 1 events from 2 objects; 1 skipped');
});

test('--strict refuses the input and writes nothing', async () => {
  const input = join(dir, 'strict.json');
  writeFileSync(input, `${JSON.stringify(ROUTE)}\n{"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod"}}\n`);
  const out = join(dir, 'strict.jsonl');
  await expect(program().parseAsync(['import', input, '--strict', '-o', out], { from: 'user' })).rejects.toBeInstanceOf(InputError);
  expect(existsSync(out)).toBe(false);
});

test('a missing input file is an input error', async () => {
  await expect(program().parseAsync(['import', join(dir, 'none.json')], { from: 'user' })).rejects.toBeInstanceOf(InputError);
});

test('a directory given as the input is an input error naming it (it was an EISDIR crash)', async () => {
  await expect(program().parseAsync(['import', dir], { from: 'user' })).rejects.toThrow(`${dir}: is a directory`);
});

test('bytes that are not UTF-8 are an input error naming the byte, not names full of U+FFFD', async () => {
  const input = join(dir, 'latin1.json');
  const text = JSON.stringify(ROUTE).replace('"name":"a"', '"name":"a\u00e9"');
  // Written as Latin-1: é is the single byte 0xe9.
  writeFileSync(input, Buffer.from(text, 'latin1'));
  const at = Buffer.from(text, 'latin1').indexOf(0xe9) + 1;
  await expect(program().parseAsync(['import', input], { from: 'user' })).rejects.toThrow(`not UTF-8 text: byte 0xe9 at byte ${at} of the input`);
});
