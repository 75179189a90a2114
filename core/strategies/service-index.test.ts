import { fc, test } from '@fast-check/vitest';
import { assert, describe, expect, it } from 'vitest';
import type { Endpoint } from '../endpoint.ts';
import { servedEndpoints } from '../haproxy/names.ts';
import { routeKey, serviceKey, type Route } from '../route.ts';
import { emptyRouterState } from '../router-state.ts';
import { sameServed, sameServedEndpoints, sameServedSince, ServiceIndex } from './service-index.ts';

// Few distinct values so duplicates, reorders and not-ready twins come up often.
const endpointArb: fc.Arbitrary<Endpoint> = fc
  .record({
    ip: fc.constantFrom('10.0.0.1', '10.0.0.2'),
    port: fc.constantFrom(80, 8080),
    name: fc.constantFrom(undefined, 'p1', 'p2'),
    ready: fc.constantFrom(undefined, true, false),
    portName: fc.constantFrom(undefined, 'http', 'web'),
  })
  .map(({ ip, port, name, ready, portName }) => ({ ip, port, ...(name !== undefined && { name }), ...(ready !== undefined && { ready }), ...(portName !== undefined && { portName }) }));

describe('sameServedEndpoints', () => {
  test.prop([fc.array(endpointArb, { maxLength: 20 }), fc.array(endpointArb, { maxLength: 20 })], { numRuns: 2000 })(
    'answers as comparing the served lists does',
    (a, b) => {
      expect(sameServedEndpoints('svc', a, b)).toBe(sameServed(servedEndpoints('svc', a), servedEndpoints('svc', b)));
      expect(sameServedEndpoints('svc', a, a)).toBe(true);
    },
  );

  it('sees through duplicates and not-ready entries', () => {
    const e = { ip: '10.0.0.1', port: 80, name: 'p1' };
    // [e, e] serves e once (plugin.go drops repeated IDs), so it serves as [e] does.
    expect(sameServedEndpoints('svc', [e, e], [e])).toBe(true);
    expect(sameServedEndpoints('svc', [e, { ...e, ip: '10.0.0.2', ready: false }], [e])).toBe(true);
    expect(sameServedEndpoints('svc', [e], [{ ...e, port: 81 }])).toBe(false);
  });
});

describe('sameServedSince', () => {
  // A service's lists one after the other, each change compared or not (a change no route saw). A list is
  // new, or made from the one before: the same endpoints as new objects, one of them twice, one more not
  // ready, or one fewer, which serve alike or differ by one. The entry's summary may be of the list before,
  // of an older one, or of none, and the answer must be the served lists' comparison whichever it is.
  type Step = { make: 'new' | 'copy' | 'repeat' | 'not-ready' | 'drop'; list: Endpoint[]; at: number; compared: boolean };
  const step: fc.Arbitrary<Step> = fc.record({
    make: fc.constantFrom('new' as const, 'copy' as const, 'repeat' as const, 'not-ready' as const, 'drop' as const),
    list: fc.array(endpointArb, { maxLength: 10 }),
    at: fc.nat(),
    compared: fc.boolean(),
  });
  const next = (before: readonly Endpoint[], { make, list, at }: Step): readonly Endpoint[] => {
    const copy = before.map((e) => ({ ...e }));
    const i = before.length === 0 ? 0 : at % before.length;
    if (make === 'new' || before.length === 0) return list;
    if (make === 'repeat') copy.splice(i, 0, { ...before[i]! });
    else if (make === 'not-ready') copy.splice(i, 0, { ...list[0], ip: '10.0.0.9', port: 80, ready: false });
    else if (make === 'drop') copy.splice(i, 1);
    return copy;
  };
  test.prop([fc.array(step, { minLength: 1, maxLength: 30 })], { numRuns: 1000 })('answers as comparing the served lists does, whatever the entry last summed up', (steps) => {
    const entry = emptyRouterState().endpoints.entryOf('ns', 'svc');
    let before: readonly Endpoint[] = [];
    for (const s of steps) {
      const after = next(before, s);
      if (s.compared) expect(sameServedSince('svc', entry, before, after)).toBe(sameServed(servedEndpoints('svc', before), servedEndpoints('svc', after)));
      before = after;
    }
  });

  it('tells lists of different ready counts apart from the summary, without reading the old list', () => {
    const entry = emptyRouterState().endpoints.entryOf('ns', 'svc');
    const a = [{ ip: '10.0.0.1', port: 80 }];
    const b = [{ ip: '10.0.0.1', port: 80 }, { ip: '10.0.0.2', port: 80 }];
    expect(sameServedSince('svc', entry, [], a)).toBe(false);
    // `a` summed up (one ready endpoint, no repeats): a list that throws when read stands for it.
    const unreadable = new Proxy(a, { get: (t, k) => (k === 'length' || typeof k === 'symbol' ? Reflect.get(t, k) : assert.fail(`read ${String(k)}`)) });
    entry.summedList = unreadable;
    expect(sameServedSince('svc', entry, unreadable, b)).toBe(false);
    expect(entry.summedList).toBe(b);
    expect(entry.summedReady).toBe(2);
  });
});

describe('ServiceIndex', () => {
  // The strategies walk a service's routes through the index's route objects instead of looking each key up
  // in the router state: told every change (a modify as remove + add, as the managers do), the index must
  // hold, per service, exactly the state's routes of that service, in key order, as the same objects.
  const op = fc.record({
    remove: fc.boolean(),
    ns: fc.constantFrom('a', 'b'),
    name: fc.constantFrom('r1', 'r2', 'r3', 'r4'),
    service: fc.constantFrom('s1', 's2', 's3'),
  });
  test.prop([fc.array(op, { maxLength: 60 }), fc.nat({ max: 60 })])('holds the state routes per service, in key order, as objects', (ops, rebuildAt) => {
    const state = emptyRouterState();
    const index = new ServiceIndex();
    ops.forEach(({ remove, ns, name, service }, i) => {
      const key = routeKey({ namespace: ns, name });
      const before = state.routes.get(key);
      if (before !== undefined) index.remove(before);
      if (remove) state.routes.delete(key);
      else {
        const route: Route = { namespace: ns, name, host: `${name}.example.com`, service };
        state.routes.set(key, route);
        index.add(route);
      }
      if (i === rebuildAt) index.rebuild(state);
    });
    const expected = new Map<string, Route[]>();
    for (const r of state.routes.values()) {
      const k = serviceKey(r.namespace, r.service);
      expected.set(k, [...(expected.get(k) ?? []), r]);
    }
    for (const [k, routes] of expected) {
      routes.sort((x, y) => (routeKey(x) < routeKey(y) ? -1 : 1));
      const rec = index.recordOf(k)!;
      expect(rec.routes).toEqual(routes.map(routeKey));
      expect(rec.routeObjects.length).toBe(routes.length);
      routes.forEach((r, i) => expect(rec.routeObjects[i]).toBe(r));
    }
    for (const s of ['s1', 's2', 's3']) for (const ns of ['a', 'b']) if (!expected.has(serviceKey(ns, s))) expect(index.recordOf(serviceKey(ns, s))).toBeUndefined();
  });

  // recordAt answers from the service's entry in the state when this index keeps its record there: through
  // routes coming and going, rebuilds, services forgotten and made again (an endpoints.delete), and a second
  // index on the same state taking entries over, it must answer what a lookup by key answers.
  const step = fc.oneof(
    fc.record({ kind: fc.constant('route' as const), remove: fc.boolean(), name: fc.constantFrom('r1', 'r2', 'r3'), service: fc.constantFrom('s1', 's2') }),
    fc.record({ kind: fc.constant('forget' as const), service: fc.constantFrom('s1', 's2', 's3') }),
    fc.record({ kind: fc.constant('rebuild' as const), second: fc.boolean() }),
    fc.record({ kind: fc.constant('ask' as const), second: fc.boolean(), service: fc.constantFrom('s1', 's2', 's3') }),
    fc.record({ kind: fc.constant('ask' as const), second: fc.boolean(), service: fc.constantFrom('s1', 's2', 's3') }),
  );
  test.prop([fc.array(step, { maxLength: 80 })], { numRuns: 500 })('answers recordAt(entry) as recordOf(entry.key), with two indexes on one state', (steps) => {
    const state = emptyRouterState();
    const indexes = [new ServiceIndex(), new ServiceIndex()] as const;
    for (const s of steps) {
      if (s.kind === 'route') {
        const key = routeKey({ namespace: 'ns', name: s.name });
        const before = state.routes.get(key);
        for (const index of indexes) if (before !== undefined) index.remove(before);
        if (s.remove) state.routes.delete(key);
        else {
          const route: Route = { namespace: 'ns', name: s.name, host: `${s.name}.example.com`, service: s.service };
          state.routes.set(key, route);
          for (const index of indexes) index.add(route);
        }
      } else if (s.kind === 'forget') state.endpoints.forget('ns', s.service);
      else if (s.kind === 'rebuild') indexes[s.second ? 1 : 0].rebuild(state);
      else {
        const index = indexes[s.second ? 1 : 0];
        const entry = state.endpoints.entryOf('ns', s.service);
        expect(index.recordAt(entry)).toBe(index.recordOf(entry.key));
      }
    }
    for (const index of indexes) {
      for (const service of ['s1', 's2', 's3']) {
        const entry = state.endpoints.entryOf('ns', service);
        expect(index.recordAt(entry)).toBe(index.recordOf(entry.key));
      }
    }
  });
});
