import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ddmin, split } from './ddmin.ts';

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('ddmin', () => {
  it('cuts 0..15 to the two items the failure needs', async () => {
    // Fails iff both 3 and 7 are present: the only 1-minimal failing subsequence is [3, 7].
    const r = await ddmin(range(16), (s) => s.includes(3) && s.includes(7));
    expect(r.items).toEqual([3, 7]);
    expect(r.stopped).toBe(false);
  });

  it('returns the empty sequence when the failure needs no item', async () => {
    const r = await ddmin(range(5), () => true);
    expect(r).toEqual({ items: [], tests: 1, stopped: false });
  });

  it('tests each distinct subsequence once, and is deterministic', async () => {
    const calls: string[] = [];
    const fails = (s: number[]): boolean => {
      calls.push(s.join(','));
      return s.filter((x) => x % 5 === 0).length >= 3;
    };
    const a = await ddmin(range(30), fails);
    expect(new Set(calls).size).toBe(calls.length);
    expect(a.tests).toBe(calls.length);
    const b = await ddmin(range(30), (s) => s.filter((x) => x % 5 === 0).length >= 3);
    expect(b).toEqual(a);
    // Three multiples of 5 are needed and suffice: any 1-minimal result is exactly three of them.
    expect(a.items).toHaveLength(3);
    expect(a.items.every((x) => x % 5 === 0)).toBe(true);
  });

  it('stops when asked, with a sequence that still fails', async () => {
    const fails = (s: number[]): boolean => s.includes(3) && s.includes(7);
    let tests = 0;
    const r = await ddmin(range(64), fails, { shouldStop: () => tests >= 3, onProgress: (p) => (tests = p.tests) });
    expect(r.stopped).toBe(true);
    expect(r.tests).toBe(3);
    expect(fails(r.items)).toBe(true);
    expect(r.items.length).toBeLessThan(64);
  });

  test.prop([fc.uniqueArray(fc.integer({ min: 0, max: 39 }), { minLength: 1, maxLength: 6 })])('finds exactly the required items of a superset failure', async (required) => {
    const r = await ddmin(range(40), (s) => required.every((x) => s.includes(x)));
    expect(r.items).toEqual([...required].sort((a, b) => a - b));
  });

  test.prop([fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 24 }), fc.integer({ min: 1, max: 4 })])(
    'the result fails and is 1-minimal for a non-monotone failure',
    async (items, k) => {
      // Fails when the sum is ≥ 4k and odd: removing an item can make it pass or fail again (not monotone).
      const fails = (s: number[]): boolean => {
        const sum = s.reduce((a, b) => a + b, 0);
        return sum >= 4 * k && sum % 2 === 1;
      };
      fc.pre(fails(items));
      const r = await ddmin(items, fails);
      expect(fails(r.items)).toBe(true);
      for (let i = 0; i < r.items.length; i++) expect(fails(r.items.filter((_, j) => j !== i))).toBe(false);
    },
  );
});

describe('split', () => {
  it('makes n contiguous parts, the longer first', () => {
    expect(split(range(7), 3)).toEqual([[0, 1, 2], [3, 4], [5, 6]]);
    expect(split(range(2), 4)).toEqual([[0], [1]]);
  });
});
