import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../../core/endpoint.ts';
import type { Route } from '../../core/route.ts';
import { DcmAddDelStrategy } from '../../core/strategies/dcm-add-del.ts';
import { DcmSlotsStrategy } from '../../core/strategies/dcm-slots.ts';
import { ReloadAlwaysStrategy } from '../../core/strategies/reload-always.ts';
import { Harness } from '../../core/testing/harness.ts';
import { MockHaproxy } from './mock-haproxy.ts';
import { resolveRoute } from './route-resolver.ts';

/**
 * The config managers in core/ driven against this mock instead of core's small test fake: the replies they
 * parse are now HAProxy's exact bytes. What a route resolves to afterwards is checked through the maps.
 */
const route = (name: string): Route => ({ namespace: 'shop', name, host: `${name}.example.com`, service: name });
const ep = (i: number): Endpoint => ({ ip: `10.0.0.${i}`, port: 8080, name: `a-${i}` });
const eps = (...is: number[]) => ({ at: 0, type: 'endpoints.set' as const, namespace: 'shop', service: 'a', endpoints: is.map(ep) });
const upsert = (r: Route) => ({ at: 0, type: 'route.upsert' as const, route: r });

const readyPorts = (m: MockHaproxy, host: string): string[] => {
  const r = resolveRoute(m, { host, scheme: 'http' });
  return r.kind === 'backend' ? r.servers.map((s) => `${s.address}:${s.port}`) : [r.kind];
};

describe('core config managers against the mock', () => {
  it('dcm-slots scales into slots and out to maint without a reload', () => {
    const m = new MockHaproxy();
    const h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 2, blueprintPoolSize: 2 }), m);
    h.sync([upsert(route('a')), eps(1)]);
    h.apply(eps(1, 2));
    h.apply(eps(2, 3));
    expect(h.requests).toEqual([]);
    expect(h.runtimeErrors).toEqual([]);
    expect(readyPorts(m, 'a.example.com')).toEqual(['10.0.0.2:8080', '10.0.0.3:8080']);
  });

  it('dcm-slots serves a new route from a pool slot through runtime map entries', () => {
    const m = new MockHaproxy();
    const h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 2, blueprintPoolSize: 2 }), m);
    h.sync([upsert(route('a')), eps(1)]);
    h.apply({ at: 0, type: 'endpoints.set', namespace: 'shop', service: 'b', endpoints: [{ ip: '10.0.1.1', port: 8080, name: 'b-1' }] });
    h.apply(upsert(route('b')));
    expect(h.requests).toEqual([]);
    expect(readyPorts(m, 'b.example.com')).toEqual(['10.0.1.1:8080']);
  });

  it('dcm-add-del adds and deletes servers at runtime', () => {
    const m = new MockHaproxy();
    const h = new Harness(new DcmAddDelStrategy(), m);
    h.sync([upsert(route('a')), eps(1, 2)]);
    h.apply(eps(1, 2, 3));
    expect(h.requests).toEqual([]);
    expect(readyPorts(m, 'a.example.com')).toEqual(['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.3:8080']);
    h.apply(eps(2, 3));
    expect(readyPorts(m, 'a.example.com')).toEqual(['10.0.0.2:8080', '10.0.0.3:8080']);
  });

  it('dcm-add-del adds servers to a passthrough backend: `balance source` with `hash-type consistent` is dynamic', () => {
    // The template writes both on passthrough backends, and HAProxy 2.6.12 registers the server (the
    // conformance transcript's be_tcp:ns2:hashed); a map-based `source` table would refuse it and reload.
    const m = new MockHaproxy();
    const h = new Harness(new DcmAddDelStrategy(), m);
    h.sync([upsert({ ...route('a'), tls: { termination: 'passthrough' } }), eps(1, 2)]);
    h.apply(eps(1, 2, 3));
    expect(h.requests).toEqual([]);
    expect(h.runtimeErrors).toEqual([]);
    expect(m.backend('be_tcp:shop:a')!.servers.map((s) => s.address)).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  });

  it('dcm-add-del diffs each route against its own table, left stale when an earlier route of the service fails', () => {
    // Routes a1 and a2 share service a, visited in key order. Both start with the single endpoint 1, which
    // the template renders without `check`.
    const m = new MockHaproxy();
    const h = new Harness(new DcmAddDelStrategy(), m);
    h.sync([upsert({ ...route('a'), name: 'a1', host: 'a1.example.com' }), upsert({ ...route('a'), name: 'a2', host: 'a2.example.com' }), eps(1)]);
    // 1 → 2: a1's table becomes [1, 2], then its `enable health` on the former single server fails (no
    // `check`): runtime-api-error, and the walk stops before a2, whose table stays [1].
    h.apply(eps(1, 2));
    expect(h.reasons()).toEqual(['runtime-api-error']);
    h.settle(); // the reload writes both backends with servers 1 and 2, both with `check`
    // 2 → 3 endpoints: a1 (table [1, 2]) adds 3 and is fine. a2 diffs against its stale [1]: it adds 2,
    // which exists ("Already exists"; the retry's `del server` is refused, 2 is not in maintenance), and 3:
    // one more runtime-api-error reload, which a diff against the service's previous endpoints would not ask for.
    h.apply(eps(1, 2, 3));
    expect(h.reasons()).toEqual(['runtime-api-error']);
    expect(h.runtimeErrors.at(-1)).toMatch(/Only servers in maintenance mode can be deleted/);
    h.settle();
    // The reload renders a2 afresh, but its table stays [1, 2, 3] from the failed attempt: 3 → 2 is clean.
    h.apply(eps(1, 2));
    expect(h.requests).toEqual([]);
    expect(readyPorts(m, 'a2.example.com')).toEqual(['10.0.0.1:8080', '10.0.0.2:8080']);
  });

  it('dcm-add-del deletes endpoints without touching the route tables, as DeleteEndpoints does', () => {
    const m = new MockHaproxy();
    const h = new Harness(new DcmAddDelStrategy(), m);
    h.sync([upsert(route('a')), eps(1, 2)]);
    // endpoints.delete: servers 1 and 2 go (maint, del server) with no reload; the table keeps [1, 2].
    h.apply({ at: 0, type: 'endpoints.delete', namespace: 'shop', service: 'a' });
    expect(h.requests).toEqual([]);
    expect(m.backend('be_http:shop:a')!.servers).toEqual([]);
    // The same pods come back: against the table [1, 2] nothing is new, so nothing is added and nothing
    // reloads: the backend stays empty, as the real router leaves it (the invariants would say so).
    h.apply(eps(1, 2));
    expect(h.requests).toEqual([]);
    expect(m.backend('be_http:shop:a')!.servers).toEqual([]);
  });

  it('dcm-add-del: an endpoint change refused during a reload updates only the first route\'s table; a later scale to zero leaves the others\' servers', () => {
    // Routes a1 and a2 share service a (key order a1, a2); a2 is added while a reload runs, when a has no
    // endpoints yet, so its table is [].
    const m = new MockHaproxy();
    const h = new Harness(new DcmAddDelStrategy(), m);
    h.sync([upsert({ ...route('a'), name: 'a1', host: 'a1.example.com' })]);
    const end = h.beginReload();
    h.apply(upsert({ ...route('a'), name: 'a2', host: 'a2.example.com' }));
    // Endpoint 1 arrives during the reload: a1's table becomes [1], then its update is refused and the walk
    // stops; a2's stays [].
    h.apply(eps(1));
    expect(h.reasons()).toEqual(['route-change', 'reload-in-progress']);
    end();
    h.settle(); // the next reload renders both backends with server 1
    expect(readyPorts(m, 'a2.example.com')).toEqual(['10.0.0.1:8080']);
    // 1 → none: a1 deletes server 1; a2 diffs [] against its table [] and sends nothing. No reload is asked
    // for, and a2 keeps serving the gone endpoint until some later reload.
    h.apply(eps());
    expect(h.requests).toEqual([]);
    expect(readyPorts(m, 'a1.example.com')).toEqual([]);
    expect(readyPorts(m, 'a2.example.com')).toEqual(['10.0.0.1:8080']);
  });

  describe("a route's targetPort selects its endpoints (endpointsForAlias)", () => {
    // Service a with two named ports; listed port by port, as the router lists them.
    const twoPorts = (...is: number[]) => ({
      at: 0,
      type: 'endpoints.set' as const,
      namespace: 'shop',
      service: 'a',
      endpoints: [
        ...is.map((i) => ({ ip: `10.0.0.${i}`, port: 8080, name: `a-${i}`, portName: 'http' })),
        ...is.map((i) => ({ ip: `10.0.0.${i}`, port: 8443, name: `a-${i}`, portName: 'https' })),
      ],
    });
    const web = { ...route('a'), name: 'web', host: 'web.example.com', targetPort: 'http' };
    const secure = { ...route('a'), name: 'secure', host: 'secure.example.com', targetPort: 8443 };
    const servers = (m: MockHaproxy, be: string) => m.backend(be)!.servers.map((s) => `${s.name} ${s.address}:${s.port}${s.checkConfigured ? ' check' : ''}`);

    it('the rendered backend has only the port\'s servers, named with the port name, and `check` counts that port alone', () => {
      const m = new MockHaproxy();
      const h = new Harness(new ReloadAlwaysStrategy(), m);
      h.sync([upsert(web), upsert(secure), twoPorts(1)]);
      // One pod, two ports: each route has one endpoint, so no health check (ActiveEndpoints is 1 per
      // port); without the filter each would have two servers, both with `check`.
      expect(servers(m, 'be_http:shop:web')).toEqual(['pod:a-1:a:http:10.0.0.1:8080 10.0.0.1:8080']);
      expect(servers(m, 'be_http:shop:secure')).toEqual(['pod:a-1:a:https:10.0.0.1:8443 10.0.0.1:8443']);
      // A second pod makes two endpoints per route: now with `check`.
      h.apply(twoPorts(1, 2));
      h.settle();
      expect(servers(m, 'be_http:shop:web')).toEqual(['pod:a-1:a:http:10.0.0.1:8080 10.0.0.1:8080 check', 'pod:a-2:a:http:10.0.0.2:8080 10.0.0.2:8080 check']);
    });

    it('dcm-slots fills one slot per pod, not per pod and port', () => {
      const m = new MockHaproxy();
      const h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 2, blueprintPoolSize: 2 }), m);
      h.sync([upsert(web), upsert(secure), twoPorts(1)]);
      // 1 → 3 pods: each route gets 2 new endpoints of its port, which fit its 2 slots. Unfiltered, each
      // route would need 4 slots and fall back to a dynamic-slots-exhausted reload.
      h.apply(twoPorts(1, 2, 3));
      expect(h.requests).toEqual([]);
      expect(readyPorts(m, 'web.example.com')).toEqual(['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.3:8080']);
      expect(readyPorts(m, 'secure.example.com')).toEqual(['10.0.0.1:8443', '10.0.0.2:8443', '10.0.0.3:8443']);
    });

    it('dcm-add-del adds the port\'s servers, and an endpoints.delete asks it to delete every port\'s: an error, so a reload', () => {
      const m = new MockHaproxy();
      const h = new Harness(new DcmAddDelStrategy(), m);
      h.sync([upsert(web), twoPorts(1, 2)]);
      h.apply(twoPorts(1, 2, 3));
      expect(h.requests).toEqual([]);
      expect(readyPorts(m, 'web.example.com')).toEqual(['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.3:8080']);
      // DeleteEndpoints hands RemoveRouteEndpoints the whole EndpointTable: the https servers are not in
      // web's backend, so `set server … state maint` fails for them.
      h.apply({ at: 0, type: 'endpoints.delete', namespace: 'shop', service: 'a' });
      expect(h.reasons()).toEqual(['runtime-api-error']);
      expect(h.runtimeErrors.at(-1)).toMatch(/pod:a-1:a:https:10\.0\.0\.1:8443/);
    });
  });

  it('deleting endpoints that were already empty: the template router reloads, the config managers arm the commit timer', () => {
    // router.go DeleteEndpoints marks the state changed for any service a route uses, without comparing,
    // and the config managers' RemoveRouteEndpoints arms the commit timer even with nothing to remove.
    const del = { at: 0, type: 'endpoints.delete' as const, namespace: 'shop', service: 'a' };
    const always = new Harness(new ReloadAlwaysStrategy(), new MockHaproxy());
    always.sync([upsert(route('a'))]);
    always.apply(del);
    expect(always.reasons()).toEqual(['endpoints-change']);
    for (const strategy of [new DcmSlotsStrategy({ maxDynamicServers: 2, blueprintPoolSize: 2 }), new DcmAddDelStrategy()]) {
      const h = new Harness(strategy, new MockHaproxy());
      h.sync([upsert(route('a'))]);
      h.apply(del);
      expect(h.requests, strategy.name).toEqual([]);
      expect(h.commitArms, strategy.name).toBe(1);
    }
    // A service no route uses changes nothing, whatever the strategy.
    const lone = new Harness(new ReloadAlwaysStrategy(), new MockHaproxy());
    lone.sync([upsert(route('a'))]);
    lone.apply({ ...del, service: 'nobody' });
    expect(lone.requests).toEqual([]);
  });
});
