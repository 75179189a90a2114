import { dynamicMapEntries, MAP_EDGE_REENCRYPT, MAP_HTTP, MAP_TCP, renderedMapEntries } from '../core/haproxy/map-entries.ts';
import { backendNameOf, preferPortOf, servedEndpoints, servedForRoute } from '../core/haproxy/names.ts';
import { POOL_NAMESPACE } from '../core/dcm/blueprints.ts';
import { routeKey, type Route } from '../core/route.ts';
import type { Endpoint } from '../core/endpoint.ts';
import { endpointsOf, type RouterState } from '../core/router-state.ts';
import type { MockHaproxy, PristineMap } from './haproxy/mock-haproxy.ts';
import type { BackendConfig, MapEntry, ServerConfig } from '../core/haproxy/config-model.ts';
import { addressAtLoad, isReady, isReadyAtLoad, MockBackend, type MockServer } from './haproxy/backend-state.ts';
import type { MockMap, MockMapEntry } from './haproxy/map-state.ts';
import { isPristine, mapsConsulted, MapSnapshot, probeRequests, readyServers, resolveTarget, type RouteProbe } from './haproxy/route-resolver.ts';

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
export function checkInvariants(state: RouterState, haproxy: MockHaproxy, opts: { reuse?: boolean; allowWildcardRoutes?: boolean } = {}): string[] {
  const reuse = opts.reuse !== false;
  const wildcards = opts.allowWildcardRoutes === true;
  const violations: string[] = [];
  const { claims, liveKeys, owners } = routeSetFacts(state, wildcards);
  // Owners are stamped per check instead of a map built per check: a backend whose stamp is old has no owner yet.
  const stamp = ++checks;

  const maps = new MapSnapshot(haproxy);
  for (const r of state.routes.values()) {
    const f = facts(r, wildcards);
    if (r.host.length === 0) continue;
    if ((claims.get(f.claim) ?? 0) > 1) continue;

    const expected = expectedServers(r.service, endpointsOf(state, r.namespace, r.service), preferPortOf(r));
    for (const probe of f.probes) {
      // A probe that passed stays passed while nothing it read moved: its maps, its backend's servers, the
      // expected servers. Only the sharing of backends between routes is decided anew.
      const kept = reuse ? passedProbes.get(probe) : undefined;
      if (kept !== undefined && kept.expected === expected && stillHolds(kept, haproxy)) {
        if (kept.backend !== undefined) claimBackend(owners, stamp, kept.backend, f.key, violations);
        continue;
      }
      const before = violations.length;
      // From scratch (tests compare both): walk the built maps and read the built backend, as a command would.
      const res = resolveTarget(haproxy, probe.request.scheme, probe.key, reuse ? maps : undefined);
      if (probe.expect === 'redirect') {
        if (res.kind !== 'redirect') violations.push(`${whereOf(f.key, probe.request)}: expected a redirect to https, got ${res.kind}`);
        else if (reuse) remember(probe, expected, haproxy, maps);
        continue;
      }
      if (res.kind !== 'backend') {
        violations.push(`${whereOf(f.key, probe.request)}: ${res.kind === 'unknown-backend' ? `map names unknown backend ${res.backend}` : res.kind}`);
        continue;
      }
      if (!servesExactly(reuse ? res.be : haproxy.backend(res.backend)!, expected)) {
        const actual = readyServers(haproxy, res.backend)
          .map((s) => `${s.address}:${s.port}`)
          .sort();
        violations.push(`${whereOf(f.key, probe.request)}: backend ${res.backend} serves [${actual.join(', ')}], expected [${expected.list.join(', ')}]`);
      }
      if (res.backend !== f.backend && !res.backend.includes(`:${POOL_NAMESPACE}:`)) {
        violations.push(`${whereOf(f.key, probe.request)}: resolves to ${res.backend}, another route's backend`);
      }
      if (reuse && violations.length === before) remember(probe, expected, haproxy, maps, res.be, res.backend);
      claimBackend(owners, stamp, res.backend, f.key, violations);
    }
  }

  for (const [file, keys] of liveKeys) {
    const m = reuse ? haproxy.peekMap(file) : haproxy.mapByFile(file);
    if (m === undefined) continue;
    // A map not built is its config entries, all current.
    const currVer = isPristine(m) ? undefined : m.currVer;
    for (const e of m.entries as ReadonlyArray<MapEntry & { version?: number }>) {
      if ((currVer !== undefined && e.version !== currVer) || keys.has(e.key)) continue;
      violations.push(`${file}: entry ${e.key} → ${e.value} belongs to no live route`);
    }
  }
  return violations;
}

let checks = 0;

/**
 * What the check needs of the set of live routes as a whole: how many routes claim each host and path, and
 * every map key a live route may own. Kept per state while the same route objects are live (routes are
 * immutable: a changed route is a new object), so checks between route changes only compare identities.
 */
interface RouteSetFacts {
  routes: Route[];
  claims: Map<string, number>;
  liveKeys: Map<string, Set<string>>;
  /** Backend → the route that resolved to it in check `stamp`. */
  owners: Map<string, { stamp: number; key: string }>;
}

const routeSets = new WeakMap<RouterState, RouteSetFacts>();
/** The same with wildcard routes allowed (their map keys and probes differ). */
const wildcardRouteSets = new WeakMap<RouterState, RouteSetFacts>();

function routeSetFacts(state: RouterState, wildcards: boolean): RouteSetFacts {
  const sets = wildcards ? wildcardRouteSets : routeSets;
  const kept = sets.get(state);
  if (kept !== undefined && sameRoutes(kept.routes, state.routes)) return kept;
  const routes = [...state.routes.values()];
  const claims = new Map<string, number>();
  const liveKeys = new Map<string, Set<string>>();
  for (const file of [MAP_HTTP, MAP_EDGE_REENCRYPT, MAP_TCP]) liveKeys.set(file, new Set());
  for (const r of routes) {
    const f = facts(r, wildcards);
    claims.set(f.claim, (claims.get(f.claim) ?? 0) + 1);
    for (const e of f.mapKeys) liveKeys.get(e.map)?.add(e.key);
  }
  const made = { routes, claims, liveKeys, owners: kept?.owners ?? new Map() };
  sets.set(state, made);
  return made;
}

function sameRoutes(kept: readonly Route[], live: Map<string, Route>): boolean {
  if (kept.length !== live.size) return false;
  let i = 0;
  for (const r of live.values()) if (r !== kept[i++]) return false;
  return true;
}

/** Records that `key` resolved to `backend` in this check; a second route there is a violation. */
function claimBackend(owners: RouteSetFacts['owners'], stamp: number, backend: string, key: string, violations: string[]): void {
  const owner = owners.get(backend);
  if (owner === undefined) owners.set(backend, { stamp, key });
  else if (owner.stamp !== stamp) {
    owner.stamp = stamp;
    owner.key = key;
  } else if (owner.key !== key) {
    const what = backend.includes(`:${POOL_NAMESPACE}:`) ? 'pool slot' : 'backend';
    violations.push(`${key} and ${owner.key} share ${what} ${backend}`);
    owner.key = key;
  }
}

/**
 * What a passed probe read: for each map its scheme consults, what it looked in (a built map, or the config
 * entries of one not built) and the entry that matched, with the value then; then its backend (built, or
 * its config line) and, built, that backend's `rev`. Config entries and lines never change, and the
 * renderer hands unchanged ones to the next reload as the same objects, so a probe outlives reloads that
 * did not touch what it read.
 */
interface PassedProbe {
  expected: ExpectedServers;
  reads: MapRead[];
  be: MockBackend | BackendConfig | undefined;
  beRev: number;
  backend: string | undefined;
}

interface MapRead {
  file: string;
  /** The built map, or the config's entry array of a map not built. */
  source: MockMap | readonly MapEntry[] | undefined;
  shape: number;
  appends: number;
  hit: MockMapEntry | MapEntry | undefined;
  value: string | undefined;
}

const passedProbes = new WeakMap<RouteProbe, PassedProbe>();

function sourceOf(m: MockMap | PristineMap | undefined): MapRead['source'] {
  return m === undefined ? undefined : isPristine(m) ? m.entries : m;
}

function remember(probe: RouteProbe, expected: ExpectedServers, haproxy: MockHaproxy, maps: MapSnapshot, be?: MockBackend | BackendConfig, backend?: string): void {
  const files = mapsConsulted(probe.request.scheme);
  // A probe is re-remembered after every change that moved what it read: its record is refilled in place
  // rather than made again (this was the largest allocation of a sweep run).
  let p = passedProbes.get(probe);
  if (p === undefined) {
    p = { expected, reads: files.map(newMapRead), be, beRev: -1, backend };
    passedProbes.set(probe, p);
  }
  for (let i = 0; i < files.length; i++) {
    const read = p.reads[i]!;
    const m = haproxy.peekMap(read.file);
    const built = m !== undefined && !isPristine(m) ? m : undefined;
    const hit = m === undefined ? undefined : maps.first(read.file, probe.key);
    read.source = sourceOf(m);
    read.shape = built?.shape ?? -1;
    read.appends = built?.appends ?? -1;
    read.hit = hit;
    read.value = hit?.value;
  }
  p.expected = expected;
  p.be = be;
  p.beRev = be instanceof MockBackend ? be.rev : -1;
  p.backend = backend;
}

function newMapRead(file: string): MapRead {
  return { file, source: undefined, shape: -1, appends: -1, hit: undefined, value: undefined };
}

/**
 * Whether every lookup would answer as it did: the same source, and for a built map the same shape and
 * then either the same entry, still there with the same value (entries appended since come after it), or,
 * for a miss, nothing appended since (a deletion cannot make a miss match). The backend must be the same
 * object, and a built one unchanged.
 */
function stillHolds(p: PassedProbe, haproxy: MockHaproxy): boolean {
  for (const read of p.reads) {
    const m = haproxy.peekMap(read.file);
    if (sourceOf(m) !== read.source) return false;
    if (m === undefined || isPristine(m)) continue;
    if (m.shape !== read.shape) return false;
    const hit = read.hit as MockMapEntry | undefined;
    if (hit === undefined ? m.appends !== read.appends : hit.removed === true || hit.value !== read.value) return false;
  }
  if (p.backend === undefined) return true;
  const be = haproxy.peekBackend(p.backend);
  return be === p.be && (!(be instanceof MockBackend) || be.rev === p.beRev);
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
/** The same with wildcard routes allowed. */
const wildcardFactsByRoute = new WeakMap<Route, RouteFacts>();

function facts(r: Route, wildcards: boolean): RouteFacts {
  const byRoute = wildcards ? wildcardFactsByRoute : factsByRoute;
  let f = byRoute.get(r);
  if (f === undefined) {
    const opts = { allowWildcardRoutes: wildcards };
    f = {
      key: routeKey(r),
      backend: backendNameOf(r),
      claim: `${r.host}\u0000${r.path ?? ''}`,
      mapKeys: [...renderedMapEntries(r, '', opts), ...dynamicMapEntries(r, '', opts)].map((e) => ({ map: e.map, key: e.key })),
      probes: probeRequests(r, wildcards && r.wildcardPolicy === 'Subdomain'),
    };
    byRoute.set(r, f);
  }
  return f;
}

/** The addresses a route's backend should serve: sorted, and indexed by address for `servesExactly`. */
export interface ExpectedServers {
  list: string[];
  joined: string;
  /** address → [port, bit] pairs, the bit one per expected server; undefined when a bit mask cannot tell them apart. */
  byAddress: Map<string, Array<[number, number]>> | undefined;
}

/** Endpoint lists are immutable, so the expectation is kept per list. */
const expectedByEndpoints = new WeakMap<readonly Endpoint[], Map<string, ExpectedServers>>();

export function expectedServers(service: string, endpoints: readonly Endpoint[], preferPort?: string): ExpectedServers {
  let perService = expectedByEndpoints.get(endpoints);
  if (perService === undefined) {
    perService = new Map();
    expectedByEndpoints.set(endpoints, perService);
  }
  // Service names are DNS labels, without ':'; routes without a targetPort (most) build no key.
  const key = preferPort === undefined ? service : `${service}:${preferPort}`;
  let e = perService.get(key);
  if (e === undefined) {
    const served = servedForRoute(servedEndpoints(service, endpoints), preferPort);
    const list = served.map((x) => `${x.ip}:${x.port}`).sort();
    let byAddress: ExpectedServers['byAddress'] = new Map();
    // Two endpoints at one address and port (different names) are two servers alike: the mask cannot count them.
    if (new Set(list).size !== list.length || list.length > 30) byAddress = undefined;
    else
      served.forEach((x, i) => {
        const ports = byAddress!.get(x.ip);
        if (ports === undefined) byAddress!.set(x.ip, [[x.port, 1 << i]]);
        else ports.push([x.port, 1 << i]);
      });
    e = { list, joined: list.join(','), byAddress };
    perService.set(key, e);
  }
  return e;
}

/**
 * Whether the backend's ready servers are exactly the expected addresses, each once. Runs for every probe
 * of every route after every settled change, so it compares in place: one bit per expected server.
 */
export function servesExactly(be: MockBackend | BackendConfig, expected: ExpectedServers): boolean {
  // A backend no command or look has built since the load is its config line: read readiness from that.
  const built = be instanceof MockBackend;
  const index = expected.byAddress;
  if (index === undefined) {
    const actual: string[] = [];
    for (const s of be.servers) if (readyAs(s, built)) actual.push(`${addressAs(s, built)}:${s.port}`);
    return actual.sort().join(',') === expected.joined;
  }
  let seen = 0;
  for (const s of be.servers) {
    if (!readyAs(s, built)) continue;
    const ports = index.get(addressAs(s, built));
    if (ports === undefined) return false;
    let bit = 0;
    for (const [port, b] of ports) if (port === s.port) bit = b;
    if (bit === 0 || (seen & bit) !== 0) return false;
    seen |= bit;
  }
  return seen === (expected.list.length === 0 ? 0 : 2 ** expected.list.length - 1);
}

function readyAs(s: MockServer | ServerConfig, built: boolean): boolean {
  return built ? isReady(s as MockServer) : isReadyAtLoad(s as ServerConfig);
}

function addressAs(s: MockServer | ServerConfig, built: boolean): string {
  return built ? s.address : addressAtLoad(s as ServerConfig);
}
