import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { INPUT_EVENT_TYPES, type InputEventType } from '../../core/events.ts';
import { RecordBytes } from './record-bytes.ts';
import type { OutputRecord } from './records.ts';

/** What the sink wrote before it wrote bytes itself: the record's JSON text, UTF-8 encoded. */
const expected = (records: readonly OutputRecord[]): Buffer => Buffer.from(records.map((r) => JSON.stringify(r) + '\n').join(''), 'utf8');

const written = (records: readonly OutputRecord[], capacity: number): Buffer => {
  const bytes = new RecordBytes(capacity);
  for (const r of records) bytes.append(r);
  return Buffer.from(bytes.bytes());
};

const subject = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ maxLength: 600 }), fc.constantFrom('ns/web', 'a"b\\c', '\u2028', '\ud800', 'x\ny', 'ü/ß'));
const atUs = fc.oneof(fc.nat({ max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(0, 9, 10, 99, 100, 1e6, 999_999_999, 1e9, 1e9 + 5, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 14_442_732_000, 86_400_000_000, 1e15 + 7, 1e15 - 1, Number.MAX_SAFE_INTEGER), fc.double({ min: 0, max: 1e9, noNaN: true }));
const input = fc.record({ atUs, type: fc.constant('input' as const), event: fc.constantFrom(...INPUT_EVENT_TYPES) as fc.Arbitrary<InputEventType>, subject });
const note = fc.record({ atUs: fc.nat(), type: fc.constant('note' as const), message: fc.string({ unit: 'binary' }) });
// Count records: the keys and counts a run writes, and what only a hand-made record holds (keys to escape,
// integer-like keys that an object lists first, counts that are no safe integer), which go to JSON.stringify.
const key = fc.oneof(fc.constantFrom('endpoints.set', 'endpoints.delete', 'endpoints-change', 'route-change', '7', '10', 'a"b', '\u00e9', ''), fc.string({ maxLength: 4 }));
const countValue = fc.oneof(fc.nat({ max: 100_000 }), fc.constantFrom(0, -0, 2 ** 31, Number.MAX_SAFE_INTEGER, 1.5, -1, 2 ** 53));
const counts = fc.dictionary(key, countValue, { maxKeys: 4 });
const inputCounts = fc.record({ atUs, type: fc.constant('input.counts' as const), events: counts });
const reloadCounts = fc.record({ atUs, type: fc.constant('reload.counts' as const), requests: counts });
const runtimeCounts = fc.record({ atUs, type: fc.constant('runtime.counts' as const), ok: fc.dictionary(fc.oneof(key, fc.constantFrom('set server', 'show servers', 'add map')), countValue, { maxKeys: 4 }) });

describe('output records as bytes', () => {
  // Input and count records are written by hand, byte by byte: they must be exactly JSON.stringify's line.
  test.prop([fc.array(fc.oneof(input, note, inputCounts, reloadCounts, runtimeCounts) as fc.Arbitrary<OutputRecord>, { maxLength: 40 }), fc.integer({ min: 1, max: 300 })])(
    'are the UTF-8 of JSON.stringify per line, whatever the starting capacity',
    (records, capacity) => {
      expect(written(records, capacity).equals(expected(records))).toBe(true);
    },
  );

  test('the same bytes past the bound of kept line tails (16,384 subjects per event type), and for subjects seen again after it', () => {
    const records: OutputRecord[] = [];
    for (let i = 0; i < 20_000; i++) records.push({ atUs: i, type: 'input', event: 'endpoints.set', subject: `ns/svc-${i}` });
    for (let i = 0; i < 100; i++) records.push({ atUs: 20_000 + i, type: 'input', event: 'endpoints.set', subject: `ns/svc-${i}` });
    expect(written(records, 1024).equals(expected(records))).toBe(true);
  });

  test('clear starts over in the same buffer', () => {
    const bytes = new RecordBytes(64);
    const r: OutputRecord = { atUs: 1000, type: 'input', event: 'endpoints.set', subject: 'ns-0/svc-0' };
    bytes.append(r);
    bytes.clear();
    bytes.append(r);
    expect(bytes.bytes().toString('utf8')).toBe('{"atUs":1000,"type":"input","event":"endpoints.set","subject":"ns-0/svc-0"}\n');
  });
});
