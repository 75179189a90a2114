import { dynamicMapEntries, MAP_EDGE_REENCRYPT, MAP_HTTP, MAP_TCP, renderedMapEntries } from '../core/haproxy/map-entries.ts';
import { backendNameOf, servedEndpoints } from '../core/haproxy/names.ts';
import { POOL_NAMESPACE } from '../core/dcm/blueprints.ts';
import { routeKey, type Route } from '../core/route.ts';
import type { Endpoint } from '../core/endpoint.ts';
import { endpointsOf, type RouterState } from '../core/router-state.ts';
import type { MockHaproxy } from './haproxy/mock-haproxy.ts';
import { MapSnapshot, probeRequests, resolveRoute, type RouteProbe } from './haproxy/route-resolver.ts';

/**
 * What a request would see, compared with the desired state (issue 3's invariants):
 * 1. every live route's host and path resolve through HAProxy's maps to a backend whose ready servers are
 *    exactly the route's ready endpoints, for every way the route is reachable (sim/haproxy/route-resolver
 *    `probeRequests`: plain http, terminated TLS, SNI; a Redirect route's plain http must redirect);
 * 2. deleted routes resolve nowhere: every backend-valued entry of os_http_be.map, os_edge_reencrypt_be.map
 *    and os_tcp_be.map belongs to a live route (its key is one the route's map entries have);
 * 3. no two routes share a backend, in particular a pool slot; a route served from a backend that is
 *    neither its own nor a pool slot is reported too.
 *
 * Routes that share host and path with another live route are skipped for (1): the router admits only one
 * of them, which this model does not decide.
 */
export function checkInvariants(state: RouterState, haproxy: MockHaproxy): string[] {
  const violations: string[] = [];
  const claims = new Map<string, number>();
  for (const r of state.routes.values()) {
    const c = facts(r).claim;
    claims.set(c, (claims.get(c) ?? 0) + 1);
  }

  const backendOwner = new Map<string, string>();
  const liveKeys = new Map<string, Set<string>>();
  for (const file of [MAP_HTTP, MAP_EDGE_REENCRYPT, MAP_TCP]) liveKeys.set(file, new Set());

  const maps = new MapSnapshot(haproxy);
  for (const r of state.routes.values()) {
    const f = facts(r);
    for (const e of f.mapKeys) liveKeys.get(e.map)?.add(e.key);
    if (r.host.length === 0) continue;
    if ((claims.get(f.claim) ?? 0) > 1) continue;

    const expected = expectedServers(r.service, endpointsOf(state, r.namespace, r.service));
    for (const probe of f.probes) {
      const req = probe.request;
      const res = resolveRoute(haproxy, req, maps);
      if (probe.expect === 'redirect') {
        if (res.kind !== 'redirect') violations.push(`${whereOf(f.key, req)}: expected a redirect to https, got ${res.kind}`);
        continue;
      }
      if (res.kind !== 'backend') {
        violations.push(`${whereOf(f.key, req)}: ${res.kind === 'unknown-backend' ? `map names unknown backend ${res.backend}` : res.kind}`);
        continue;
      }
      const owner = backendOwner.get(res.backend);
      if (owner !== undefined && owner !== f.key) {
        const what = res.backend.includes(`:${POOL_NAMESPACE}:`) ? 'pool slot' : 'backend';
        violations.push(`${f.key} and ${owner} share ${what} ${res.backend}`);
      }
      backendOwner.set(res.backend, f.key);
      const actual = res.servers.map((s) => `${s.address}:${s.port}`).sort();
      if (actual.join(',') !== expected.joined) {
        violations.push(`${whereOf(f.key, req)}: backend ${res.backend} serves [${actual.join(', ')}], expected [${expected.list.join(', ')}]`);
      }
      if (res.backend !== f.backend && !res.backend.includes(`:${POOL_NAMESPACE}:`)) {
        violations.push(`${whereOf(f.key, req)}: resolves to ${res.backend}, another route's backend`);
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

function whereOf(key: string, req: RouteProbe['request']): string {
  return `${key} via ${req.scheme}://${req.host}${req.path ?? ''}`;
}

/**
 * What the check needs of a route that depends on the route alone. Routes are immutable and checked after
 * every settled change, so this (regexps built by quoting the host, probes, names) is kept per route object.
 */
interface RouteFacts {
  key: string;
  backend: string;
  /** Host and path: two live routes with the same claim are not checked (see above). */
  claim: string;
  /** Every (map, key) the route may own, at reload or at runtime. */
  mapKeys: readonly { map: string; key: string }[];
  probes: ReturnType<typeof probeRequests>;
}

const factsByRoute = new WeakMap<Route, RouteFacts>();

function facts(r: Route): RouteFacts {
  let f = factsByRoute.get(r);
  if (f === undefined) {
    f = {
      key: routeKey(r),
      backend: backendNameOf(r),
      claim: `${r.host}\u0000${r.path ?? ''}`,
      mapKeys: [...renderedMapEntries(r, ''), ...dynamicMapEntries(r, '')].map((e) => ({ map: e.map, key: e.key })),
      probes: probeRequests(r),
    };
    factsByRoute.set(r, f);
  }
  return f;
}

/** The addresses a route's backend should serve, sorted; endpoint lists are immutable, so kept per list. */
const expectedByEndpoints = new WeakMap<readonly Endpoint[], Map<string, { list: string[]; joined: string }>>();

function expectedServers(service: string, endpoints: readonly Endpoint[]): { list: string[]; joined: string } {
  let perService = expectedByEndpoints.get(endpoints);
  if (perService === undefined) {
    perService = new Map();
    expectedByEndpoints.set(endpoints, perService);
  }
  let e = perService.get(service);
  if (e === undefined) {
    const list = servedEndpoints(service, endpoints)
      .map((x) => `${x.ip}:${x.port}`)
      .sort();
    e = { list, joined: list.join(',') };
    perService.set(service, e);
  }
  return e;
}
