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
  // Few values, so lists of one length that start alike, repeats and `ready: true` beside no `ready` are common.
  const endpoint = fc
    .record({ ip: fc.constantFrom('10.0.0.1', '10.0.0.2', '10.0.0.3'), port: fc.constantFrom(80, 8080), ready: fc.constantFrom(undefined, true, false) })
    .map(({ ip, port, ready }): Endpoint => (ready === undefined ? { ip, port } : { ip, port, ready }));
  const list = fc.array(endpoint, { maxLength: 5 });

  // The state keeps the objects of the list before for a same-length list's first endpoints alike place by
  // place; what it keeps must still read as the new list, and the event must be left as it was.
  test.prop([list, list])('keeps the list as the event gave it, by value, and leaves the event alone', (first, second) => {
    const state = emptyRouterState();
    const set = (endpoints: Endpoint[]) => ({ at: 0, type: 'endpoints.set' as const, namespace: 'ns', service: 's', endpoints });
    applyChurn(state, set(first.map((e) => ({ ...e }))));
    const before = state.endpoints.get('ns/s') ?? [];
    const event = set(second.map((e) => ({ ...e })));
    const given = [...event.endpoints];
    const change = applyChurn(state, event);
    // The event's array and its objects are untouched (a sweep replays the same events again).
    expect(event.endpoints).toEqual(given);
    event.endpoints.forEach((e, i) => expect(e).toBe(given[i]));
    if (change === null) return;
    const after = state.endpoints.get('ns/s')!;
    expect(change.kind === 'endpoints.changed' && change.after).toBe(after);
    expect(after).toEqual(inRouterOrder(second.map((e) => ({ ...e }))));
    // An object of the list before is kept only in its own place, and only when every field is the same.
    after.forEach((e, i) => {
      if (!before.includes(e)) return;
      expect(before[i]).toBe(e);
      expect(e).toStrictEqual(second[i]);
    });
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
});
