import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { editsSince, LINEAGE_DEPTH, lineageOf, recordLineage, type ListEdit } from './list-lineage.ts';

/** A list's next version: each step a splice of one at a place drawn from the list's length. */
const step = fc.array(fc.tuple(fc.boolean(), fc.nat()), { maxLength: 4 });

function applied<T>(list: readonly T[], edits: readonly ListEdit<T>[]): T[] {
  const out = list.slice();
  for (const e of edits) {
    if (e.insert) out.splice(e.at, 0, e.value);
    else expect(out.splice(e.at, 1)).toEqual([e.value]);
  }
  return out;
}

// Short chains, and chains long enough to be cut more than once.
const steps = fc.oneof(fc.array(step, { minLength: 1, maxLength: LINEAGE_DEPTH + 2 }), fc.array(step, { minLength: 2 * LINEAGE_DEPTH + 1, maxLength: 5 * LINEAGE_DEPTH }));

test.prop([steps], { numRuns: 100 })(
  "the edits since any of the last LINEAGE_DEPTH lists make the newest from it; past twice that many, older ones are let go",
  (steps) => {
    let n = 0;
    const lists: number[][] = [[]];
    for (const s of steps) {
      const from = lists.at(-1)!;
      const list = from.slice();
      const edits: ListEdit<number>[] = [];
      for (const [insert, at] of s) {
        if (insert || list.length === 0) {
          const i = at % (list.length + 1);
          list.splice(i, 0, n);
          edits.push({ at: i, insert: true, value: n++ });
        } else {
          const i = at % list.length;
          edits.push({ at: i, insert: false, value: list.splice(i, 1)[0]! });
        }
      }
      recordLineage(list, from, edits);
      lists.push(list);
    }
    const newest = lists.at(-1)!;
    for (let back = 0; back < lists.length; back++) {
      const earlier = lists[lists.length - 1 - back]!;
      const edits = editsSince(newest, earlier);
      if (back <= LINEAGE_DEPTH) expect(applied(earlier, edits!)).toEqual(newest);
      else if (back > 2 * LINEAGE_DEPTH) expect(edits).toBeUndefined();
      else if (edits !== undefined) expect(applied(earlier, edits)).toEqual(newest);
    }
    // Through the lineages the newest list keeps at most 2 × LINEAGE_DEPTH lists before it alive.
    let kept = 0;
    for (let l = lineageOf(newest); l !== undefined; l = lineageOf(l.from)) kept++;
    expect(kept).toBeLessThanOrEqual(2 * LINEAGE_DEPTH);
    expect(kept).toBeGreaterThanOrEqual(Math.min(steps.length, LINEAGE_DEPTH));
    // A list that is no descendant has no edits from it.
    expect(editsSince(newest, [])).toBeUndefined();
  },
);
