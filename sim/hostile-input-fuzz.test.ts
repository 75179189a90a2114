import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect } from 'vitest';
import { projectReport } from '../reports/project-report.ts';
import { writeEventLogFile } from './cli/event-log-writer.ts';
import { readEventLogFile } from './eventlog/event-log-reader.ts';
import { MESSAGE_MAX_CHARS } from './eventlog/excerpt.ts';
import { InputError, InputErrors, MAX_REPORTED_PROBLEMS } from './eventlog/input-error.ts';
import { importWatch } from './import/import-watch.ts';
import { loadRunInput } from './load-input.ts';
import { readOutputLog } from './output/output-log-reader.ts';
import { JsonlFileSink, nullSink } from './output/output-sink.ts';
import { headerOf, runOne } from './run.ts';

/**
 * Random bytes and random near-valid documents (a valid one with lines deleted, repeated, swapped, cut or
 * overwritten) fed to each reader of user input: the event log reader, the scenario loader, `report`'s
 * output log reader and `import`. Each either reads the input (and, for a scenario, runs it) or refuses it
 * with an InputError (exit 2) whose message is bounded and one line; nothing else escapes, memory stays
 * bounded (the line and object limits are small here), and a refused import writes no file.
 */
const dir = mkdtempSync(join(tmpdir(), 'rb-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (name: string, content: string | Uint8Array): string => {
  const f = join(dir, `${n++}-${name}`);
  writeFileSync(f, content);
  return f;
};

/** Refused as bad input, with a bounded one-line message; any other error is a bug and fails the test. */
function refusedOrRead(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    // One line per problem: several only from InputErrors, and at most MAX_REPORTED_PROBLEMS and a count.
    const lines = err.message.split('\n');
    if (lines.length > 1) expect(err).toBeInstanceOf(InputErrors);
    expect(lines.length).toBeLessThanOrEqual(MAX_REPORTED_PROBLEMS + 1);
    for (const line of lines) {
      // The location and the field come on top of the bounded excerpt of the detail.
      expect(line.length).toBeLessThan(MESSAGE_MAX_CHARS + 600);
      expect(line).not.toMatch(/[\r\u0000]/);
    }
  }
}

type Edit = { op: 'delete' | 'repeat' | 'swap' | 'cut' | 'overwrite'; at: number; to: number; text: string };
const edit: fc.Arbitrary<Edit> = fc.record({
  op: fc.constantFrom('delete', 'repeat', 'swap', 'cut', 'overwrite'),
  at: fc.nat(),
  to: fc.nat(),
  text: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('\u0000', '"', '{', '}', '\n', '-1', '1e300', 'null', ' ', ':', '- ', '&a', '*a', '!!binary')),
});

/** A valid document with a few edits: most lines stay as they were, so the readers get past line 1. */
function mutated(valid: string, edits: readonly Edit[]): string {
  const lines = valid.split('\n');
  for (const e of edits) {
    if (lines.length === 0) break;
    const i = e.at % lines.length;
    const j = e.to % lines.length;
    const line = lines[i]!;
    if (e.op === 'delete') lines.splice(i, 1);
    else if (e.op === 'repeat') lines.splice(i, 0, line);
    else if (e.op === 'swap') [lines[i], lines[j]] = [lines[j]!, line];
    else if (e.op === 'cut') lines[i] = line.slice(0, e.to % (line.length + 1));
    else lines[i] = line.slice(0, e.to % (line.length + 1)) + e.text + line.slice((e.to % (line.length + 1)) + e.text.length);
  }
  return lines.join('\n');
}

const bytes = fc.uint8Array({ maxLength: 300 });
const edits = fc.array(edit, { minLength: 1, maxLength: 4 });
const HEAP_BOUND = 256 * 1024 * 1024;
const heapBefore = process.memoryUsage().heapUsed;

const EVENT_LOG = [
  '{"routerbench":"eventlog","version":1}',
  '{"at":0,"type":"route.upsert","route":{"namespace":"shop","name":"web","host":"web.example.com","service":"web"}}',
  '{"at":0,"type":"endpoints.set","namespace":"shop","service":"web","endpoints":[{"ip":"10.128.0.1","port":8080}]}',
  '{"at":5000,"type":"endpoints.set","namespace":"shop","service":"web","endpoints":[{"ip":"10.128.0.1","port":8080},{"ip":"10.128.0.2","port":8080,"name":"web-2"}]}',
  '{"at":9000,"type":"route.delete","namespace":"shop","name":"web"}',
].join('\n');

const SCENARIO = readFileSync(join(import.meta.dirname, '..', 'scenarios', 'route-burst.yaml'), 'utf8');

const OUTPUT_LOG = (() => {
  const f = join(dir, 'written.jsonl');
  const input = loadRunInput(join(import.meta.dirname, '..', 'scenarios', 'route-burst.yaml'));
  const sink = new JsonlFileSink(f, headerOf(input));
  runOne(input, sink);
  sink.commit();
  return readFileSync(f, 'utf8');
})();

const WATCH = JSON.stringify(
  {
    type: 'ADDED',
    object: { apiVersion: 'route.openshift.io/v1', kind: 'Route', metadata: { name: 'a', namespace: 'ns', creationTimestamp: '2026-11-29T10:00:00Z' }, spec: { host: 'a.example.com', to: { kind: 'Service', name: 'web' } } },
  },
  null,
  2,
);

describe('hostile input, at random', () => {
  test.prop([fc.oneof(bytes.map((b) => Buffer.from(b)), edits.map((e) => mutated(EVENT_LOG, e)))], { numRuns: 150 })('the event log reader reads or refuses', (content) => {
    const log = file('log.jsonl', content);
    refusedOrRead(() => void [...readEventLogFile(log, { maxLineBytes: 400 })]);
  });

  test.prop([fc.oneof(bytes.map((b) => Buffer.from(b)), edits.map((e) => mutated(SCENARIO, e)))], { numRuns: 60 })('the scenario loader loads and runs, or refuses', (content) => {
    const scenario = file('s.yaml', content);
    refusedOrRead(() => void runOne(loadRunInput(scenario), nullSink));
  });

  test.prop([fc.oneof(bytes.map((b) => Buffer.from(b)), edits.map((e) => mutated(OUTPUT_LOG, e)))], { numRuns: 100 })('report\'s reader folds or refuses', (content) => {
    const log = file('output.jsonl', content);
    refusedOrRead(() => {
      const { header, records } = readOutputLog(log);
      projectReport(header, records);
    });
  });

  test.prop([fc.oneof(fc.string({ maxLength: 300 }), edits.map((e) => mutated(WATCH, e))), fc.boolean()], { numRuns: 150 })('import converts or refuses, and a refusal writes nothing', (text, strict) => {
    const out = join(dir, `${n++}-imported.jsonl`);
    let refused = false;
    refusedOrRead(() => {
      try {
        writeEventLogFile(out, '{"routerbench":"eventlog","version":1}', importWatch([text], { file: 'watch.json', strict, maxObjectChars: 200 }));
      } catch (err) {
        refused = true;
        throw err;
      }
    });
    expect(existsSync(out)).toBe(!refused);
    // No temporary file is left beside it either.
    expect(readdirSync(dir).filter((f) => f.includes('imported.jsonl.tmp'))).toEqual([]);
  });

  test('memory stayed bounded over all of it', () => {
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(HEAP_BOUND);
  });
});
