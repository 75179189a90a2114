import type { BackendConfig, MapEntry } from '../../core/haproxy/config-model.ts';
import { domainForHost } from '../../core/haproxy/route-regexp.ts';
import type { Route } from '../../core/route.ts';
import { isReady, type MockBackend } from './backend-state.ts';
import { lookupOf, pristineLookupOf } from './map-lookup.ts';
import { literalPrefixOf, mapKeyTest, type MockMap, type MockMapEntry } from './map-state.ts';
import type { MockHaproxy, PristineMap } from './mock-haproxy.ts';

/**
 * Where a request would go through the mock's CURRENT maps, looked up the way the frontends of the rendered
 * cfg (and the OpenShift router template) look them up:
 * - plain HTTP (`public`): Host is lowercased; a hit with a non-zero value in os_route_http_redirect.map
 *   redirects to HTTPS; otherwise `base` (Host header + path) is matched against os_http_be.map;
 * - terminated TLS, edge or reencrypt (`fe_sni`): lowercased `base` against os_edge_reencrypt_be.map;
 * - TLS passthrough (`public_ssl`): the SNI, lowercased, must hit os_sni_passthrough.map, then picks the
 *   backend from os_tcp_be.map.
 * A map is an ordered list: the first entry that matches wins, and entries added at runtime are last.
 */
export type Scheme = 'http' | 'https' | 'sni-passthrough';

export interface RouteRequest {
  /** Host header (may carry `:port`) or, for passthrough, the SNI name. */
  host: string;
  /** Request path; the query string, if any, is not part of `base`. Defaults to `/`. */
  path?: string;
  scheme: Scheme;
}

export interface ServerEndpoint {
  address: string;
  port: number;
}

export type Resolution =
  | { kind: 'backend'; backend: string; map: string; key: string; servers: ServerEndpoint[] }
  /** Plain HTTP to a route with insecureEdgeTerminationPolicy Redirect. */
  | { kind: 'redirect'; map: string; key: string }
  /** The map names a backend HAProxy does not have: the request would get a 503. */
  | { kind: 'unknown-backend'; backend: string; map: string; key: string }
  /** Nothing matched (or the map is not loaded): the frontend has no backend for it. */
  | { kind: 'no-match' };

const HTTP_REDIRECT_MAP = 'os_route_http_redirect.map';
const HTTP_MAP = 'os_http_be.map';
const TERMINATED_MAP = 'os_edge_reencrypt_be.map';
const SNI_PASSTHROUGH_MAP = 'os_sni_passthrough.map';
const TCP_MAP = 'os_tcp_be.map';

/**
 * Resolves through indexed map lookups (map-lookup.ts) instead of walking each map: the invariant checker
 * resolves every route after every settled change. The answers are the walk's.
 */
export class MapSnapshot {
  constructor(private readonly haproxy: MockHaproxy) {}

  /** Through `peekMap`: a map no command has built is looked up in its config entries, without building it. */
  first(file: string, input: string): MockMapEntry | MapEntry | undefined {
    const m = this.haproxy.peekMap(file);
    if (m === undefined) return undefined;
    return isPristine(m) ? pristineLookupOf(m.entries, m.match).first(input) : lookupOf(m).first(input);
  }
}

export function isPristine(m: MockMap | PristineMap): m is PristineMap {
  return (m as PristineMap).pristine === true;
}

export function resolveRoute(haproxy: MockHaproxy, request: RouteRequest, snapshot?: MapSnapshot): Resolution {
  const target = resolveTarget(haproxy, request.scheme, lookupKeyOf(request), snapshot);
  if (target.kind !== 'backend') return target;
  return { kind: 'backend', backend: target.backend, map: target.map, key: target.key, servers: readyServers(haproxy, target.backend) };
}

/** A resolution that stops at the backend: the caller reads its servers (the invariant checker, without copies). */
export type Target =
  /** `be` as `MockHaproxy.peekBackend` gives it: the runtime state if built, else the config line. */
  | { kind: 'backend'; backend: string; map: string; key: string; be: MockBackend | BackendConfig }
  | Exclude<Resolution, { kind: 'backend' }>;

const SNI_MAPS = [SNI_PASSTHROUGH_MAP, TCP_MAP];
const HTTP_MAPS = [HTTP_REDIRECT_MAP, HTTP_MAP];
const TERMINATED_MAPS = [TERMINATED_MAP];

const NO_MATCH: Target = { kind: 'no-match' };

/** What the frontend matches the maps against: the lowercased SNI for passthrough, `base` otherwise. */
export function lookupKeyOf(request: RouteRequest): string {
  return request.scheme === 'sni-passthrough' ? request.host.toLowerCase() : baseOf(request);
}

/** The map files `resolveTarget` reads for a scheme: its answer can change only when one of them does. */
export function mapsConsulted(scheme: Scheme): readonly string[] {
  return scheme === 'sni-passthrough' ? SNI_MAPS : scheme === 'http' ? HTTP_MAPS : TERMINATED_MAPS;
}

/** `key` is `lookupKeyOf(request)`, which a caller resolving the same request often may keep. */
export function resolveTarget(haproxy: MockHaproxy, scheme: Scheme, key: string, snapshot?: MapSnapshot): Target {
  if (scheme === 'sni-passthrough') {
    if (lookupIn(haproxy, snapshot, SNI_PASSTHROUGH_MAP, key) === undefined) return NO_MATCH;
    return toBackend(haproxy, TCP_MAP, lookupIn(haproxy, snapshot, TCP_MAP, key));
  }
  if (scheme === 'http') {
    // `map_reg_int(...) -m bool`: the first matching entry decides, and only a non-zero value redirects.
    const redirect = lookupIn(haproxy, snapshot, HTTP_REDIRECT_MAP, key);
    if (redirect !== undefined && parseInt(redirect.value, 10) !== 0) return { kind: 'redirect', map: HTTP_REDIRECT_MAP, key: redirect.key };
    return toBackend(haproxy, HTTP_MAP, lookupIn(haproxy, snapshot, HTTP_MAP, key));
  }
  return toBackend(haproxy, TERMINATED_MAP, lookupIn(haproxy, snapshot, TERMINATED_MAP, key));
}

function lookupIn(haproxy: MockHaproxy, snapshot: MapSnapshot | undefined, file: string, input: string): { key: string; value: string } | undefined {
  return snapshot !== undefined ? snapshot.first(file, input) : firstMatch(haproxy.mapByFile(file), input);
}

/** HAProxy's `base` after the frontends lowercase Host: host followed by the path up to the first `?`. */
export function baseOf(request: RouteRequest): string {
  const path = request.path ?? '/';
  const q = path.indexOf('?');
  return request.host.toLowerCase() + (q < 0 ? path : path.slice(0, q));
}

/** The backend's servers that would take new traffic: running, not in maintenance or drain, weight > 0. */
export function readyServers(haproxy: MockHaproxy, backend: string): ServerEndpoint[] {
  const be = haproxy.backend(backend);
  if (be === undefined) return [];
  const out: ServerEndpoint[] = [];
  for (const s of be.servers) if (isReady(s)) out.push({ address: s.address, port: s.port });
  return out;
}

/** A request that reaches a route, and what the frontends should do with it. */
export interface RouteProbe {
  request: RouteRequest;
  expect: 'backend' | 'redirect';
  /** `lookupKeyOf(request)`, kept: the checker resolves every probe after every settled change. */
  key: string;
}

/**
 * The ways a route is reachable, as requests to resolve: plain HTTP for a route without TLS; HTTPS for edge
 * and reencrypt, plus HTTP when the insecure policy is Allow (or a redirect when it is Redirect); the SNI
 * for passthrough. A wildcard route (`wildcard`: its policy in effect) is asked for at a host of its domain
 * that no route names: its own host goes to an ordinary route of that host when one exists, since the
 * router's maps put every exact host before the wildcard keys.
 */
export function probeRequests(route: Route, wildcard = false): RouteProbe[] {
  const host = wildcard ? `${WILDCARD_PROBE_LABEL}.${domainForHost(route.host)}` : route.host;
  const path = route.path === undefined || route.path === '' ? '/' : route.path;
  const termination = route.tls?.termination;
  if (termination === undefined) return [probe({ host, path, scheme: 'http' }, 'backend')];
  if (termination === 'passthrough') return [probe({ host, scheme: 'sni-passthrough' }, 'backend')];
  const probes: RouteProbe[] = [probe({ host, path, scheme: 'https' }, 'backend')];
  const policy = route.tls?.insecureEdgeTerminationPolicy;
  if (policy === 'Allow') probes.push(probe({ host, path, scheme: 'http' }, 'backend'));
  if (policy === 'Redirect') probes.push(probe({ host, path, scheme: 'http' }, 'redirect'));
  return probes;
}

/** The first label of the host a wildcard route is asked for at: one no real route is expected to name. */
export const WILDCARD_PROBE_LABEL = 'routerbench-wildcard-probe';

function probe(request: RouteRequest, expect: RouteProbe['expect']): RouteProbe {
  return { request, expect, key: lookupKeyOf(request) };
}

function toBackend(haproxy: MockHaproxy, map: string, hit: { key: string; value: string } | undefined): Target {
  if (hit === undefined) return NO_MATCH;
  const be = haproxy.peekBackend(hit.value);
  if (be === undefined) return { kind: 'unknown-backend', backend: hit.value, map, key: hit.key };
  return { kind: 'backend', backend: hit.value, map, key: hit.key, be };
}

export function firstMatch(map: MockMap | undefined, input: string): { key: string; value: string } | undefined {
  if (map === undefined) return undefined;
  for (const e of map.entries) {
    if (e.version !== map.currVer) continue;
    if (map.match === 'str') {
      if (e.key === input) return e;
      continue;
    }
    if (!input.startsWith(literalPrefixOf(e.key))) continue;
    if (mapKeyTest(e.key)?.(input) === true) return e;
  }
  return undefined;
}
