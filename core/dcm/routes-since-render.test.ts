import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { routeKey, type Route } from '../route.ts';
import { keptAtReloadEnd, RoutesSinceRender } from './routes-since-render.ts';

const KEYS = 2;
const VERSIONS = 2;

type Op =
  | { op: 'upsert'; k: number; v: number }
  | { op: 'delete'; k: number }
  | { op: 'render' }
  | { op: 'entry'; k: number; v: number }
  | { op: 'reloadEnd' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('upsert' as const), k: fc.nat(KEYS - 1), v: fc.nat(VERSIONS - 1) }),
  fc.record({ op: fc.constant('delete' as const), k: fc.nat(KEYS - 1) }),
  fc.record({ op: fc.constant('render' as const) }),
  fc.record({ op: fc.constant('entry' as const), k: fc.nat(KEYS - 1), v: fc.nat(VERSIONS - 1) }),
  fc.record({ op: fc.constant('reloadEnd' as const) }),
);

describe('RoutesSinceRender', () => {
  // A router's routes under a few keys, each key with a few route objects that can come back (a test or an
  // admission step may hand the same object over again), entries for current and stale route objects, and
  // renders and reload ends in any order: the entries kept are those the rule keeps, entry by entry.
  test.prop([fc.array(opArb, { maxLength: 60 })], {
    numRuns: 1000,
    // The render wrote the route, which then went and came back as the same object: written, so not kept.
    examples: [[[{ op: 'upsert', k: 0, v: 0 }, { op: 'render' }, { op: 'delete', k: 0 }, { op: 'upsert', k: 0, v: 0 }, { op: 'entry', k: 0, v: 0 }, { op: 'reloadEnd' }]]],
  })('keeps exactly the entries keptAtReloadEnd keeps', (ops) => {
    const objects: Route[][] = Array.from({ length: KEYS }, (_, k) =>
      Array.from({ length: VERSIONS }, (_, v) => ({ namespace: 'ns', name: `r${k}`, host: `v${v}.example.com`, service: 'svc' })),
    );
    const since = new RoutesSinceRender();
    const current = new Map<string, Route>();
    let written = new Map<string, Route>();
    let entries = new Map<string, { route: Route }>();
    for (const o of ops) {
      if (o.op === 'upsert') {
        const route = objects[o.k]![o.v]!;
        const key = routeKey(route);
        // The same route again is no change (applyChurn answers null): nobody is told.
        if (current.get(key) === route) continue;
        current.set(key, route);
        since.changed(route, written.get(key));
      } else if (o.op === 'delete') {
        current.delete(routeKey(objects[o.k]![0]!));
      } else if (o.op === 'render') {
        written = new Map(current);
        since.rendered();
      } else if (o.op === 'entry') {
        const route = objects[o.k]![o.v]!;
        entries.set(routeKey(route), { route });
      } else {
        const plain = [...entries].filter(([key, e]) => keptAtReloadEnd(e, written.get(key), current.get(key)));
        const kept = since.kept(entries, current);
        expect(new Map(kept)).toEqual(new Map(plain));
        // Identity, not only equal contents: the manager keeps the entry objects themselves.
        for (const [key, e] of kept) expect(e).toBe(entries.get(key));
        entries = new Map(kept);
      }
    }
  });

  it('keeps the entry of a route added after the render, and drops the one the render wrote', () => {
    const a: Route = { namespace: 'ns', name: 'a', host: 'a.example.com', service: 's' };
    const b: Route = { namespace: 'ns', name: 'b', host: 'b.example.com', service: 's' };
    const since = new RoutesSinceRender();
    since.changed(a, undefined);
    since.rendered();
    since.changed(b, undefined);
    const entries = new Map([
      ['ns/a', { route: a }],
      ['ns/b', { route: b }],
    ]);
    const current = new Map([
      ['ns/a', a],
      ['ns/b', b],
    ]);
    expect(since.kept(entries, current)).toEqual([['ns/b', { route: b }]]);
  });
});
