import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { BackendNames, listChanges } from './backend-names.ts';

// Listings drawn from a few names so that successive ones share heads and tails, repeat names, and now and
// then change more than the incremental update takes on (lists of up to 200 names).
const listing = fc.oneof(
  fc.array(fc.constantFrom('be_a', 'be_b', 'be_c', 'be_d', 'be_e'), { maxLength: 12 }),
  fc.array(fc.integer({ min: 0, max: 300 }).map((i) => `be_${i}`), { maxLength: 200 }),
);

test.prop([fc.array(listing, { minLength: 1, maxLength: 10 })])('after any sequence of listings it holds exactly the names of the last one', (listings) => {
  const names = new BackendNames();
  for (const list of listings) {
    names.update(list);
    const want = new Set(list);
    expect(names.size).toBe(want.size);
    for (const n of ['be_a', 'be_b', 'be_c', 'be_d', 'be_e', 'be_0', 'be_7', 'be_150', 'be_300', ...list]) expect(names.has(n)).toBe(want.has(n));
  }
});

test.prop([fc.array(fc.integer({ min: 0, max: 50 }).map((i) => `be_${i}`), { maxLength: 100 }), fc.nat(100), fc.nat(3), fc.nat(3)])(
  'a listing with a few names dropped and added in one place keeps the others',
  (list, at, drop, add) => {
    const names = new BackendNames();
    names.update(list);
    const i = Math.min(at, list.length);
    const next = [...list.slice(0, i), ...Array.from({ length: add }, (_, k) => `new_${k}`), ...list.slice(Math.min(list.length, i + drop))];
    names.update(next);
    const want = new Set(next);
    expect(names.size).toBe(want.size);
    for (const n of [...list, ...next]) expect(names.has(n)).toBe(want.has(n));
  },
);

test.prop([fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 30 }), fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 30 })])(
  'listChanges pairs what it keeps: the old list without its dropped places is the new one without its added places',
  (old, next) => {
    const c = listChanges(old, next, 100)!;
    expect(old.filter((_, i) => !c.dropped.includes(i))).toEqual(next.filter((_, j) => !c.added.includes(j)));
    // `first` is where the lists start to differ: the length of their common head.
    let head = 0;
    while (head < old.length && head < next.length && old[head] === next[head]) head++;
    expect(c.first).toBe(head === old.length && head === next.length ? next.length : head);
    // Over the limit it declines.
    if (c.dropped.length + c.added.length > 0) expect(listChanges(old, next, c.dropped.length + c.added.length - 1)).toBeUndefined();
  },
);
