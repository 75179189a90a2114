import { dynamicMapEntries, MAP_EDGE_REENCRYPT, MAP_HTTP, MAP_TCP, renderedMapEntries } from '../core/haproxy/map-entries.ts';
import { backendNameOf, preferPortOf, servedEndpoints, servedForRoute } from '../core/haproxy/names.ts';
import { POOL_NAMESPACE } from '../core/dcm/blueprints.ts';
import { routeKey, type Route } from '../core/route.ts';
import type { Endpoint } from '../core/endpoint.ts';
import type { RouterState } from '../core/router-state.ts';
import type { ServiceEntry } from '../core/service-endpoints.ts';
import type { MockHaproxy, PristineMap } from './haproxy/mock-haproxy.ts';
import type { BackendConfig, MapEntry, ServerConfig } from '../core/haproxy/config-model.ts';
import { addressAtLoad, isReady, isReadyAtLoad, MockBackend, type MockServer } from './haproxy/backend-state.ts';
import type { MockMap, MockMapEntry } from './haproxy/map-state.ts';
import { isPristine, mapsConsulted, MapSnapshot, probeRequests, readyServers, resolveTarget, type RouteProbe } from './haproxy/route-resolver.ts';
import { MapLookup } from './haproxy/map-lookup.ts';
import type { MapMatch } from './haproxy/haproxy-cfg.ts';
import { editsFrom } from '../core/list-lineage.ts';
import { listChanges } from '../core/dcm/backend-names.ts';

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
  const { rows, liveKeys, owners, clean } = routeSetFacts(state, wildcards);
  // Owners are stamped per check instead of a map built per check: a backend whose stamp is old has no owner yet.
  const stamp = ++checks;

  const maps = new MapSnapshot(haproxy);
  for (const row of rows) {
    if (row.skipped) continue;
    const f = row.facts;
    const expected = expectationOf(row, state);
    for (let i = 0; i < f.probes.length; i++) {
      const probe = f.probes[i]!;
      // A probe that passed stays passed while nothing it read moved: its maps, its backend's servers, the
      // expected servers. Only the sharing of backends between routes is decided anew.
      const kept = reuse ? f.passed[i] : undefined;
      if (kept !== undefined && mapsHold(kept, probe.key, haproxy)) {
        // The maps answer as they did: the same redirect, or the same backend by name, read again only when
        // it or the servers expected of it changed.
        if (kept.backend === undefined) continue;
        const be = haproxy.peekBackend(kept.backend);
        if (be !== undefined) {
          if (be !== kept.be || (be instanceof MockBackend && be.rev !== kept.beRev) || kept.expected !== expected) {
            const before = violations.length;
            if (!servesExactly(be, expected)) violations.push(servesOtherwise(haproxy, f.key, probe, kept.backend, expected));
            // A record that fails stays as it was: the backend is read again at every check until it serves.
            if (violations.length === before) rememberBackend(kept, expected, be);
          }
          claimBackend(owners, stamp, kept.backend, f.key, violations);
          continue;
        }
      }
      const before = violations.length;
      // From scratch (tests compare both): walk the built maps and read the built backend, as a command would.
      const res = resolveTarget(haproxy, probe.request.scheme, probe.key, reuse ? maps : undefined);
      if (probe.expect === 'redirect') {
        if (res.kind !== 'redirect') violations.push(`${whereOf(f.key, probe.request)}: expected a redirect to https, got ${res.kind}`);
        else if (reuse) remember(f, i, expected, haproxy, maps);
        continue;
      }
      if (res.kind !== 'backend') {
        violations.push(`${whereOf(f.key, probe.request)}: ${res.kind === 'unknown-backend' ? `map names unknown backend ${res.backend}` : res.kind}`);
        continue;
      }
      if (!servesExactly(reuse ? res.be : haproxy.backend(res.backend)!, expected)) violations.push(servesOtherwise(haproxy, f.key, probe, res.backend, expected));
      if (res.backend !== f.backend && !res.backend.includes(`:${POOL_NAMESPACE}:`)) {
        violations.push(`${whereOf(f.key, probe.request)}: resolves to ${res.backend}, another route's backend`);
      }
      if (reuse && violations.length === before) remember(f, i, expected, haproxy, maps, res.be, res.backend);
      claimBackend(owners, stamp, res.backend, f.key, violations);
    }
  }

  for (const [file, keys] of liveKeys) {
    const m = reuse ? haproxy.peekMap(file) : haproxy.mapByFile(file);
    if (m === undefined) continue;
    if (reuse && stillClean(clean, file, m, keys)) continue;
    const before = violations.length;
    // A map not built is its config entries, all current.
    const currVer = isPristine(m) ? undefined : m.currVer;
    for (const e of m.entries as ReadonlyArray<MapEntry & { version?: number }>) {
      if ((currVer !== undefined && e.version !== currVer) || keys.has(e.key)) continue;
      violations.push(`${file}: entry ${e.key} → ${e.value} belongs to no live route`);
    }
    if (reuse && violations.length === before) markClean(clean, file, m);
  }
  return violations;
}

/**
 * Whether the map is as it was when its every entry last belonged to a live route of this route set: the
 * same config entries, or the same built map at the same `rev` (commands that change entries or versions
 * move it; a changed value changes no key). Config entries a reload changed are as clean when the entries
 * put in since belong to live routes: taking entries out cannot make one that belongs to none.
 */
function stillClean(clean: RouteSetFacts['clean'], file: string, m: MockMap | PristineMap, keys: Set<string>): boolean {
  const known = clean.get(file);
  if (known === undefined) return false;
  if (!isPristine(m)) return known.source === m && known.rev === m.rev;
  if (known.source === m.entries) return true;
  if (!Array.isArray(known.source)) return false;
  for (const e of entryChanges(file, m.entries, known.source as readonly MapEntry[]).inserted) if (!keys.has(e.key)) return false;
  known.source = m.entries;
  return true;
}

function markClean(clean: RouteSetFacts['clean'], file: string, m: MockMap | PristineMap): void {
  const source = isPristine(m) ? m.entries : m;
  const rev = isPristine(m) ? -1 : m.rev;
  const known = clean.get(file);
  if (known === undefined) clean.set(file, { source, rev });
  else {
    known.source = source;
    known.rev = rev;
  }
}

let checks = 0;

/**
 * What the check needs of the set of live routes as a whole: how many routes claim each host and path, and
 * every map key a live route may own. Kept per state while the same route objects are live (routes are
 * immutable: a changed route is a new object), so checks between route changes only compare identities.
 */
interface RouteSetFacts {
  routes: Route[];
  /**
   * One per route, in `routes` order, made together when the set changes: a check walks these in order
   * rather than looking each route's facts, claim, service and expectation up in a table each (with
   * thousands of routes, a cache miss each: the larger part of a check's time; docs/performance.md).
   */
  rows: RouteRow[];
  liveKeys: Map<string, Set<string>>;
  /** Backend → the route that resolved to it in check `stamp`. */
  owners: Map<string, { stamp: number; key: string }>;
  /** Per map file, what it was when every entry last belonged to a live route of this set (stillClean). */
  clean: Map<string, { source: MockMap | readonly MapEntry[]; rev: number }>;
}

/** What a check reads of one live route. */
interface RouteRow {
  readonly route: Route;
  readonly facts: RouteFacts;
  /** Not checked for (1): no host, or another live route claims its host and path. */
  readonly skipped: boolean;
  readonly preferPort: string | undefined;
  /** Its service's entry in the state, once found: the entry outlives the service's endpoint lists. */
  service: ServiceEntry | undefined;
  /** The endpoint list `expected` was made from. */
  endpoints: readonly Endpoint[] | undefined;
  expected: ExpectedServers | undefined;
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
  // A row kept from the last set keeps its service entry and expectation; whether its claim is contested is
  // decided anew.
  const before = new Map<Route, RouteRow>();
  for (const row of kept?.rows ?? []) before.set(row.route, row);
  const rows = routes.map((r): RouteRow => {
    const f = facts(r, wildcards);
    const skipped = r.host.length === 0 || (claims.get(f.claim) ?? 0) > 1;
    const row = before.get(r);
    if (row === undefined) return { route: r, facts: f, skipped, preferPort: preferPortOf(r), service: undefined, endpoints: undefined, expected: undefined };
    return row.skipped === skipped ? row : { ...row, skipped };
  });
  const made = { routes, rows, liveKeys, owners: kept?.owners ?? new Map(), clean: new Map() };
  sets.set(state, made);
  return made;
}

/**
 * The servers the row's route should be served by, made again only when its service's endpoint list is
 * another object. A forgotten service's entry has no endpoints and is never given any again (a new entry
 * is made), so an entry without endpoints is looked up afresh.
 */
function expectationOf(row: RouteRow, state: RouterState): ExpectedServers {
  let service = row.service;
  if (service === undefined || service.endpoints === undefined) {
    service = state.endpoints.entryOf(row.route.namespace, row.route.service);
    row.service = service;
  }
  const endpoints = service.endpoints ?? NO_ENDPOINTS;
  if (row.endpoints !== endpoints || row.expected === undefined) {
    row.expected = expectedServers(row.route.service, endpoints, row.preferPort);
    row.endpoints = endpoints;
  }
  return row.expected;
}

const NO_ENDPOINTS: readonly Endpoint[] = [];

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
  /** How a map not built was matched (its layout's), for a lookup carried across a reload (sameFirstMatch). */
  match: MapMatch | undefined;
  hit: MockMapEntry | MapEntry | undefined;
  value: string | undefined;
}


function sourceOf(m: MockMap | PristineMap | undefined): MapRead['source'] {
  return m === undefined ? undefined : isPristine(m) ? m.entries : m;
}

/** Records that the route's i-th probe passed, and what it read. */
function remember(f: RouteFacts, i: number, expected: ExpectedServers, haproxy: MockHaproxy, maps: MapSnapshot, be?: MockBackend | BackendConfig, backend?: string): void {
  const probe = f.probes[i]!;
  const files = mapsConsulted(probe.request.scheme);
  // A probe is re-remembered after every change that moved what it read: its record is refilled in place
  // rather than made again (this was the largest allocation of a sweep run).
  let p = f.passed[i];
  if (p === undefined) {
    p = { expected, reads: files.map(newMapRead), be, beRev: -1, backend };
    f.passed[i] = p;
  }
  for (let i = 0; i < files.length; i++) {
    const read = p.reads[i]!;
    const m = haproxy.peekMap(read.file);
    const built = m !== undefined && !isPristine(m) ? m : undefined;
    const hit = m === undefined ? undefined : maps.first(read.file, probe.key);
    read.source = sourceOf(m);
    read.match = m !== undefined && isPristine(m) ? m.match : undefined;
    read.shape = built?.shape ?? -1;
    read.appends = built?.appends ?? -1;
    read.hit = hit;
    read.value = hit?.value;
  }
  rememberBackend(p, expected, be);
  p.backend = backend;
}

function newMapRead(file: string): MapRead {
  return { file, source: undefined, shape: -1, appends: -1, match: undefined, hit: undefined, value: undefined };
}

/**
 * Whether every lookup of `key` would answer as it did: the same source, and for a built map the same shape
 * and then either the same entry, still there with the same value (entries appended since come after it),
 * or, for a miss, nothing appended since (a deletion cannot make a miss match). A map not built whose file
 * a reload has changed answers as it did when the entries put in or taken out since do not touch the lookup
 * (sameFirstMatch). The backend the answer names is the caller's to read again.
 */
function mapsHold(p: PassedProbe, key: string, haproxy: MockHaproxy): boolean {
  for (const read of p.reads) {
    const m = haproxy.peekMap(read.file);
    const source = sourceOf(m);
    if (source !== read.source) {
      if (!Array.isArray(source) || !Array.isArray(read.source) || (m as PristineMap).match !== read.match) return false;
      if (!sameFirstMatch(read.file, source as readonly MapEntry[], read.source as readonly MapEntry[], read.match!, key, read.hit as MapEntry | undefined)) return false;
      // The config's entries for the file now: the next reload's lineage starts from them.
      read.source = source;
      continue;
    }
    if (m === undefined || isPristine(m)) continue;
    if (m.shape !== read.shape) return false;
    const hit = read.hit as MockMapEntry | undefined;
    if (hit === undefined ? m.appends !== read.appends : hit.removed === true || hit.value !== read.value) return false;
  }
  return true;
}

/** A passed probe's backend read again and found serving what is expected. */
function rememberBackend(p: PassedProbe, expected: ExpectedServers, be: MockBackend | BackendConfig | undefined): void {
  p.expected = expected;
  p.be = be;
  p.beRev = be instanceof MockBackend ? be.rev : -1;
}

function servesOtherwise(haproxy: MockHaproxy, key: string, probe: RouteProbe, backend: string, expected: ExpectedServers): string {
  const actual = readyServers(haproxy, backend)
    .map((s) => `${s.address}:${s.port}`)
    .sort();
  return `${whereOf(key, probe.request)}: backend ${backend} serves [${actual.join(', ')}], expected [${expected.list.join(', ')}]`;
}

/**
 * Whether the first entry matching `key` in `entries` is `hit` (undefined: none), as it was in `before`,
 * an earlier list of the same file: it is unless `hit` is gone or an entry put in since matches, since the
 * entries left keep their order (a file's lines are sorted, and the renderer hands an unchanged line on as
 * the same entry). A reload that adds or deletes a route changes the map files it writes to; without this,
 * every route those files serve is looked up again at the next check.
 */
function sameFirstMatch(file: string, entries: readonly MapEntry[], before: readonly MapEntry[], match: MapMatch, key: string, hit: MapEntry | undefined): boolean {
  const changes = entryChanges(file, entries, before);
  if (hit !== undefined && !changes.kept(hit)) return false;
  return changes.inserted.length === 0 || changes.insertedLookup(match).first(key) === undefined;
}

/** How a map file's entries changed from one list to a later one (entryChanges). */
interface EntryChanges {
  readonly entries: readonly MapEntry[];
  readonly before: readonly MapEntry[];
  /** Entries of the later list that `before` lacks. */
  readonly inserted: readonly MapEntry[];
  /** Whether an entry of `before` is still in the later list. */
  kept(e: MapEntry): boolean;
  /** A lookup among the inserted entries alone: each route asks whether one of them matches its requests. */
  insertedLookup(match: MapMatch): MapLookup<MapEntry>;
}

/**
 * The last changes found per map file. Only the last: a cache keyed by the later list would keep the one
 * before alive, and through it every list before that.
 */
const lastChanges = new Map<string, EntryChanges>();

/**
 * The changes from `before` to `entries`: from the lineage the renderer recorded when they are one reload
 * apart, else found by comparing the lists as sets; once per pair, for every route's lookup.
 */
function entryChanges(file: string, entries: readonly MapEntry[], before: readonly MapEntry[]): EntryChanges {
  const known = lastChanges.get(file);
  if (known !== undefined && known.entries === entries && known.before === before) return known;
  const changes = editedEntries(entries, before) ?? comparedEntries(entries, before);
  lastChanges.set(file, changes);
  return changes;
}

function changesOf(entries: readonly MapEntry[], before: readonly MapEntry[], inserted: readonly MapEntry[], kept: (e: MapEntry) => boolean): EntryChanges {
  let lookup: MapLookup<MapEntry> | undefined;
  return {
    entries,
    before,
    inserted,
    kept,
    insertedLookup: (match) => (lookup !== undefined && lookup.match === match ? lookup : (lookup = new MapLookup(inserted, match))),
  };
}

/**
 * The changes as the recorded edits say. Splices keep the order of the entries they do not touch; an entry
 * taken out and put back in counts as both gone and new.
 */
function editedEntries(entries: readonly MapEntry[], before: readonly MapEntry[]): EntryChanges | undefined {
  const edits = editsFrom(entries, before);
  if (edits === undefined) return undefined;
  const removed = new Set<MapEntry>();
  const inserted: MapEntry[] = [];
  for (const edit of edits) {
    if (edit.insert) inserted.push(edit.value);
    else removed.add(edit.value);
  }
  return changesOf(entries, before, inserted, (e) => !removed.has(e) && !inserted.includes(e));
}

/**
 * The changes found by walking the lists together (listChanges, as the client reads a new backend listing):
 * entries paired in order are kept, any other is taken out or put in, so an entry that moved counts as both.
 * Past COMPARED_MAX changes every entry counts as new.
 */
function comparedEntries(entries: readonly MapEntry[], before: readonly MapEntry[]): EntryChanges {
  const changes = listChanges(before, entries, COMPARED_MAX);
  if (changes === undefined) return changesOf(entries, before, entries, () => false);
  const dropped = new Set(changes.dropped.map((i) => before[i]!));
  return changesOf(
    entries,
    before,
    changes.added.map((j) => entries[j]!),
    (e) => !dropped.has(e),
  );
}

/** A walk that finds more changes than this gives up: looking each route up again costs less then. */
const COMPARED_MAX = 256;

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
  /** The last passed record of each probe, by its index (see remember). */
  passed: (PassedProbe | undefined)[];
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
      passed: [],
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
