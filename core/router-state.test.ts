import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { Endpoint } from './endpoint.ts';
import { inRouterOrder } from './endpoint-order.ts';
import type { Route } from './route.ts';
import { applyChurn, emptyRouterState } from './router-state.ts';

const base: Route = { namespace: 'shop', name: 'r', host: 'r.example.com', service: 's' };
const upsert = (route: Route) => ({ at: 0, type: 'route.upsert' as const, route });

/** The change an update makes after `first`: null when router.go's AddRoute would skip it (configsAreEqual). */
function after(first: Route, second: Route): string | null {
  const state = emptyRouterState();
  applyChurn(state, upsert(first));
  return applyChurn(state, upsert(second))?.kind ?? null;
}

describe('a route update as router.go compares it (configsAreEqual)', () => {
  it('a target port compares as text: 8080 and "8080" are the same PreferPort', () => {
    expect(after({ ...base, targetPort: 8080 }, { ...base, targetPort: '8080' })).toBeNull();
    expect(after({ ...base, targetPort: 8080 }, { ...base, targetPort: 'http' })).toBe('route.modified');
  });

  it('wildcardPolicy None is no policy; Subdomain is another route', () => {
    expect(after(base, { ...base, wildcardPolicy: 'None' })).toBeNull();
    expect(after(base, { ...base, wildcardPolicy: 'Subdomain' })).toBe('route.modified');
  });

  it('a passthrough route keeps no certificates, so changing them changes nothing; an edge route\'s do', () => {
    const pass: Route = { ...base, tls: { termination: 'passthrough' } };
    expect(after(pass, { ...pass, tls: { termination: 'passthrough', certificate: 'C', key: 'K' } })).toBeNull();
    expect(after(pass, { ...pass, tls: { termination: 'passthrough', insecureEdgeTerminationPolicy: 'Redirect' } })).toBe('route.modified');
    const edge: Route = { ...base, tls: { termination: 'edge' } };
    expect(after(edge, { ...edge, tls: { termination: 'edge', certificate: 'C', key: 'K' } })).toBe('route.modified');
  });

  it('the creation time is no part of the config: a route that only gains one is not changed', () => {
    expect(after(base, { ...base, createdAt: -5000 })).toBeNull();
    expect(after({ ...base, createdAt: 0 }, { ...base, createdAt: 7 })).toBeNull();
  });

  it('the state keeps the route it had when an update is skipped', () => {
    const state = emptyRouterState();
    const first = { ...base, targetPort: 8080 };
    applyChurn(state, upsert(first));
    applyChurn(state, upsert({ ...base, targetPort: '8080' }));
    expect(state.routes.get('shop/r')).toBe(first);
  });
});

describe('an endpoints.set that changes the list', () => {
  // Few values, so lists that start alike or share endpoints, repeats, and `ready: true` beside no `ready`
  // are common; pods and port names so that an endpoint alike in address and port can still differ.
  const endpoint = fc
    .record({
      ip: fc.constantFrom('10.0.0.1', '10.0.0.2', '10.0.0.3'),
      port: fc.constantFrom(80, 8080),
      ready: fc.constantFrom(undefined, true, false),
      name: fc.constantFrom(undefined, undefined, 'p1'),
      portName: fc.constantFrom(undefined, undefined, 'web'),
    })
    .map(({ ip, port, ready, name, portName }): Endpoint => ({
      ip,
      port,
      ...(ready !== undefined && { ready }),
      ...(name !== undefined && { name }),
      ...(portName !== undefined && { portName }),
    }));
  const list = fc.array(endpoint, { maxLength: 6 });

  // The state keeps objects of the list before: a same-length list's first endpoints alike place by place,
  // or with keepAlike any endpoint alike. What it keeps must still read as the new list, each kept object
  // with exactly the fields of the new endpoint in its place, and the event must be left as it was.
  test.prop([list, list, fc.boolean()])('keeps the list as the event gave it, by value, and leaves the event alone', (first, second, keepAlike) => {
    const state = emptyRouterState();
    const set = (endpoints: Endpoint[]) => ({ at: 0, type: 'endpoints.set' as const, namespace: 'ns', service: 's', endpoints });
    applyChurn(state, set(first.map((e) => ({ ...e }))), keepAlike);
    const before = state.endpoints.get('ns/s') ?? [];
    const event = set(second.map((e) => ({ ...e })));
    const given = [...event.endpoints];
    const change = applyChurn(state, event, keepAlike);
    // The event's array and its objects are untouched (a sweep replays the same events again).
    expect(event.endpoints).toEqual(given);
    event.endpoints.forEach((e, i) => expect(e).toBe(given[i]));
    if (change === null) return;
    const after = state.endpoints.get('ns/s')!;
    expect(change.kind === 'endpoints.changed' && change.after).toBe(after);
    const expected = inRouterOrder(second.map((e) => ({ ...e })));
    expect(after).toEqual(expected);
    after.forEach((e, i) => {
      if (!before.includes(e)) return;
      // Without keepAlike, an object of the list before is kept only in its own place.
      if (!keepAlike) expect(before[i]).toBe(e);
      expect(e).toStrictEqual(expected[i]);
    });
    // A kept object is kept once.
    expect(new Set(after).size).toBe(after.length);
  });

  // keepingAlike's merge misses an endpoint only when the lists hold repeats or alike addresses that differ
  // otherwise (pod, ready): with neither, every endpoint the list before has alike is its object.
  test.prop([list, list])('with keepAlike, keeps every endpoint alike in a list without repeats', (first, second) => {
    const distinct = (l: Endpoint[]) => l.filter((e, i) => l.findIndex((x) => x.ip === e.ip && x.port === e.port && (x.portName ?? '') === (e.portName ?? '')) === i);
    const a = distinct(first);
    const b = distinct(second);
    const state = emptyRouterState();
    const set = (endpoints: Endpoint[]) => ({ at: 0, type: 'endpoints.set' as const, namespace: 'ns', service: 's', endpoints });
    applyChurn(state, set(a.map((e) => ({ ...e }))), true);
    const before = state.endpoints.get('ns/s') ?? [];
    if (applyChurn(state, set(b.map((e) => ({ ...e }))), true) === null) return;
    for (const e of state.endpoints.get('ns/s')!) {
      const alike = before.find((x) => JSON.stringify(x) === JSON.stringify(e));
      if (alike !== undefined) expect(e).toBe(alike);
    }
  });

  it('keeps the first endpoints of a same-length list as the objects it had', () => {
    const state = emptyRouterState();
    const a = { ip: '10.0.0.1', port: 80 };
    const b = { ip: '10.0.0.2', port: 80 };
    applyChurn(state, { at: 0, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints: [a, b] });
    applyChurn(state, { at: 1, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints: [{ ...a }, { ip: '10.0.0.3', port: 80 }] });
    expect(state.endpoints.get('ns/s')![0]).toBe(a);
    // `ready: true` reads as ready, as no `ready` does, but is not the same object's fields: not kept.
    applyChurn(state, { at: 2, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints: [{ ...a, ready: true }, { ip: '10.0.0.2', port: 80 }] });
    expect(state.endpoints.get('ns/s')![0]).not.toBe(a);
    expect(state.endpoints.get('ns/s')![0]).toEqual({ ...a, ready: true });
  });

  it('with keepAlike, keeps the endpoints that stayed when a service scales, as the objects it had', () => {
    const state = emptyRouterState();
    const set = (at: number, endpoints: Endpoint[]) => applyChurn(state, { at, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints }, true);
    const [p1, p2, p3] = ['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((ip, i) => ({ ip, port: 8080, name: `pod-${i + 1}` }));
    set(0, [p1!, p3!]);
    // Scaled up: one pod between the two (router order is by address), the others as they were.
    set(1, [{ ...p1! }, { ...p2! }, { ...p3! }]);
    const up = state.endpoints.get('ns/s')!;
    expect(up[0]).toBe(p1);
    expect(up[2]).toBe(p3);
    // Scaled down by the first: the rest keep the objects of the list before, whichever event brought them.
    set(2, [{ ...p2! }, { ...p3! }]);
    const down = state.endpoints.get('ns/s')!;
    expect(down[0]).toBe(up[1]);
    expect(down[1]).toBe(p3);
    // The same address for another pod is another endpoint.
    set(3, [{ ...p2!, name: 'pod-9' }, { ...p3! }]);
    expect(state.endpoints.get('ns/s')![0]).not.toBe(up[1]);
  });
});
