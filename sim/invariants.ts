import { dynamicMapEntries, MAP_EDGE_REENCRYPT, MAP_HTTP, MAP_TCP, renderedMapEntries } from '../core/haproxy/map-entries.ts';
import { backendNameOf, servedEndpoints } from '../core/haproxy/names.ts';
import { POOL_NAMESPACE } from '../core/dcm/blueprints.ts';
import { routeKey } from '../core/route.ts';
import { endpointsOf, type RouterState } from '../core/router-state.ts';
import type { MockHaproxy } from './haproxy/mock-haproxy.ts';
import { probeRequests, resolveRoute } from './haproxy/route-resolver.ts';

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
    const c = `${r.host}\u0000${r.path ?? ''}`;
    claims.set(c, (claims.get(c) ?? 0) + 1);
  }

  const backendOwner = new Map<string, string>();
  const liveKeys = new Map<string, Set<string>>();
  for (const file of [MAP_HTTP, MAP_EDGE_REENCRYPT, MAP_TCP]) liveKeys.set(file, new Set());

  for (const r of state.routes.values()) {
    for (const e of renderedMapEntries(r, '')) liveKeys.get(e.map)?.add(e.key);
    for (const e of dynamicMapEntries(r, '')) liveKeys.get(e.map)?.add(e.key);
    if (r.host.length === 0) continue;
    if ((claims.get(`${r.host}\u0000${r.path ?? ''}`) ?? 0) > 1) continue;

    const expected = servedEndpoints(r.service, endpointsOf(state, r.namespace, r.service))
      .map((e) => `${e.ip}:${e.port}`)
      .sort();
    for (const probe of probeRequests(r)) {
      const req = probe.request;
      const where = `${routeKey(r)} via ${req.scheme}://${req.host}${req.path ?? ''}`;
      const res = resolveRoute(haproxy, req);
      if (probe.expect === 'redirect') {
        if (res.kind !== 'redirect') violations.push(`${where}: expected a redirect to https, got ${res.kind}`);
        continue;
      }
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
