import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { MapEntry } from '../../core/haproxy/config-model.ts';
import { recordLineage, type ListEdit } from '../../core/list-lineage.ts';
import { MapEntriesAtLoad } from './map-entries-at-load.ts';
import { PointerSource, type MockMapEntry } from './map-state.ts';

const line = (key: string, value = 'be'): MapEntry => ({ key, value });

describe('MapEntriesAtLoad', () => {
  it('hands on the entries of the lines a reload kept, and makes new ones for the lines it changed', () => {
    const pointers = new PointerSource();
    const atLoad = new MapEntriesAtLoad('m.map');
    const [a, b, c, d] = [line('^a'), line('^b'), line('^c'), line('^d')];
    const first = atLoad.build([a, b, c], pointers);
    // b re-rendered (a new object with the same text), d added after c.
    const b2 = line('^b');
    const second = atLoad.build([a, b2, c, d], pointers);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[2]).toBe(first[2]);
    expect(second.map((e) => [e.key, e.value, e.version, e.removed])).toEqual([
      ['^a', 'be', 0, false],
      ['^b', 'be', 0, false],
      ['^c', 'be', 0, false],
      ['^d', 'be', 0, false],
    ]);
    // Five pointers in all: three at the first load, one each for b2 and d.
    expect(new Set([...first, ...second].map((e) => e.ref)).size).toBe(5);
  });

  it('does not hand on an entry a command took out, and gives the map a list of its own', () => {
    const pointers = new PointerSource();
    const atLoad = new MapEntriesAtLoad('m.map');
    const lines = [line('^a'), line('^b')];
    const first = atLoad.build(lines, pointers);
    const [takenOut, stayed] = first;
    // `del map` on the map's list: the entry is marked and leaves the list; the builder's own is untouched.
    takenOut!.markRemoved();
    first.splice(0, 1);
    const second = atLoad.build(lines, pointers);
    expect(second).toHaveLength(2);
    expect(second[0]).not.toBe(takenOut);
    expect(second[0]!.removed).toBe(false);
    expect(second[0]!.ref).not.toBe(takenOut!.ref);
    expect(second[1]).toBe(stayed);
  });
});

/**
 * A reload's edit of a map file: lines kept as the same objects (as the renderer hands them over), a line
 * inserted, dropped or re-rendered, several lines at once, or a whole new file; and, during the load before,
 * some entries taken out by commands.
 */
type Edit = { kind: 'insert' | 'drop' | 'rerender'; at: number; count: number } | { kind: 'fresh'; size: number } | { kind: 'same' };
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constantFrom('insert' as const, 'drop' as const, 'rerender' as const), at: fc.nat(40), count: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant('fresh' as const), size: fc.nat(30) }),
  fc.record({ kind: fc.constant('same' as const) }),
);

describe('MapEntriesAtLoad (property)', () => {
  // Each step is a load (passOver), which builds the map or not (no command reached it), and then tells the
  // builder what it needs to skip the walk (the map's entries taken out, and how the next lines were made
  // from these: their lineage, as the renderer records it) or not, at random.
  test.prop([fc.array(fc.tuple(edit, fc.array(fc.nat(40), { maxLength: 4 }), fc.boolean(), fc.boolean()), { maxLength: 25 }), fc.integer({ min: 0, max: 30 })])(
    'every load starts with the config lines as entries at version 0, none taken out, pointers distinct; an entry handed on stands for the very same line and was never taken out',
    (edits, initial) => {
      const pointers = new PointerSource();
      const atLoad = new MapEntriesAtLoad('m.map');
      let n = 0;
      const fresh = (): MapEntry => line(`^k${n++}`, `v${n}`);
      let lines: MapEntry[] = Array.from({ length: initial }, fresh);
      /** The last build's lines and entries. */
      let last: { lines: readonly MapEntry[]; entries: readonly MockMapEntry[] } | undefined;
      const madeFor = new Map<MockMapEntry, MapEntry>();
      /** The builder was told everything since the last build: its entries taken out and every lineage. */
      let told = false;
      for (const [e, removals, tell, builds] of edits) {
        atLoad.passOver(lines);
        if (builds || last === undefined) {
          const entries = atLoad.build(lines, pointers);
          expect(entries.map((x) => [x.key, x.value, x.version, x.removed])).toEqual(lines.map((l) => [l.key, l.value, 0, false]));
          expect(new Set(entries.map((x) => x.ref)).size).toBe(entries.length);
          for (let i = 0; i < entries.length; i++) {
            const x = entries[i]!;
            const before = madeFor.get(x);
            // A handed-on entry was made for this very line object; a new one is recorded as made for it.
            if (before !== undefined) expect(before).toBe(lines[i]);
            else madeFor.set(x, lines[i]!);
          }
          if (last !== undefined) {
            // A line kept in place right after the previous match is handed on unless taken out.
            const keptAll = last.lines.length === lines.length && last.lines.every((l, i) => l === lines[i]);
            if (keptAll) last.entries.forEach((x, i) => expect(entries[i] === x).toBe(!x.removed));
            // Told how the lines were made, load after load, the builder hands on every kept line's entry
            // not taken out.
            if (told) {
              const before = new Map(last.lines.map((l, i) => [l, last!.entries[i]!]));
              lines.forEach((l, i) => {
                const x = before.get(l);
                if (x !== undefined) expect(entries[i] === x).toBe(!x.removed);
              });
            }
          }
          last = { lines, entries };
          const takenOut: MockMapEntry[] = [];
          for (const r of removals) {
            if (entries.length === 0) continue;
            const x = entries[r % entries.length]!;
            x.markRemoved();
            takenOut.push(x);
          }
          told = tell;
          if (tell) atLoad.builtInto({ takenOut });
        }
        const next = apply(lines, e, fresh);
        told &&= tell && next.edits !== undefined;
        if (tell && next.edits !== undefined && next.lines !== lines) recordLineage(next.lines, lines, next.edits);
        lines = next.lines;
      }
    },
  );

  it('a load that builds nothing still takes in the lines, so that a later build hands on what stayed', () => {
    const pointers = new PointerSource();
    const atLoad = new MapEntriesAtLoad('m.map');
    // Ten lines before b: more than a walk looks ahead (LOOK_AHEAD), so only lineage finds b again.
    const dropped = Array.from({ length: 10 }, (_, i) => line(`^d${i}`));
    const b = line('^b');
    const c = line('^c');
    const first = [...dropped, b];
    atLoad.passOver(first);
    const built = atLoad.build(first, pointers);
    atLoad.builtInto({ takenOut: [] });
    // Two loads without a build: the ten lines dropped, then c added.
    const second = [b];
    recordLineage(second, first, dropped.map((value) => ({ at: 0, insert: false, value })));
    atLoad.passOver(second);
    const third = [b, c];
    recordLineage(third, second, [{ at: 1, insert: true, value: c }]);
    atLoad.passOver(third);
    const entries = atLoad.build(third, pointers);
    expect(entries[0]).toBe(built[10]);
    expect(entries[1]!.key).toBe('^c');
    expect(new Set([...built, ...entries].map((x) => x.ref)).size).toBe(12);
  });
});

/** The lines after the edit, and the edits as the renderer would record them (none for a whole new file). */
function apply(lines: MapEntry[], e: Edit, fresh: () => MapEntry): { lines: MapEntry[]; edits: ListEdit<MapEntry>[] | undefined } {
  const out = lines.slice();
  const edits: ListEdit<MapEntry>[] = [];
  switch (e.kind) {
    case 'same':
      // The renderer hands an unchanged file's list over again.
      return { lines, edits };
    case 'fresh':
      return { lines: Array.from({ length: e.size }, fresh), edits: undefined };
    case 'insert': {
      const at = Math.min(e.at, out.length);
      for (let k = 0; k < e.count; k++) {
        const l = fresh();
        out.splice(at + k, 0, l);
        edits.push({ at: at + k, insert: true, value: l });
      }
      return { lines: out, edits };
    }
    case 'drop': {
      const at = Math.min(e.at, out.length);
      for (const l of out.splice(at, e.count)) edits.push({ at, insert: false, value: l });
      return { lines: out, edits };
    }
    case 'rerender':
      for (let i = Math.min(e.at, out.length); i < Math.min(e.at + e.count, out.length); i++) {
        edits.push({ at: i, insert: false, value: out[i]! });
        out[i] = { ...out[i]! };
        edits.push({ at: i, insert: true, value: out[i]! });
      }
      return { lines: out, edits };
  }
}
