import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { BackendNames } from '../../core/dcm/backend-names.ts';
import type { BackendConfig } from '../../core/haproxy/config-model.ts';
import { lineageOf, recordLineage, type ListEdit } from '../../core/list-lineage.ts';
import { BackendIndex } from './backend-index.ts';

const backend = (name: string): BackendConfig => ({ name, mode: 'http', balance: 'roundrobin', servers: [] });

/** The plain index: every name at the position of its last backend. */
function plainIndex(list: readonly BackendConfig[]): Map<string, number> {
  const m = new Map<string, number>();
  list.forEach((b, i) => m.set(b.name, i));
  return m;
}

/**
 * A reload's edit of the previous list: a route added, one dropped, one replaced by another name, one
 * re-rendered (a new object of the same name), the same list, or a whole new list. Backends that stay are
 * handed over as the same objects, as the renderer does.
 */
const edit = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), at: fc.nat(), name: fc.string({ maxLength: 3 }) }),
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), name: fc.string({ maxLength: 3 }) }),
  fc.record({ kind: fc.constant('renew' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('same' as const) }),
  fc.record({ kind: fc.constant('new' as const), names: fc.array(fc.string({ maxLength: 3 }), { maxLength: 12 }) }),
);

describe('BackendIndex', () => {
  // Each load's list says how it was made from the one before (its lineage, as the renderer's does) or not,
  // at random: the index applies the edits or walks the lists, and either way answers alike. Its names say
  // how they were made too, and a client's BackendNames fed them holds the listing's names.
  test.prop([fc.array(fc.tuple(fc.array(edit, { maxLength: 4 }), fc.boolean()), { minLength: 1, maxLength: 30 })], { numRuns: 300 })(
    'answers what an index built afresh for each load answers',
    (loads) => {
      const index = new BackendIndex();
      const client = new BackendNames();
      let list: BackendConfig[] = [];
      for (const [edits, withLineage] of loads) {
        const before = list;
        list = list.slice();
        const made: ListEdit<BackendConfig>[] = [];
        let whole = false;
        for (const e of edits) {
          const at = 'at' in e ? e.at % (list.length + 1) : 0;
          if (e.kind === 'add') {
            list.splice(at, 0, backend(e.name));
            made.push({ at, insert: true, value: list[at]! });
          } else if (e.kind === 'drop' && at < list.length) {
            made.push({ at, insert: false, value: list[at]! });
            list.splice(at, 1);
          } else if (e.kind === 'replace' && at < list.length) {
            made.push({ at, insert: false, value: list[at]! });
            list[at] = backend(e.name);
            made.push({ at, insert: true, value: list[at]! });
          } else if (e.kind === 'renew' && at < list.length) list[at] = backend(list[at]!.name);
          else if (e.kind === 'new') {
            list = e.names.map(backend);
            whole = true;
          }
        }
        if (withLineage && !whole) recordLineage(list, before, made);
        const names = list.map((b) => b.name);
        index.update(list);
        expect(index.names).toEqual(names);
        const plain = plainIndex(list);
        for (const [name, pos] of plain) expect(index.position(name)).toBe(pos);
        expect(index.position('not-a-backend-name')).toBeUndefined();
        client.update(index.names);
        expect(client.size).toBe(new Set(names).size);
        for (const n of [...names, ...before.map((b) => b.name)]) expect(client.has(n)).toBe(names.includes(n));
      }
    },
  );

  it('applies a list\'s lineage without walking it: edits of names it does not hold make it index afresh', () => {
    const index = new BackendIndex();
    const first = ['a', 'b', 'c'].map(backend);
    index.update(first);
    const names = index.names;
    // b dropped, d put in before c: the edits say so; the backends that stay are new objects, which the walk
    // would pair by name, and the edits need not.
    const next = [backend('a'), backend('d'), backend('c')];
    recordLineage(next, first, [
      { at: 1, insert: false, value: first[1]! },
      { at: 1, insert: true, value: next[1]! },
    ]);
    index.update(next);
    expect(index.names).toEqual(['a', 'd', 'c']);
    expect([index.position('a'), index.position('d'), index.position('c'), index.position('b')]).toEqual([0, 1, 2, undefined]);
    // The names array says how it was made from the last one.
    expect(lineageOf(index.names)).toEqual({ from: names, edits: [{ at: 1, insert: false, value: 'b' }, { at: 1, insert: true, value: 'd' }] });
    // Edits that take out a name the index has not there are not of its list.
    const wrong = [backend('a'), backend('c')];
    recordLineage(wrong, next, [{ at: 1, insert: false, value: backend('x') }]);
    index.update(wrong);
    expect(index.names).toEqual(['a', 'c']);
    expect(index.position('c')).toBe(1);
  });

  it('hands out the same names array while a reload keeps the names', () => {
    const index = new BackendIndex();
    index.update(['a', 'b'].map(backend));
    const names = index.names;
    index.update(['a', 'b'].map(backend));
    expect(index.names).toBe(names);
    index.update(['a', 'c', 'b'].map(backend));
    expect(index.names).toEqual(['a', 'c', 'b']);
    expect(index.position('b')).toBe(2);
  });
});
