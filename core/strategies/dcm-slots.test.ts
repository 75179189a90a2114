import { fc, test } from '@fast-check/vitest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Endpoint } from '../endpoint.ts';
import type { Route } from '../route.ts';
import type { RouterState } from '../router-state.ts';
import { routingKeyName } from '../haproxy/names.ts';
import { FakeHaproxy } from '../testing/fake-haproxy.ts';
import { Harness } from '../testing/harness.ts';
import { DcmSlotsStrategy } from './dcm-slots.ts';

const route = (name: string, extra: Partial<Route> = {}): Route => ({ namespace: 'shop', name, host: `${name}.example.com`, service: name, ...extra });
const ep = (svc: string, i: number): Endpoint => ({ ip: `10.0.0.${i}`, port: 8080, name: `${svc}-${i}` });
const eps = (svc: string, ...is: number[]) => ({ at: 0, type: 'endpoints.set' as const, namespace: 'shop', service: svc, endpoints: is.map((i) => ep(svc, i)) });
const upsert = (r: Route) => ({ at: 0, type: 'route.upsert' as const, route: r });
const del = (name: string) => ({ at: 0, type: 'route.delete' as const, namespace: 'shop', name });

const POOL_HTTP_1 = 'be_http:_hapcm_blueprint_pool:_blueprint-http-route-1';
const POOL_HTTP_2 = 'be_http:_hapcm_blueprint_pool:_blueprint-http-route-2';

describe('dcm-slots', () => {
  let fake: FakeHaproxy;
  let h: Harness;
  beforeEach(() => {
    fake = new FakeHaproxy();
    // 2 slots per backend, 2 pool routes per blueprint.
    h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 2, blueprintPoolSize: 2 }), fake);
    h.sync([upsert(route('a')), eps('a', 1)]);
  });

  it('renders pool backends: 3 default blueprints × 2 slots, each with 2 disabled _dynamic-pod servers', () => {
    const pool = [...fake.backends.keys()].filter((b) => b.includes('_hapcm_blueprint_pool'));
    // Default blueprints http, edge, passthrough; pool size 2 → 6 pool backends, sorted by <ns>:<name>.
    // Sorted by `<ns>:<name>`, so "_blueprint-edge-…" < "_blueprint-http-…" < "_blueprint-passthrough-…".
    expect(pool).toEqual([
      'be_edge_http:_hapcm_blueprint_pool:_blueprint-edge-route-1',
      'be_edge_http:_hapcm_blueprint_pool:_blueprint-edge-route-2',
      POOL_HTTP_1,
      POOL_HTTP_2,
      'be_tcp:_hapcm_blueprint_pool:_blueprint-passthrough-route-1',
      'be_tcp:_hapcm_blueprint_pool:_blueprint-passthrough-route-2',
    ]);
    expect(fake.backends.get(POOL_HTTP_1)!.servers.map((s) => [s.name, s.admin])).toEqual([
      ['_dynamic-pod-1', 4],
      ['_dynamic-pod-2', 4],
    ]);
  });

  it('scales up into a free slot without a reload, with the commands upstream sends', () => {
    fake.commands.length = 0;
    h.apply(eps('a', 1, 2));
    // a-2 is new: no static server is named after it, so it takes the first unused slot.
    // show backend (cache empty after the reload), show servers state, then the commit of the slot:
    // addr+port (both differ from 172.4.0.4:8765), no weight (slot uweight 1 = "1"), state ready.
    expect(fake.commands).toEqual([
      'show backend',
      'show servers state be_http:shop:a',
      'set server be_http:shop:a/_dynamic-pod-1 addr 10.0.0.2 port 8080',
      'set server be_http:shop:a/_dynamic-pod-1 state ready',
    ]);
    expect(h.requests).toEqual([]);
    expect(h.commitArms).toBe(1);
    expect(fake.ready('be_http:shop:a')).toEqual(['10.0.0.1:8080', '10.0.0.2:8080']);
  });

  it('a commit that fails midway leaves what it staged cached: the next change lists nothing and sends it again', () => {
    // backend.go: the staged servers stay in the client's cache until a Commit goes through (its Reset).
    const send = fake.send.bind(fake);
    fake.send = (c) => (c.kind === 'set server state' ? { ok: false, error: 'timeout' } : send(c));
    h.apply(eps('a', 1, 2)); // a-2 → _dynamic-pod-1: addr sent, then state times out
    expect(h.reasons()).toEqual(['runtime-api-error']);
    fake.send = send;
    fake.commands.length = 0;
    h.apply(eps('a', 1, 2, 3)); // no reload yet: a-3 → _dynamic-pod-2, staged beside what a-2 left
    // No listing: the cached servers still carry a-2's staging (the address as listed, so addr again).
    expect(fake.commands).toEqual([
      'set server be_http:shop:a/_dynamic-pod-1 addr 10.0.0.2 port 8080',
      'set server be_http:shop:a/_dynamic-pod-1 state ready',
      'set server be_http:shop:a/_dynamic-pod-2 addr 10.0.0.3 port 8080',
      'set server be_http:shop:a/_dynamic-pod-2 state ready',
    ]);
    expect(fake.ready('be_http:shop:a')).toEqual(['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.3:8080']);
    // That commit went through: the change after it lists the servers afresh.
    fake.commands.length = 0;
    h.apply(eps('a', 1, 2));
    expect(fake.commands[0]).toBe('show servers state be_http:shop:a');
  });

  it('a change that runs out of slots leaves what it staged cached, and the next commit on the backend sends it', () => {
    h.apply(eps('a', 1, 2)); // a-2 → _dynamic-pod-1
    fake.commands.length = 0;
    // a-3 takes _dynamic-pod-2 (staged), a-4 and a-5 find no slot: dynamic-slots-exhausted before any commit.
    h.apply(eps('a', 1, 2, 3, 4, 5));
    expect(h.reasons()).toEqual(['dynamic-slots-exhausted']);
    expect(fake.commands).toEqual(['show servers state be_http:shop:a']);
    fake.commands.length = 0;
    // No reload yet. a-4 and a-5 leave (no server stands for them) and a-3 stays as it was in the old list:
    // nothing new is staged, and the commit sends a-3's staging from the cache, without listing again.
    h.apply(eps('a', 1, 2, 3));
    expect(fake.commands).toEqual([
      'set server be_http:shop:a/_dynamic-pod-2 addr 10.0.0.3 port 8080',
      'set server be_http:shop:a/_dynamic-pod-2 state ready',
    ]);
    expect(fake.ready('be_http:shop:a')).toEqual(['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.3:8080']);
  });

  it('scale-down sets maint; an endpoint coming back reuses its static server; slots freed are reused later', () => {
    h.apply(eps('a', 1, 2)); // a-2 → _dynamic-pod-1
    h.apply(eps('a', 2)); // a-1 deleted → its static server to maint
    expect(fake.ready('be_http:shop:a')).toEqual(['10.0.0.2:8080']);
    h.apply(eps('a', 1)); // a-1 back (static server re-enabled), a-2 deleted (slot 1 unmapped, maint)
    expect(fake.ready('be_http:shop:a')).toEqual(['10.0.0.1:8080']);
    h.apply(eps('a', 1, 3, 4)); // a-3, a-4 take the 2 unused slots (slot 1 was freed by the previous call)
    expect(fake.ready('be_http:shop:a')).toEqual(['10.0.0.1:8080', '10.0.0.3:8080', '10.0.0.4:8080']);
    expect(h.requests).toEqual([]);
  });

  it('a slot freed by a deletion is not reused in the same change (upstream collects unused slots first)', () => {
    h.apply(eps('a', 1, 2)); // a-2 → _dynamic-pod-1; _dynamic-pod-2 free
    expect(h.requests).toEqual([]);
    // a-2 leaves (slot 1 unmapped, to maint) while a-3 and a-4 arrive: only slot 2 was unused when the
    // servers were walked, so a-3 takes it and a-4 has none → fall back, although slot 1 is now free.
    h.apply(eps('a', 1, 3, 4));
    expect(h.reasons()).toEqual(['dynamic-slots-exhausted']);
  });

  it('more new endpoints than free slots → dynamic-slots-exhausted; the reload writes them as static servers', () => {
    // 3 new endpoints (a-2..a-4), 2 unused slots → 1 remaining → fall back.
    h.apply(eps('a', 1, 2, 3, 4));
    expect(h.reasons()).toEqual(['dynamic-slots-exhausted']);
    // The request says why, once: no note repeats it.
    expect(h.requests).toEqual([{ reason: 'dynamic-slots-exhausted', detail: 'no free dynamic server slots for backend be_http:shop:a, 1 endpoint(s) remaining' }]);
    expect(h.notes).toEqual([]);
    // Nothing was committed (upstream returns before Backend.Commit).
    expect(fake.ready('be_http:shop:a')).toEqual(['10.0.0.1:8080']);
    h.settle();
    expect(fake.ready('be_http:shop:a')).toEqual(['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.3:8080', '10.0.0.4:8080']);
    expect(fake.backends.get('be_http:shop:a')!.servers.map((s) => s.name).slice(4)).toEqual(['_dynamic-pod-1', '_dynamic-pod-2']);
  });

  it('adds a route into the first free pool slot: map entry, cookie key, endpoints in the slot', () => {
    h.apply(eps('b', 1));
    fake.commands.length = 0;
    h.apply(upsert(route('b')));
    expect(h.requests).toEqual([]);
    expect(fake.lookup('os_http_be.map', 'b.example.com/')).toBe(POOL_HTTP_1);
    expect(fake.backends.get(POOL_HTTP_1)!.cookieKey).toBe(routingKeyName({ namespace: 'shop', name: 'b' }));
    expect(fake.ready(POOL_HTTP_1)).toEqual(['10.0.0.1:8080']);
    expect(fake.commands).toEqual([
      'show map',
      'show map /var/lib/haproxy/conf/os_http_be.map',
      'add map /var/lib/haproxy/conf/os_http_be.map ^b\\\\\\.example\\\\\\.com\\\\\\.?(:[0-9]+)?(/\\.*)?$ ' + POOL_HTTP_1,
      'show backend',
      `set dynamic-cookie-key backend ${POOL_HTTP_1} ${routingKeyName({ namespace: 'shop', name: 'b' })}`,
      `enable dynamic-cookie backend ${POOL_HTTP_1}`,
      `show servers state ${POOL_HTTP_1}`,
      `set server ${POOL_HTTP_1}/_dynamic-pod-1 addr 10.0.0.1 port 8080`,
      `set server ${POOL_HTTP_1}/_dynamic-pod-1 state ready`,
    ]);
  });

  it('pool of 2: the third http route falls back with pool-exhausted; removal frees a slot for the next one', () => {
    h.apply(upsert(route('b'))); // slot 1
    h.apply(upsert(route('c'))); // slot 2
    h.apply(upsert(route('d'))); // none left
    expect(h.reasons()).toEqual(['pool-exhausted']);
    h.requests.length = 0;
    h.apply(del('b'));
    expect(h.requests).toEqual([]);
    expect(fake.lookup('os_http_be.map', 'b.example.com/')).toBeUndefined();
    expect(fake.backends.get(POOL_HTTP_1)!.servers.every((s) => s.admin !== 0)).toBe(true);
    h.apply(upsert(route('e'))); // first free index is 1 again
    expect(fake.lookup('os_http_be.map', 'e.example.com/')).toBe(POOL_HTTP_1);
    expect(h.requests).toEqual([]);
  });

  it('a pooled route with more endpoints than slots falls back with dynamic-slots-exhausted', () => {
    h.apply(eps('b', 1, 2, 3));
    h.apply(upsert(route('b')));
    // The slot backend has only 2 `_dynamic-pod` servers for 3 endpoints.
    expect(h.reasons()).toEqual(['dynamic-slots-exhausted']);
  });

  it('no blueprint match: own certificate, backend-modifying annotation, reencrypt without a custom blueprint', () => {
    h.apply(upsert(route('tls', { tls: { termination: 'edge', certificate: 'CERT', key: 'KEY' } })));
    h.apply(upsert(route('slow', { annotations: { 'haproxy.router.openshift.io/timeout': '5m' } })));
    h.apply(upsert(route('re', { tls: { termination: 'reencrypt' } })));
    expect(h.reasons()).toEqual(['no-blueprint-match', 'no-blueprint-match', 'no-blueprint-match']);
    // An annotation that does not modify the backend does not matter; the edge policy is not compared.
    h.requests.length = 0;
    h.apply(upsert(route('plain', { annotations: { 'example.com/owner': 'me' } })));
    h.apply(upsert(route('edge', { tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'Redirect' } })));
    expect(h.requests).toEqual([]);
    expect(fake.lookup('os_edge_reencrypt_be.map', 'edge.example.com/')).toBe('be_edge_http:_hapcm_blueprint_pool:_blueprint-edge-route-1');
  });

  it('a custom reencrypt blueprint makes reencrypt routes dynamic after the blueprint reload', () => {
    h.apply({ at: 0, type: 'blueprint.upsert', route: route('_blueprint-reencrypt-route', { namespace: 'blueprints', tls: { termination: 'reencrypt' } }) });
    expect(h.reasons()).toEqual(['blueprint-change']);
    h.settle();
    const slot = 'be_secure:_hapcm_blueprint_pool:_blueprint-reencrypt-route-1';
    // Reencrypt slots are rendered one by one with weight 0.
    expect(fake.backends.get(slot)!.servers.map((s) => s.weight)).toEqual([0, 0]);
    h.apply(eps('re', 1));
    fake.commands.length = 0;
    h.apply(upsert(route('re', { tls: { termination: 'reencrypt' } })));
    expect(h.requests).toEqual([]);
    expect(fake.lookup('os_edge_reencrypt_be.map', 're.example.com/')).toBe(slot);
    expect(fake.lookup('os_tcp_be.map', 're.example.com')).toBe(slot);
    // weight 0 → "1" differs, so upstream sends a weight command for reencrypt slots.
    expect(fake.commands).toContain(`set server ${slot}/_dynamic-pod-1 weight 1`);
    expect(fake.ready(slot)).toEqual(['10.0.0.1:8080']);
  });

  it('a blueprint change reloads only when it changes the pool routes (AddBlueprint ignores the host; an empty pool provisions nothing)', () => {
    const bp = route('_blueprint-reencrypt-route', { namespace: 'blueprints', tls: { termination: 'reencrypt' } });
    h.apply({ at: 0, type: 'blueprint.upsert', route: bp });
    expect(h.reasons()).toEqual(['blueprint-change']);
    h.settle();
    // The same blueprint under another host: AddBlueprint compares without the host.
    h.apply({ at: 0, type: 'blueprint.upsert', route: { ...bp, host: 'elsewhere.example.com' } });
    expect(h.requests).toEqual([]);
    // An invalid pool-size annotation gives an empty pool (getPoolSize's bug): nothing to provision, no reload.
    const empty = route('_blueprint-empty', { namespace: 'blueprints', annotations: { 'router.openshift.io/pool-size': 'x' } });
    h.apply({ at: 0, type: 'blueprint.upsert', route: empty });
    expect(h.requests).toEqual([]);
    h.apply({ at: 0, type: 'blueprint.delete', namespace: 'blueprints', name: '_blueprint-empty' });
    expect(h.requests).toEqual([]);
    // Removing the reencrypt blueprint takes its pool routes away: a reload.
    h.apply({ at: 0, type: 'blueprint.delete', namespace: 'blueprints', name: '_blueprint-reencrypt-route' });
    expect(h.reasons()).toEqual(['blueprint-change']);
  });

  it('passthrough routes get weight 100% and the sni/tcp entries', () => {
    h.apply(eps('pt', 1));
    fake.commands.length = 0;
    h.apply(upsert(route('pt', { tls: { termination: 'passthrough' } })));
    const slot = 'be_tcp:_hapcm_blueprint_pool:_blueprint-passthrough-route-1';
    expect(h.requests).toEqual([]);
    expect(fake.commands).toContain(`set server ${slot}/_dynamic-pod-1 weight 100%`);
    expect(fake.lookup('os_tcp_be.map', 'pt.example.com')).toBe(slot);
    expect(fake.lookup('os_sni_passthrough.map', 'pt.example.com')).toBe('1');
  });

  it('modify = remove + add: the route moves to a pool slot of its new termination', () => {
    h.apply(upsert(route('a', { tls: { termination: 'edge' } })));
    expect(h.requests).toEqual([]);
    expect(fake.lookup('os_http_be.map', 'a.example.com/')).toBeUndefined();
    expect(fake.lookup('os_edge_reencrypt_be.map', 'a.example.com/')).toBe('be_edge_http:_hapcm_blueprint_pool:_blueprint-edge-route-1');
    expect(fake.ready('be_http:shop:a')).toEqual([]);
    expect(fake.ready('be_edge_http:_hapcm_blueprint_pool:_blueprint-edge-route-1')).toEqual(['10.0.0.1:8080']);
  });

  it('refuses dynamic changes during a reload', () => {
    h.reloadInProgress = true;
    h.apply(eps('a', 1, 2));
    h.apply(upsert(route('b')));
    h.apply(del('a'));
    expect(h.reasons()).toEqual(['reload-in-progress', 'reload-in-progress', 'reload-in-progress']);
  });

  it('after a reload every slot is free again and pooled routes have their own backends', () => {
    h.apply(upsert(route('b')));
    h.apply(upsert(route('c')));
    h.reload();
    expect(fake.lookup('os_http_be.map', 'b.example.com/')).toBe('be_http:shop:b');
    h.apply(upsert(route('d')));
    h.apply(upsert(route('e')));
    expect(h.requests).toEqual([]);
    expect(fake.lookup('os_http_be.map', 'e.example.com/')).toBe(POOL_HTTP_2);
  });

  it('endpoint changes of a route whose add fell back report the same reason until the reload', () => {
    h.apply(upsert(route('t', { tls: { termination: 'edge', certificate: 'C' } })));
    h.apply(eps('t', 1));
    expect(h.reasons()).toEqual(['no-blueprint-match', 'no-blueprint-match']);
  });

  it('arms the commit timer where manager.go defers scheduleRouterReload, failures included', () => {
    h.apply(eps('a', 1, 2)); // ReplaceRouteEndpoints with configChanged → arm
    expect(h.commitArms).toBe(1);
    // AddRoute returns before its deferred arm when no blueprint matches (a route with its own certificate).
    h.apply(upsert(route('tls', { tls: { termination: 'edge', certificate: 'C' } })));
    expect(h.commitArms).toBe(1);
    // A blueprint matched: the arm is deferred before findFreeBackendPoolSlot, so pool-exhausted arms too.
    h.apply(upsert(route('b'))); // slot 1: AddRoute arms, its ReplaceRouteEndpoints([] → []) changes nothing
    h.apply(upsert(route('c'))); // slot 2
    h.apply(upsert(route('d'))); // no slot: pool-exhausted, still armed
    expect(h.reasons()).toEqual(['no-blueprint-match', 'pool-exhausted']);
    expect(h.commitArms).toBe(4);
    // RemoveRoute defers it unconditionally, even for a route whose backend HAProxy does not have yet.
    h.apply(del('d'));
    expect(h.commitArms).toBe(5);
  });

  it('ReplaceRouteEndpoints arms when the config changed even if it then runs out of slots', () => {
    h.apply(eps('a', 1, 2)); // a-2 → _dynamic-pod-1 (arm 1)
    // a-2 leaves (configChanged: a deletion) and a-3, a-4 arrive with one unused slot: the call fails on
    // slots after its deferred scheduleRouterReload was set to run.
    h.apply(eps('a', 1, 3, 4));
    expect(h.reasons()).toEqual(['dynamic-slots-exhausted']);
    expect(h.commitArms).toBe(2);
  });

  it('ReplaceRouteEndpoints arms when listing the servers fails after a deletion, not after an addition alone', () => {
    // manager.go ReplaceRouteEndpoints: the loop over oldEndpoints sets configChanged for an old ID missing
    // from the new list, then `backend.Servers()` runs; its error returns through the deferred
    // `if configChanged { scheduleRouterReload() }`. An added endpoint sets configChanged only in the loops
    // after the listing, so a failed listing then arms nothing.
    h.sync([upsert(route('a')), eps('a', 1, 2)]); // the reload empties the server cache: the next replace lists
    const send = fake.send.bind(fake);
    fake.send = (c) => (c.kind === 'show servers state' ? { ok: false, error: 'timeout' } : send(c));
    h.apply(eps('a', 1)); // a-2 deleted; show servers state times out (no retry for a timeout)
    expect(h.commitArms).toBe(1);
    expect(h.reasons()).toEqual(['runtime-api-error']);
    // The runtime error says why; the request carries no detail of its own (see StrategyContext.runtimeError).
    expect(h.runtimeErrors).toHaveLength(1);
    expect(h.requests).toEqual([{ reason: 'runtime-api-error' }]);
    h.reload();
    h.apply(eps('a', 1, 3)); // a-3 added only: the listing fails before anything sets configChanged
    expect(h.commitArms).toBe(1);
    expect(h.reasons()).toEqual(['runtime-api-error']);
  });
});

describe('dcm-slots: a route with a targetPort on a multi-port service', () => {
  const two = (web: number[], metrics: number[]) => ({
    at: 0,
    type: 'endpoints.set' as const,
    namespace: 'shop',
    service: 'm',
    endpoints: [...web.map((i) => ({ ip: `10.0.1.${i}`, port: 8080, portName: 'web' })), ...metrics.map((i) => ({ ip: `10.0.1.${i}`, port: 9090, portName: 'metrics' }))],
  });

  it('a change on the other port counts its old endpoints as deleted (the old EndpointTable is not filtered): configChanged, the timer armed', () => {
    const fake = new FakeHaproxy();
    const h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 2, blueprintPoolSize: 2 }), fake);
    h.sync([upsert(route('m', { targetPort: 'web' })), two([1], [1])]);
    // router.go AddEndpoints hands ReplaceRouteEndpoints the service's whole old table and endpointsForAlias
    // of the new one: old 10.0.1.1:9090 is not among the new (web only), so it is "deleted". No server
    // stands for it in this backend: nothing is sent to change, but configChanged arms the commit timer.
    h.apply(two([1], [2]));
    expect(h.requests).toEqual([]);
    expect(h.commitArms).toBe(1);
    expect(fake.ready('be_http:shop:m')).toEqual(['10.0.1.1:8080']);
  });
});

describe('dcm-slots before the initial reload ends', () => {
  /** A router whose initial reload has started (its config rendered) but not ended. */
  function reloading() {
    const fake = new FakeHaproxy();
    const h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 2, blueprintPoolSize: 2 }), fake);
    for (const e of [upsert(route('a')), eps('a', 1)]) h.apply(e);
    h.requests.length = 0;
    h.beginReload();
    return h;
  }

  it('endpoints no route uses, or a change only to not-ready addresses, do not reach the manager: no reload', () => {
    const h = reloading();
    h.apply(eps('lonely', 1, 2)); // no route serves 'lonely'
    h.apply({ ...eps('a', 1), endpoints: [ep('a', 1), { ...ep('a', 2), ready: false }] }); // table unchanged
    expect(h.requests).toEqual([]);
  });

  it('a change a route carries is refused while reloading: one more reload', () => {
    const h = reloading();
    h.apply(eps('a', 1, 2));
    h.apply(upsert(route('b')));
    expect(h.reasons()).toEqual(['reload-in-progress', 'reload-in-progress']);
  });
});

describe('dcm-slots blueprint namespace (ROUTER_BLUEPRINT_ROUTE_NAMESPACE)', () => {
  it('routes there at the initial sync become blueprints; later changes there reload with blueprint-change', () => {
    const fake = new FakeHaproxy();
    const h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 1, blueprintPoolSize: 1, blueprintNamespace: 'bp' }), fake);
    const reencryptBp: Route = { namespace: 'bp', name: 'reenc', host: 'reenc.bp.example.com', service: 'none', tls: { termination: 'reencrypt' } };
    h.sync([upsert(reencryptBp)]);
    // 3 defaults + 1 custom, pool size 1 each → 4 pool backends; plus the blueprint route's own backend.
    expect([...fake.backends.keys()].filter((b) => b.includes('_hapcm_blueprint_pool'))).toHaveLength(4);
    expect(fake.backends.has('be_secure:_hapcm_blueprint_pool:reenc-1')).toBe(true);
    expect(fake.backends.has('be_secure:bp:reenc')).toBe(true);
    h.apply(upsert(route('re', { tls: { termination: 'reencrypt' } })));
    expect(h.requests).toEqual([]);
    h.apply({ at: 0, type: 'route.delete', namespace: 'bp', name: 'reenc' });
    expect(h.reasons()).toContain('blueprint-change');
  });
});

describe('dcm-slots blueprint namespace during the first reload', () => {
  it('a route added there while the initial reload runs becomes a blueprint: later matching routes take a pool slot', () => {
    const fake = new FakeHaproxy();
    const h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 1, blueprintPoolSize: 1, blueprintNamespace: 'bp' }), fake);
    const end = h.beginReload();
    // The blueprint controller (blueprint_plugin.go) calls AddBlueprint whatever the reload is doing.
    h.apply(upsert({ namespace: 'bp', name: 'reenc', host: 'reenc.bp.example.com', service: 'none', tls: { termination: 'reencrypt' } }));
    expect(h.reasons()).toEqual(['blueprint-change', 'reload-in-progress']);
    end();
    h.reload();
    expect(fake.backends.has('be_secure:_hapcm_blueprint_pool:reenc-1')).toBe(true);
    h.apply(upsert(route('re', { tls: { termination: 'reencrypt' } })));
    expect(h.requests).toEqual([]);
  });
});

describe('dcm-slots endpoints.delete of a service with no endpoints left', () => {
  it('still finds the backend and commits it (RemoveRouteEndpoints): `show backend` on a cold list, no reload', () => {
    const fake = new FakeHaproxy();
    const h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 2, blueprintPoolSize: 1 }), fake);
    h.sync([upsert(route('a')), eps('a', 1)]);
    const gone = { at: 0, type: 'endpoints.delete' as const, namespace: 'shop', service: 'a' };
    h.apply(gone);
    h.apply(eps('a'));
    // A reload forgets the cached backend list; the service has no endpoints now.
    h.reload();
    fake.commands.length = 0;
    const arms = h.commitArms;
    h.apply(gone);
    // Nothing to disable: no `show servers state`, no `set server`; FindBackend lists the backends once.
    expect(fake.commands).toEqual(['show backend']);
    expect(h.commitArms).toBe(arms + 1);
    expect(h.requests).toEqual([]);
  });
});

describe('dcm-slots endpoints.delete when the servers cannot be listed', () => {
  it('RemoveRouteEndpoints ignores DisableServer\'s error: one listing per endpoint, nothing committed, no reload', () => {
    const fake = new FakeHaproxy();
    const send = fake.send.bind(fake);
    let failing = false;
    fake.send = (c) => {
      if (!failing || c.kind !== 'show servers state') return send(c);
      fake.commands.push(`${c.kind} (timeout)`);
      return { ok: false, error: 'timeout' };
    };
    const h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 2, blueprintPoolSize: 2 }), fake);
    h.sync([upsert(route('a')), eps('a', 1, 2)]);
    fake.commands.length = 0;
    failing = true;
    const arms = h.commitArms;
    h.apply({ at: 0, type: 'endpoints.delete', namespace: 'shop', service: 'a' });
    // A timeout is not retried (runCommandWithRetries retries refused and reset only): one listing for each of
    // the two endpoints, after `show backend`; Commit finds nothing cached and sends nothing.
    expect(fake.commands).toEqual(['show backend', 'show servers state (timeout)', 'show servers state (timeout)']);
    expect(h.requests).toEqual([]);
    expect(h.commitArms).toBeGreaterThan(arms);
    // The servers were left as they were: the reload the commit timer brings writes the change.
    expect(fake.ready('be_http:shop:a')).toEqual(['10.0.0.1:8080', '10.0.0.2:8080']);
  });

  it('an endpoints.set whose listing fails still falls back to a reload (ReplaceRouteEndpoints returns the error)', () => {
    const fake = new FakeHaproxy();
    const send = fake.send.bind(fake);
    fake.send = (c) => (c.kind === 'show servers state' ? { ok: false, error: 'timeout' } : send(c));
    const h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 2, blueprintPoolSize: 2 }), fake);
    h.sync([upsert(route('a')), eps('a', 1, 2)]);
    h.apply(eps('a', 1));
    expect(h.reasons()).toEqual(['runtime-api-error']);
  });
});

describe('dcm-slots map entries (map.go)', () => {
  it('an `add map` HAProxy refuses leaves the map clean: the next lookup in it lists nothing again', () => {
    const fake = new FakeHaproxy();
    const send = fake.send.bind(fake);
    // Stand-in for any refusal: every `add map` to the redirect map answers an error text.
    fake.send = (c) => {
      if (c.kind !== 'add map' || !c.file.endsWith('os_route_http_redirect.map')) return send(c);
      fake.commands.push(`add map ${c.file} (refused)`);
      return { ok: true, reply: { kind: 'refused', text: `unable to parse '${c.value}'.\n` } };
    };
    const h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 2, blueprintPoolSize: 4 }), fake);
    h.sync([upsert(route('a')), eps('a', 1)]);
    fake.commands.length = 0;
    const redirected = (name: string) => upsert(route(name, { tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'Redirect' } }));
    h.apply(redirected('r1'));
    h.apply(redirected('r2'));
    const listings = fake.commands.filter((c) => c.startsWith('show map ') && c.endsWith('os_route_http_redirect.map'));
    // addEntry sets dirty only after HAProxy accepted the entry: one listing, by the first route's lookup.
    expect(listings).toHaveLength(1);
    expect(fake.commands.filter((c) => c.endsWith('(refused)'))).toHaveLength(2);
  });
});

describe('dcm-slots blueprints known at the initial sync', () => {
  it('blueprint events before the sync are provisioned by the first reload', () => {
    const fake = new FakeHaproxy();
    const h = new Harness(new DcmSlotsStrategy({ maxDynamicServers: 1, blueprintPoolSize: 1 }), fake);
    h.sync([{ at: 0, type: 'blueprint.upsert', route: route('bp-re', { namespace: 'bp', tls: { termination: 'reencrypt' } }) }]);
    expect(fake.backends.has('be_secure:_hapcm_blueprint_pool:bp-re-1')).toBe(true);
    h.apply(upsert(route('re', { tls: { termination: 'reencrypt' } })));
    expect(h.requests).toEqual([]);
  });
});

describe('dcm-slots: entries kept across reloads', () => {
  // The strategy keeps its per-route entries when a reload ends and clears one when next reached (the
  // entries' `epoch`); upstream drops them at the reload's end. EagerDrop drops them there too (every entry
  // not of the new period, as upstream's reset leaves it), so both must do and say exactly the same.
  class EagerDrop extends DcmSlotsStrategy {
    override onReloaded(state: RouterState): void {
      super.onReloaded(state);
      const self = this as unknown as { entries: Map<string, { epoch: number; live: boolean }>; epoch: number };
      for (const [key, e] of self.entries) {
        if (e.epoch === self.epoch) continue;
        e.live = false;
        self.entries.delete(key);
      }
    }
  }

  // Route objects to pick from, several per name (the same object may come back): plain http routes pool
  // into slots, one with its own certificate never does (no-blueprint-match), passthrough takes other maps.
  // r0 and r1 share a service, so an endpoint change walks two routes.
  const variants = (name: string, service: string): Route[] => [
    route(name, { service }),
    route(name, { service, host: `${name}-2.example.com` }),
    route(name, { service, tls: { termination: 'edge', certificate: 'C' } }),
    route(name, { service, tls: { termination: 'passthrough' } }),
  ];
  const ROUTES = [variants('r0', 's0'), variants('r1', 's0'), variants('r2', 's2'), variants('r3', 's3')];
  const SERVICES = ['s0', 's2', 's3'];

  type Op =
    | { op: 'upsert'; r: number; v: number }
    | { op: 'delete'; r: number }
    | { op: 'eps'; s: number; is: number[] }
    | { op: 'reload' }
    | { op: 'begin' }
    | { op: 'end' };
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ op: fc.constant('upsert' as const), r: fc.nat(3), v: fc.nat(3) }),
    fc.record({ op: fc.constant('delete' as const), r: fc.nat(3) }),
    fc.record({ op: fc.constant('eps' as const), s: fc.nat(2), is: fc.uniqueArray(fc.integer({ min: 1, max: 5 }), { maxLength: 4 }) }),
    fc.record({ op: fc.constant('reload' as const) }),
    fc.record({ op: fc.constant('begin' as const) }),
    fc.record({ op: fc.constant('end' as const) }),
  );

  function replay(strategy: DcmSlotsStrategy, ops: readonly Op[]): string[] {
    const fake = new FakeHaproxy();
    const h = new Harness(strategy, fake);
    h.sync([upsert(ROUTES[0]![0]!), eps('s0', 1)]);
    const out: string[] = [];
    let end: (() => void) | undefined;
    for (const o of ops) {
      if (o.op === 'upsert') h.apply(upsert(ROUTES[o.r]![o.v]!));
      else if (o.op === 'delete') h.apply(del(`r${o.r}`));
      else if (o.op === 'eps') h.apply(eps(SERVICES[o.s]!, ...o.is));
      else if (o.op === 'reload' && end === undefined) h.reload();
      else if (o.op === 'begin' && end === undefined) end = h.beginReload();
      else if (o.op === 'end' && end !== undefined) {
        end();
        end = undefined;
      }
      out.push(JSON.stringify([h.requests, h.notes, h.runtimeErrors, h.commitArms, fake.commands]));
    }
    return out;
  }

  test.prop([fc.array(opArb, { maxLength: 40 })], { numRuns: 300 })('do and say what dropping them at the reload end does', (ops) => {
    const opts = { maxDynamicServers: 2, blueprintPoolSize: 2 };
    expect(replay(new DcmSlotsStrategy(opts), ops)).toEqual(replay(new EagerDrop(opts), ops));
  });
});
