import { beforeEach, describe, expect, it } from 'vitest';
import type { Endpoint } from '../endpoint.ts';
import type { Route } from '../route.ts';
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
