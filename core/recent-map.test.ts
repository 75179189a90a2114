import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RecentMap } from './recent-map.ts';

describe('RecentMap', () => {
  it('keeps a key used in every generation, and forgets one unused for a whole generation', () => {
    const m = new RecentMap<string, number>(2);
    m.set('hot', 1);
    m.set('cold', 2);
    // The third key starts a generation: hot and cold are now the previous one.
    m.set('a', 3);
    expect(m.get('hot')).toBe(1); // carried into the current generation (now a, hot: full)
    m.set('b', 4); // current full: a new generation starts with b; previous = {a, hot}
    expect(m.get('cold')).toBeUndefined();
    expect(m.get('hot')).toBe(1);
  });

  // A reference model: the same answers as a plain map for every key still held, and never more than 2 × max.
  test.prop([fc.integer({ min: 1, max: 8 }), fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 30 })), { maxLength: 300 })])(
    'answers what was last set for a key, or nothing, and holds at most 2 × max entries',
    (max, ops) => {
      const m = new RecentMap<number, number>(max);
      const model = new Map<number, number>();
      ops.forEach(([isSet, key], i) => {
        if (isSet) {
          m.set(key, i);
          model.set(key, i);
        } else {
          const got = m.get(key);
          if (got !== undefined) expect(got).toBe(model.get(key));
        }
        expect(m.size).toBeLessThanOrEqual(2 * max);
      });
    },
  );
});
