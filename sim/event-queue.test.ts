import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { EventQueue } from './event-queue.ts';

describe('EventQueue', () => {
  test.prop([fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 300 })])(
    'pops in (time, insertion order), whatever the insertion order',
    (times) => {
      const q = new EventQueue();
      const fired: Array<[number, number]> = [];
      times.forEach((t, i) => q.push(t, () => void fired.push([t, i])));
      for (let e = q.pop(); e; e = q.pop()) e.fire();
      const expected = times.map((t, i) => [t, i] as [number, number]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      expect(fired).toEqual(expected);
    },
  );

  test.prop([fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.boolean()), { maxLength: 200 })])(
    'skips cancelled entries',
    (items) => {
      const q = new EventQueue();
      const fired: number[] = [];
      items.forEach(([t, cancel], i) => {
        const e = q.push(t, () => void fired.push(i));
        if (cancel) e.cancelled = true;
      });
      for (let e = q.pop(); e; e = q.pop()) e.fire();
      const expected = items
        .map(([t, cancel], i) => ({ t, cancel, i }))
        .filter((x) => !x.cancel)
        .sort((a, b) => a.t - b.t || a.i - b.i)
        .map((x) => x.i);
      expect(fired).toEqual(expected);
    },
  );
});
