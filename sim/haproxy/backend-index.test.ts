import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { BackendConfig } from '../../core/haproxy/config-model.ts';
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
  test.prop([fc.array(fc.array(edit, { maxLength: 4 }), { minLength: 1, maxLength: 30 })], { numRuns: 300 })(
    'answers what an index built afresh for each load answers',
    (loads) => {
      const index = new BackendIndex();
      let list: BackendConfig[] = [];
      for (const edits of loads) {
        list = list.slice();
        for (const e of edits) {
          const at = 'at' in e ? e.at % (list.length + 1) : 0;
          if (e.kind === 'add') list.splice(at, 0, backend(e.name));
          else if (e.kind === 'drop' && at < list.length) list.splice(at, 1);
          else if (e.kind === 'replace' && at < list.length) list[at] = backend(e.name);
          else if (e.kind === 'renew' && at < list.length) list[at] = backend(list[at]!.name);
          else if (e.kind === 'new') list = e.names.map(backend);
        }
        const names = list.map((b) => b.name);
        index.update(list);
        expect(index.names).toEqual(names);
        const plain = plainIndex(list);
        for (const [name, pos] of plain) expect(index.position(name)).toBe(pos);
        expect(index.position('not-a-backend-name')).toBeUndefined();
      }
    },
  );

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
