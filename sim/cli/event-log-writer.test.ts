import { Writable } from 'node:stream';
import { expect, test } from 'vitest';
import type { InputEvent } from '../../core/events.ts';
import { eventLogChunks, eventLogHeader, writeEventLogToStream } from './event-log-writer.ts';

function* many(n: number): Generator<InputEvent> {
  for (let i = 0; i < n; i++) yield { at: i, type: 'network.heal' };
}

test('chunks hold whole lines: header first, one event per line', () => {
  const text = [...eventLogChunks(eventLogHeader({ seed: 3 }), many(20_000))].join('');
  const lines = text.trimEnd().split('\n');
  expect(lines[0]).toBe('{"routerbench":"eventlog","version":1,"seed":3}');
  expect(lines).toHaveLength(20_001);
  expect(lines[20_000]).toBe('{"at":19999,"type":"network.heal"}');
});

test('a reader that goes away (EPIPE) ends the writing quietly, and the events stop being pulled', async () => {
  let writes = 0;
  const out = new Writable({
    highWaterMark: 1,
    write(_chunk, _enc, cb) {
      writes++;
      if (writes === 2) {
        const err: NodeJS.ErrnoException = new Error('write EPIPE');
        err.code = 'EPIPE';
        cb(err);
      } else cb();
    },
  });
  let pulled = 0;
  function* counted(): Generator<InputEvent> {
    for (const e of many(1_000_000)) {
      pulled++;
      yield e;
    }
  }
  await expect(writeEventLogToStream(out, eventLogHeader(), counted())).resolves.toBeGreaterThan(0);
  expect(pulled).toBeLessThan(1_000_000);
});

test('another stream error is thrown', async () => {
  const out = new Writable({
    write(_chunk, _enc, cb) {
      cb(Object.assign(new Error('disk full'), { code: 'ENOSPC' }));
    },
  });
  await expect(writeEventLogToStream(out, eventLogHeader(), many(100_000))).rejects.toThrow(/disk full/);
});
