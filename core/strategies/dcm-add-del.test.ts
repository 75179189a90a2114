import { beforeEach, describe, expect, it } from 'vitest';
import type { Endpoint } from '../endpoint.ts';
import type { Route } from '../route.ts';
import { applyChurn } from '../router-state.ts';
import { FakeHaproxy } from '../testing/fake-haproxy.ts';
import { Harness } from '../testing/harness.ts';
import { DcmAddDelStrategy } from './dcm-add-del.ts';

const route = (name: string, extra: Partial<Route> = {}): Route => ({ namespace: 'shop', name, host: `${name}.example.com`, service: name, ...extra });
const ep = (svc: string, i: number): Endpoint => ({ ip: `10.0.0.${i}`, port: 8080, name: `${svc}-${i}` });
const eps = (svc: string, ...is: number[]) => ({ at: 0, type: 'endpoints.set' as const, namespace: 'shop', service: svc, endpoints: is.map((i) => ep(svc, i)) });
const upsert = (r: Route) => ({ at: 0, type: 'route.upsert' as const, route: r });
const BE = 'be_http:shop:a';
const id = (i: number) => `pod:a-${i}:a::10.0.0.${i}:8080`;

describe('dcm-add-del', () => {
  let fake: FakeHaproxy;
  let h: Harness;
  beforeEach(() => {
    fake = new FakeHaproxy();
    h = new Harness(new DcmAddDelStrategy(), fake);
    h.sync([upsert(route('a')), eps('a', 1)]);
    fake.commands.length = 0;
  });

  it('renders no slots and a dynamic cookie key, static servers without cookies; pools still provisioned', () => {
    expect(fake.backends.get(BE)!.servers.map((s) => s.name)).toEqual([id(1)]);
    expect(fake.backends.get(BE)!.cookieKey).toBeDefined();
    // Initialize still provisions 3 default blueprints × 10 pool routes (default size): 30 empty backends.
    const pool = [...fake.backends.values()].filter((b) => b.name.includes(':_hapcm_blueprint_pool:'));
    expect(pool).toHaveLength(30);
    expect(pool.every((b) => b.servers.length === 0)).toBe(true);
  });

  it('scale 1 → 2 after a reload: `enable health` on the former single static server fails → runtime-api-error', () => {
    // The template writes `check` only when the route has more than one endpoint, so the single static server
    // has none; upstream still enables health on "the former single endpoint" and HAProxy 2.6 refuses
    // ("Health check was not configured on this server, cannot enable.", measured on 2.6.12).
    h.apply(eps('a', 1, 2));
    expect(fake.commands).toEqual([
      'show backend',
      `add server ${BE}/${id(2)} 10.0.0.2:8080 weight 1 check inter 5000ms`,
      `set server ${BE}/${id(2)} state ready`,
      `enable health ${BE}/${id(2)}`,
      `enable health ${BE}/${id(1)}`,
    ]);
    expect(h.reasons()).toEqual(['runtime-api-error']);
    // The error says what failed; the request adds nothing to it, so that it folds like any request
    // without a detail while a reload waits.
    expect(h.runtimeErrors).toEqual([`unexpected response from haproxy to "enable health ${BE}/${id(1)}": Health check was not configured on this server, cannot enable.`]);
    expect(h.requests).toEqual([{ reason: 'runtime-api-error' }]);
    // The server was added and is serving before the reload.
    expect(fake.ready(BE)).toEqual(['10.0.0.1:8080', '10.0.0.2:8080']);
  });

  it('scale 2 → 3 (static servers rendered with check): no reload', () => {
    h.apply(eps('a', 1, 2));
    h.settle(); // both static, both with `check`
    fake.commands.length = 0;
    h.apply(eps('a', 1, 2, 3));
    // old has 2 endpoints, so only the added one gets `enable health`.
    expect(fake.commands.slice(1)).toEqual([
      `add server ${BE}/${id(3)} 10.0.0.3:8080 weight 1 check inter 5000ms`,
      `set server ${BE}/${id(3)} state ready`,
      `enable health ${BE}/${id(3)}`,
    ]);
    expect(h.requests).toEqual([]);
  });

  it('scale 2 → 1: maint then del server; health off on the one left', () => {
    h.apply(eps('a', 1, 2));
    h.settle();
    fake.commands.length = 0;
    h.apply(eps('a', 2));
    expect(fake.commands).toEqual(['show backend', `set server ${BE}/${id(1)} state maint`, `del server ${BE}/${id(1)}`, `disable health ${BE}/${id(2)}`]);
    expect(fake.backends.get(BE)!.servers.map((s) => s.name)).toEqual([id(2)]);
    expect(h.requests).toEqual([]);
  });

  it('replacing the single endpoint by two fails on `enable health` of the deleted one → runtime-api-error', () => {
    // old [a-1], new [a-2, a-3]: a-1 is deleted, then (old had 1 endpoint) health is enabled on a-1 → No such server.
    h.apply(eps('a', 2, 3));
    expect(h.reasons()).toEqual(['runtime-api-error']);
    expect(fake.ready(BE)).toEqual(['10.0.0.2:8080', '10.0.0.3:8080']);
  });

  it('endpoints of a route added since the last reload: its backend is missing, counted as route-change', () => {
    h.apply(upsert(route('b')));
    h.apply(eps('b', 1));
    expect(h.reasons()).toEqual(['route-change', 'route-change']);
    expect(h.runtimeErrors).toEqual([]);
  });

  it('route add, change and delete always reload', () => {
    h.apply(upsert(route('b')));
    h.apply(upsert(route('b', { path: '/x' })));
    h.apply({ at: 0, type: 'route.delete', namespace: 'shop', name: 'b' });
    expect(h.reasons()).toEqual(['route-change', 'route-change', 'route-change']);
    expect(fake.commands).toEqual([]);
  });

  it('reencrypt servers get the TLS keywords of innerAddServer', () => {
    h.apply(upsert(route('r', { tls: { termination: 'reencrypt', destinationCACertificate: 'CA' } })));
    h.apply(eps('r', 1));
    h.settle();
    fake.commands.length = 0;
    h.apply(eps('r', 1, 2));
    expect(fake.commands[1]).toBe(
      'add server be_secure:shop:r/pod:r-2:r::10.0.0.2:8080 10.0.0.2:8080 weight 1 ssl alpn h2,http/1.1 verify required ca-file /var/lib/haproxy/router/cacerts/shop:r.pem check-ssl check inter 5000ms',
    );
  });

  it('refuses during a reload and ignores services without routes or unchanged ready sets', () => {
    h.apply(eps('nobody', 1));
    h.apply({ at: 0, type: 'endpoints.set', namespace: 'shop', service: 'a', endpoints: [ep('a', 1), { ...ep('a', 9), ready: false }] });
    expect(fake.commands).toEqual([]);
    h.reloadInProgress = true;
    h.apply(eps('a', 1, 2));
    expect(h.reasons()).toEqual(['reload-in-progress']);
  });
});

describe('dcm-add-del, as router.go and backend.go of the add/del manager', () => {
  const on = (name: string, service: string): Route => route(name, { service });

  it('during the first reload, endpoints of a service without routes or with the same ready set ask for no reload', () => {
    const fake = new FakeHaproxy();
    const h = new Harness(new DcmAddDelStrategy(), fake);
    for (const e of [upsert(route('a')), eps('a', 1)]) applyChurn(h.state, e);
    const end = h.beginReload();
    // AddEndpoints of a service no route uses: nothing to change, so no stateChanged and no reload.
    h.apply(eps('other', 1));
    h.apply({ at: 0, type: 'endpoints.delete', namespace: 'shop', service: 'other' });
    // A not-ready address is not in the EndpointTable: equal to the old one, AddEndpoints returns.
    h.apply({ ...eps('a', 1), endpoints: [ep('a', 1), { ...ep('a', 2), ready: false }] });
    expect(h.requests).toEqual([]);
    // A routed service's change is refused while the reload runs, and asks for the next one.
    h.apply(eps('a', 1, 2));
    expect(h.reasons()).toEqual(['reload-in-progress']);
    end();
    expect(fake.commands).toEqual([]);
  });

  it('a `del server` the socket never delivers is logged, not an error: the server stays in maint, no reload', () => {
    const fake = new FakeHaproxy();
    const h = new Harness(new DcmAddDelStrategy(), fake);
    h.sync([upsert(route('a')), eps('a', 1, 2, 3)]);
    const send = fake.send.bind(fake);
    fake.send = (c) => (c.kind === 'del server' ? (fake.commands.push('(refused)'), { ok: false, error: 'refused' }) : send(c));
    fake.commands.length = 0;
    h.apply(eps('a', 1, 2));
    // maint, then `del server` tried three times (runCommandWithRetries), then DeleteServer returns no error.
    expect(fake.commands).toEqual(['show backend', `set server ${BE}/${id(3)} state maint`, '(refused)', '(refused)', '(refused)']);
    expect(h.requests).toEqual([]);
    expect(h.runtimeErrors).toEqual([]);
    expect(h.commitArms).toBe(1);
    expect(fake.ready(BE)).toEqual(['10.0.0.1:8080', '10.0.0.2:8080']);
  });

  it('a change refused during the first reload updates only the first route\'s table; the second keeps the initial sync\'s', () => {
    const fake = new FakeHaproxy();
    const h = new Harness(new DcmAddDelStrategy(), fake);
    const web = (...is: number[]) => ({ ...eps('web', ...is), endpoints: is.map((i) => ep('web', i)) });
    // Routes a and b on service web; dynamicallyAddRoute gave both the table {1, 2}.
    for (const e of [upsert(on('a', 'web')), upsert(on('b', 'web')), web(1, 2)]) applyChurn(h.state, e);
    const end = h.beginReload();
    // Refused: ReplaceRouteEndpoints replaced a's table before the refusal; the walk stopped there.
    h.apply(web(1, 2, 3));
    expect(h.reasons()).toEqual(['reload-in-progress']);
    end();
    // The reload it asked for writes {1, 2, 3} into both backends.
    h.reload();
    fake.commands.length = 0;
    h.apply(web(1, 2, 3, 4));
    // a: {1, 2, 3} → {1, 2, 3, 4} adds 4. b: {1, 2} → adds 3, which exists: `del server` of a ready
    // server is refused, AddServer fails, and the router reloads.
    const b = 'be_http:shop:b';
    expect(fake.commands.filter((c) => c.includes(b)).slice(0, 2)).toEqual([
      `add server ${b}/pod:web-3:web::10.0.0.3:8080 10.0.0.3:8080 weight 1 check inter 5000ms`,
      `del server ${b}/pod:web-3:web::10.0.0.3:8080`,
    ]);
    expect(h.reasons()).toEqual(['runtime-api-error']);
  });
});

