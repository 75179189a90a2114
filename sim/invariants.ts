import { dynamicMapEntries, MAP_EDGE_REENCRYPT, MAP_HTTP, MAP_TCP, renderedMapEntries } from '../core/haproxy/map-entries.ts';
import { backendNameOf, servedEndpoints } from '../core/haproxy/names.ts';
import { POOL_NAMESPACE } from '../core/dcm/blueprints.ts';
import { routeKey, type Route } from '../core/route.ts';
import { endpointsOf, type RouterState } from '../core/router-state.ts';
import { compileMapRegex, type MockMap } from './haproxy/map-state.ts';
import type { MockHaproxy } from './haproxy/mock-haproxy.ts';
import { baseOf, readyServers, resolveRoute, type RouteRequest } from './haproxy/route-resolver.ts';

/**
 * What a request would see, compared with the desired state (issue 3's invariants):
 * 1. every live route's host and path resolve through HAProxy's maps to a backend whose ready servers are
 *    exactly the route's ready endpoints (plain http for http routes and edge/reencrypt routes with the
 *    Allow policy, terminated TLS for edge/reencrypt, SNI for passthrough);
 * 2. deleted routes resolve nowhere: every backend-valued entry of os_http_be.map, os_edge_reencrypt_be.map
 *    and os_tcp_be.map belongs to a live route (its key is one the route's map entries have);
 * 3. no two routes share a backend, in particular a pool slot.
 *
 * Plain http looks up os_route_http_redirect.map as the router template does: `map_reg_int(...) -m bool`,
 * so an entry redirects only when its value is a non-zero integer (a reload writes "0" for every route
 * without the Redirect policy). sim/haproxy/route-resolver treats any hit as a redirect, so plain http is
 * resolved here; terminated TLS and SNI go through `resolveRoute`.
 *
 * Routes that share host and path with another live route are skipped for (1): the router admits only one
 * of them, which this model does not decide. Wildcard routes are skipped too.
 */
export function checkInvariants(state: RouterState, haproxy: MockHaproxy): string[] {
  const violations: string[] = [];
  const claims = new Map<string, number>();
  for (const r of state.routes.values()) {
    const c = `${r.host}\u0000${r.path ?? ''}`;
    claims.set(c, (claims.get(c) ?? 0) + 1);
  }

  const backendOwner = new Map<string, string>();
  const liveKeys = new Map<string, Set<string>>();
  for (const file of [MAP_HTTP, MAP_EDGE_REENCRYPT, MAP_TCP]) liveKeys.set(file, new Set());

  for (const r of state.routes.values()) {
    for (const e of renderedMapEntries(r, '')) liveKeys.get(e.map)?.add(e.key);
    for (const e of dynamicMapEntries(r, '')) liveKeys.get(e.map)?.add(e.key);
    if (r.wildcardPolicy === 'Subdomain' || r.host.length === 0) continue;
    if ((claims.get(`${r.host}\u0000${r.path ?? ''}`) ?? 0) > 1) continue;

    const expected = servedEndpoints(r.service, endpointsOf(state, r.namespace, r.service))
      .map((e) => `${e.ip}:${e.port}`)
      .sort();
    for (const req of requestsFor(r)) {
      const where = `${routeKey(r)} via ${req.scheme}://${req.host}${req.path ?? ''}`;
      const res = req.scheme === 'http' ? resolvePlainHttp(haproxy, req) : resolveRoute(haproxy, req);
      if (res.kind !== 'backend') {
        violations.push(`${where}: ${res.kind === 'unknown-backend' ? `map names unknown backend ${res.backend}` : res.kind}`);
        continue;
      }
      const owner = backendOwner.get(res.backend);
      if (owner !== undefined && owner !== routeKey(r)) {
        const what = res.backend.includes(`:${POOL_NAMESPACE}:`) ? 'pool slot' : 'backend';
        violations.push(`${routeKey(r)} and ${owner} share ${what} ${res.backend}`);
      }
      backendOwner.set(res.backend, routeKey(r));
      const actual = res.servers.map((s) => `${s.address}:${s.port}`).sort();
      if (actual.join(',') !== expected.join(',')) {
        violations.push(`${where}: backend ${res.backend} serves [${actual.join(', ')}], expected [${expected.join(', ')}]`);
      }
      if (!res.backend.includes(`:${POOL_NAMESPACE}:`) && res.backend !== backendNameOf(r)) {
        violations.push(`${where}: resolves to ${res.backend}, another route's backend`);
      }
    }
  }

  for (const [file, keys] of liveKeys) {
    const m = haproxy.mapByFile(file);
    if (m === undefined) continue;
    for (const e of m.entries) {
      if (e.version !== m.currVer || keys.has(e.key)) continue;
      violations.push(`${file}: entry ${e.key} → ${e.value} belongs to no live route`);
    }
  }
  return violations;
}

/** The requests that must reach the route's endpoints. */
function requestsFor(r: Route): RouteRequest[] {
  const path = r.path ?? '/';
  switch (r.tls?.termination) {
    case undefined:
      return [{ host: r.host, path, scheme: 'http' }];
    case 'passthrough':
      return r.path === undefined ? [{ host: r.host, scheme: 'sni-passthrough' }] : [];
    default: {
      const out: RouteRequest[] = [{ host: r.host, path, scheme: 'https' }];
      if (r.tls?.insecureEdgeTerminationPolicy === 'Allow') out.push({ host: r.host, path, scheme: 'http' });
      return out;
    }
  }
}

type PlainResolution =
  | { kind: 'backend'; backend: string; servers: { address: string; port: number }[] }
  | { kind: 'redirect' }
  | { kind: 'unknown-backend'; backend: string }
  | { kind: 'no-match' };

/** The `public` frontend: redirect when os_route_http_redirect.map yields a true int, else os_http_be.map. */
function resolvePlainHttp(haproxy: MockHaproxy, req: RouteRequest): PlainResolution {
  const base = baseOf(req);
  const redirect = firstMatch(haproxy.mapByFile('os_route_http_redirect.map'), base);
  if (redirect !== undefined && /^[+-]?[0-9]+$/.test(redirect.value) && Number(redirect.value) !== 0) return { kind: 'redirect' };
  const hit = firstMatch(haproxy.mapByFile(MAP_HTTP), base);
  if (hit === undefined) return { kind: 'no-match' };
  if (haproxy.backend(hit.value) === undefined) return { kind: 'unknown-backend', backend: hit.value };
  return { kind: 'backend', backend: hit.value, servers: readyServers(haproxy, hit.value) };
}

function firstMatch(map: MockMap | undefined, input: string): { key: string; value: string } | undefined {
  if (map === undefined) return undefined;
  for (const e of map.entries) {
    if (e.version !== map.currVer) continue;
    if (map.match === 'str') {
      if (e.key === input) return e;
      continue;
    }
    const re = compileMapRegex(e.key);
    if (!(re instanceof Error) && re.test(input)) return e;
  }
  return undefined;
}
