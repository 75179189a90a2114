import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { emptyRouterState, type RouterState } from '../router-state.ts';
import type { Route } from '../route.ts';
import { ServiceEndpoints } from '../service-endpoints.ts';
import { escapeCliKey } from './cli-escape.ts';
import { dynamicMapEntries, renderedMapEntries } from './map-entries.ts';
import { backendNameOf, endpointServerName, md5Hex, routingKeyName } from './names.ts';
import { backendShape } from './render.ts';
import { renderRouterConfig } from './config-renderer.ts';
import { routeRegexp, sniRegexp } from './route-regexp.ts';

function stateWith(routes: Route[], endpoints: Record<string, { ip: string; port: number; name?: string; ready?: boolean }[]>): RouterState {
  const s = emptyRouterState();
  for (const r of routes) s.routes.set(`${r.namespace}/${r.name}`, r);
  for (const [k, v] of Object.entries(endpoints)) s.endpoints.set(k, v);
  return s;
}

const web: Route = { namespace: 'shop', name: 'web', host: 'www.example.com', service: 'web' };
const secure: Route = {
  namespace: 'shop',
  name: 'secure',
  host: 'secure.example.com',
  path: '/api',
  service: 'api',
  tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'Redirect' },
};
const tcp: Route = { namespace: 'db', name: 'pg', host: 'pg.example.com', service: 'pg', tls: { termination: 'passthrough' } };

describe('route regexps', () => {
  it('builds host and path keys like GenerateRouteRegexp', () => {
    expect(routeRegexp('www.example.com', undefined, false)).toBe('^www\\.example\\.com\\.?(:[0-9]+)?(/.*)?$');
    expect(routeRegexp('www.example.com', '/', false)).toBe('^www\\.example\\.com\\.?(:[0-9]+)?(/.*)?$');
    expect(routeRegexp('a.b', '/api', false)).toBe('^a\\.b\\.?(:[0-9]+)?/api(/.*)?$');
    expect(routeRegexp('a.b', '/api/', false)).toBe('^a\\.b\\.?(:[0-9]+)?/api/(.*)?$');
    expect(routeRegexp('a.b', '/a b', false)).toBe('^a\\.b\\.?(:[0-9]+)?/a\\x20b(/.*)?$');
    expect(routeRegexp('x.apps.io', '', true)).toBe('^[^\\.]*\\.apps\\.io\\.?(:[0-9]+)?(/.*)?$');
    expect(sniRegexp('pg.example.com', false)).toBe('^pg\\.example\\.com$');
  });

  it('escapes keys for the CLI: backslashes doubled, dots prefixed', () => {
    expect(escapeCliKey('^a\\.b\\.?(/.*)?$')).toBe('^a\\\\\\.b\\\\\\.?(/\\.*)?$');
  });
});

describe('map entries', () => {
  it('reload: redirect entry for every host route, sni key is the bare host', () => {
    expect(renderedMapEntries(web, 'be_http:shop:web').map((e) => e.map)).toEqual(['os_http_be.map', 'os_route_http_redirect.map']);
    expect(renderedMapEntries(secure, 'B')).toEqual([
      { map: 'os_edge_reencrypt_be.map', key: routeRegexp('secure.example.com', '/api', false), value: 'B' },
      { map: 'os_route_http_redirect.map', key: routeRegexp('secure.example.com', '/api', false), value: '1' },
    ]);
    expect(renderedMapEntries(tcp, 'T')).toEqual([
      { map: 'os_route_http_redirect.map', key: routeRegexp('pg.example.com', '', false), value: '0' },
      { map: 'os_tcp_be.map', key: routeRegexp('pg.example.com', '', false), value: 'T' },
      { map: 'os_sni_passthrough.map', key: sniRegexp('pg.example.com', false), value: '1' },
    ]);
  });

  it('runtime: redirect only for Redirect, sni keyed by the host regexp', () => {
    expect(dynamicMapEntries(web, 'S').map((e) => e.map)).toEqual(['os_http_be.map']);
    expect(dynamicMapEntries(secure, 'S').map((e) => [e.map, e.value])).toEqual([
      ['os_route_http_redirect.map', 'S'],
      ['os_edge_reencrypt_be.map', 'S'],
    ]);
    const hostKey = routeRegexp('pg.example.com', '', false);
    expect(dynamicMapEntries(tcp, 'S')).toEqual([
      { map: 'os_tcp_be.map', key: hostKey, value: 'S' },
      { map: 'os_sni_passthrough.map', key: hostKey, value: '1' },
    ]);
    expect(dynamicMapEntries({ ...web, host: '' }, 'S')).toEqual([]);
  });
});

describe('renderRouterConfig', () => {
  const state = stateWith([web, secure, tcp], {
    'shop/web': [
      { ip: '10.0.0.1', port: 8080, name: 'web-1' },
      { ip: '10.0.0.2', port: 8080, name: 'web-2', ready: false },
      { ip: '10.0.0.3', port: 8080 },
    ],
    'shop/api': [{ ip: '10.0.1.1', port: 9000, name: 'api-1' }],
  });

  it('orders backends by <namespace>:<name> and names them by termination', () => {
    const cfg = renderRouterConfig(state, { maxDynamicServers: 0 });
    expect(cfg.backends.map((b) => b.name)).toEqual(['be_tcp:db:pg', 'be_edge_http:shop:secure', 'be_http:shop:web']);
  });

  it('serves only ready endpoints as static servers, weight 1, checks only with >1 endpoint', () => {
    const cfg = renderRouterConfig(state, { maxDynamicServers: 0 });
    const webBe = cfg.backends[2]!;
    expect(webBe).toMatchObject({ mode: 'http', balance: 'random', cookieName: routingKeyName(web) });
    expect(webBe.dynamicCookieKey).toBeUndefined();
    // Servers and their cookies are computed when read (see backendWithEndpoints): read them explicitly.
    expect(webBe.servers.map((s) => ({ ...s, cookie: s.cookie }))).toEqual([
      { name: 'pod:web-1:web::10.0.0.1:8080', address: '10.0.0.1', port: 8080, weight: 1, disabled: false, check: true, canonicalAddress: true, cookie: md5Hex('pod:web-1:web::10.0.0.1:8080') },
      { name: 'ept:web::10.0.0.3:8080', address: '10.0.0.3', port: 8080, weight: 1, disabled: false, check: true, canonicalAddress: true, cookie: md5Hex('ept:web::10.0.0.3:8080') },
    ]);
    expect(cfg.backends[1]!.servers.map((s) => s.check)).toEqual([false]);
    // An IPv6 address is not a dotted quad: the mock parses it to print it as HAProxy does.
    const v6Endpoints = new ServiceEndpoints();
    for (const [k, eps] of state.endpoints) v6Endpoints.set(k, eps.map((e) => ({ ...e, ip: `::FFFF:${e.ip}` })));
    const v6 = renderRouterConfig({ ...state, endpoints: v6Endpoints }, { maxDynamicServers: 0 });
    expect(v6.backends[2]!.servers.map((s) => s.canonicalAddress)).toEqual([false, false]);
    // Passthrough without endpoints still gets its backend: tcp mode, source balance, no cookie, no servers.
    expect({ ...cfg.backends[0], servers: cfg.backends[0]!.servers }).toEqual({ name: 'be_tcp:db:pg', mode: 'tcp', balance: 'source', hashType: 'consistent', servers: [] });
  });

  it('builds a backend\'s server list at each read until the second, and keeps it from then on', () => {
    // The mock reads a backend once per load: a list kept in the (by then old) backend would outlive the
    // young generation through it (see RenderedBackend.servers). A reader that comes back has it kept.
    const webBe = renderRouterConfig(state, { maxDynamicServers: 0 }).backends[2]!;
    const first = webBe.servers;
    const second = webBe.servers;
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
    expect(webBe.servers).toBe(second);
    expect(webBe.servers).toBe(second);
  });

  it('adds N disabled _dynamic-pod slots and pool backends for dcm-slots', () => {
    const pool: Route = { namespace: '_hapcm_blueprint_pool', name: '_blueprint-http-route-1', host: '', service: '_hapcm_blueprint_pool.svc', tls: { termination: '' as never } };
    const cfg = renderRouterConfig(state, { maxDynamicServers: 2, extraBackends: [{ ...pool, tls: undefined }] });
    expect(cfg.backends.map((b) => b.name)).toEqual([
      'be_http:_hapcm_blueprint_pool:_blueprint-http-route-1',
      'be_tcp:db:pg',
      'be_edge_http:shop:secure',
      'be_http:shop:web',
    ]);
    const slotBe = cfg.backends[0]!;
    expect(slotBe.servers).toEqual([
      { name: '_dynamic-pod-1', address: '172.4.0.4', port: 8765, weight: 1, disabled: true, check: true, canonicalAddress: true },
      { name: '_dynamic-pod-2', address: '172.4.0.4', port: 8765, weight: 1, disabled: true, check: true, canonicalAddress: true },
    ]);
    expect(slotBe.dynamicCookieKey).toBe(routingKeyName(pool));
    expect(cfg.backends[3]!.servers.map((s) => s.name)).toEqual(['pod:web-1:web::10.0.0.1:8080', 'ept:web::10.0.0.3:8080', '_dynamic-pod-1', '_dynamic-pod-2']);
    expect(cfg.backends[3]!.dynamicCookieKey).toBe(routingKeyName(web));
  });

  // backendShape hands every backend of a slot count and weight the same slot list (render.ts slotServerList):
  // it must be the list the template writes for that route, whatever was rendered before it.
  test.prop([fc.array(fc.tuple(fc.integer({ min: 0, max: 8 }), fc.constantFrom('', 'edge', 'passthrough', 'reencrypt')), { minLength: 1, maxLength: 12 })])(
    'slot servers: the template list for each route, one shared list per slot count and weight',
    (renders) => {
      const seen = new Map<string, readonly unknown[]>();
      for (const [slots, termination] of renders) {
        const route: Route = { ...web, tls: termination === '' ? undefined : { termination: termination as 'edge' } };
        const shape = backendShape(route, backendNameOf(route), 'slots', slots);
        // server-template _dynamic-pod- 1-N 172.4.0.4:8765 … disabled; reencrypt lists them with weight 0.
        const weight = termination === 'reencrypt' ? 0 : 1;
        expect(shape.slotServers).toEqual(
          Array.from({ length: slots }, (_, i) => ({ name: `_dynamic-pod-${i + 1}`, address: '172.4.0.4', port: 8765, weight, disabled: true, check: true, canonicalAddress: true })),
        );
        const key = `${slots}/${weight}`;
        if (seen.has(key)) expect(shape.slotServers).toBe(seen.get(key));
        seen.set(key, shape.slotServers);
      }
    },
  );

  it('writes every map file, sorted in reverse with the pool (no host) absent', () => {
    const other: Route = { namespace: 'shop', name: 'web2', host: 'www.example.com', path: '/static', service: 'web' };
    const cfg = renderRouterConfig(stateWith([web, other, secure, tcp], {}), { maxDynamicServers: 0 });
    expect(Object.keys(cfg.maps)).toEqual(['os_route_http_redirect.map', 'os_http_be.map', 'os_sni_passthrough.map', 'os_tcp_be.map', 'os_edge_reencrypt_be.map']);
    // Reverse byte order: "…com\.?(:[0-9]+)?/static(/.*)?$" sorts above "…com\.?(:[0-9]+)?(/.*)?$" ('/' 0x2f > '(' 0x28).
    expect(cfg.maps['os_http_be.map']).toEqual([
      { key: routeRegexp('www.example.com', '/static', false), value: 'be_http:shop:web2' },
      { key: routeRegexp('www.example.com', '', false), value: 'be_http:shop:web' },
    ]);
    expect(cfg.maps['os_route_http_redirect.map']!.map((e) => e.value)).toEqual(['0', '0', '1', '0']);
  });

  it('honours balance and cookie annotations as the template validates them', () => {
    const annotated: Route = { ...web, annotations: { 'haproxy.router.openshift.io/balance': 'leastconn', 'router.openshift.io/cookie_name': 'my_cookie' } };
    const off: Route = { ...web, name: 'w2', annotations: { 'haproxy.router.openshift.io/balance': 'bogus', 'haproxy.router.openshift.io/disable_cookies': 'true' } };
    const cfg = renderRouterConfig(stateWith([annotated, off], {}), { maxDynamicServers: 0 });
    // 'shop:w2' sorts before 'shop:web' ('2' 0x32 < 'e' 0x65).
    expect(cfg.backends[1]).toMatchObject({ balance: 'leastconn', cookieName: 'my_cookie' });
    expect(cfg.backends[0]!.balance).toBe('random');
    expect(cfg.backends[0]!.cookieName).toBeUndefined();
  });

  it('is deterministic', () => {
    expect(renderRouterConfig(state, { maxDynamicServers: 3 })).toEqual(renderRouterConfig(state, { maxDynamicServers: 3 }));
    expect(endpointServerName('svc', { ip: '1.2.3.4', port: 80 })).toBe('ept:svc::1.2.3.4:80');
  });
});
