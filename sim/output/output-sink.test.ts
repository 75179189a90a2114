import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { INPUT_EVENT_TYPES, type InputEventType } from '../../core/events.ts';
import { recordLine } from './output-sink.ts';
import type { OutputRecord } from './records.ts';

describe('an output record as its line', () => {
  // The input record is written by hand: it must be exactly what JSON.stringify writes for it.
  test.prop([fc.nat({ max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(...INPUT_EVENT_TYPES), fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('ns/web', 'a"b\\c', '\u2028', '\ud800'))])(
    'is JSON.stringify of an input record, byte for byte',
    (atUs, event, subject) => {
      const r: OutputRecord = { atUs, type: 'input', event: event as InputEventType, subject };
      expect(recordLine(r)).toBe(JSON.stringify(r) + '\n');
    },
  );

  test.prop([fc.nat(), fc.string()])('is JSON.stringify of any other record', (atUs, message) => {
    const r: OutputRecord = { atUs, type: 'note', message };
    expect(recordLine(r)).toBe(JSON.stringify(r) + '\n');
  });
});
