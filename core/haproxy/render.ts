import type { Endpoint } from '../endpoint.ts';
import { endpointsOf, type RouterState } from '../router-state.ts';
import { serviceKey, type Route } from '../route.ts';
import type { Balance, BackendConfig, HaproxyConfig, MapEntry, ServerConfig } from './config-model.ts';
import { compareMapLines, MAP_FILES, MAP_WILDCARD, renderedMapEntries } from './map-entries.ts';
import { aliasKey, backendNameOf, isTrue, md5Hex, routingKeyName, servedEndpoints } from './names.ts';

/**
 * What a reload writes, modelled on images/router/haproxy/conf/haproxy-config.template: one backend per
 * route (the template ranges over the router state map, which Go templates visit in sorted key order, so
 * backends are ordered by `<namespace>:<name>`), the route's ready endpoints as static servers, the config
 * manager's `_dynamic-pod-N` slots, and the map files.
 */
export interface RenderOptions {
  /** `_dynamic-pod-1..N` disabled slot servers per backend (dcm-slots); 0 = no slots. */
  maxDynamicServers: number;
  /** Pool slot routes (`_hapcm_blueprint_pool` namespace, no host), rendered as ordinary backends. */
  extraBackends?: readonly Route[];
  /**
   * Which template generation: `none` is the router without a config manager; `slots` the 2018 template
   * (static servers keep `cookie <hash>`, `cookie … dynamic`, `dynamic-cookie-key`, slot servers);
   * `add-del` the 2026 template (static servers without `cookie`, `dynamic-cookie-key`, no slots).
   * Defaults to `slots` when maxDynamicServers > 0, else `none`.
   */
  manager?: 'none' | 'slots' | 'add-del';
  /** ROUTER_ALLOW_WILDCARD_ROUTES. */
  allowWildcardRoutes?: boolean;
}

/** The template's placeholder address of every dynamic slot (`server-template … 172.4.0.4:8765`). */
export const SLOT_ADDRESS = '172.4.0.4';
export const SLOT_PORT = 8765;
/** `ServerTemplateName`: the constant prefix `_dynamic` + `-pod`; slots are `_dynamic-pod-1..N`. */
export const SLOT_NAME_PREFIX = '_dynamic-pod-';

const BALANCE_ANNOTATION = 'haproxy.router.openshift.io/balance';
const DISABLE_COOKIES_ANNOTATION = 'haproxy.router.openshift.io/disable_cookies';
const COOKIE_NAME_ANNOTATION = 'router.openshift.io/cookie_name';
const BALANCE_RE = /^(?:roundrobin|leastconn|source|random)$/;
const COOKIE_NAME_RE = /^[a-zA-Z0-9_-]+$/;

export function slotServerName(i: number): string {
  return `${SLOT_NAME_PREFIX}${i}`;
}

/**
 * Per-route render results, reused while the route object, its endpoint list object and the options are the
 * same: RouterState replaces (never mutates) routes and endpoint lists, so identity is a sound cache key. A
 * reload re-renders every route, and under churn reloads come every few seconds, so this keeps a reload's
 * cost proportional to what changed. The returned configs share these objects: treat them as read-only.
 */
interface Rendered {
  endpoints: readonly Endpoint[] | undefined;
  manager: string;
  slots: number;
  wildcard: boolean;
  key: string;
  backend: BackendConfig;
  mapLines: readonly MapLine[];
}
interface MapLine {
  file: string;
  /** `<key> <value>`, the text the reload sorts. */
  line: string;
  entry: MapEntry;
}
const renderCache = new WeakMap<Route, Rendered>();
/** Map lines depend on the route alone, so endpoint changes keep their identity (see `lastMaps`). */
const mapLineCache = new WeakMap<Route, { wildcard: boolean; lines: readonly MapLine[] }>();

function mapLinesOf(route: Route, name: string, wildcard: boolean): readonly MapLine[] {
  const hit = mapLineCache.get(route);
  if (hit !== undefined && hit.wildcard === wildcard) return hit.lines;
  const lines = renderedMapEntries(route, name, { allowWildcardRoutes: wildcard }).map((e) => ({
    file: e.map,
    line: `${e.key} ${e.value}`,
    entry: { key: e.key, value: e.value },
  }));
  mapLineCache.set(route, { wildcard, lines });
  return lines;
}

function renderedRoute(state: RouterState, route: Route, manager: 'none' | 'slots' | 'add-del', slots: number, wildcard: boolean): Rendered {
  const endpoints = state.endpoints.get(serviceKey(route.namespace, route.service));
  const hit = renderCache.get(route);
  if (hit !== undefined && hit.endpoints === endpoints && hit.manager === manager && hit.slots === slots && hit.wildcard === wildcard) return hit;
  const name = backendNameOf(route);
  const r: Rendered = {
    endpoints,
    manager,
    slots,
    wildcard,
    key: hit?.key ?? aliasKey(route),
    backend: renderBackend(state, route, name, manager, slots),
    mapLines: mapLinesOf(route, name, wildcard),
  };
  renderCache.set(route, r);
  return r;
}

/**
 * The maps of the previous render and the per-route line lists they were built from: under endpoint churn
 * the routes (hence every map line) are unchanged from one reload to the next, and the sorted maps are reused.
 */
let lastMaps: { wildcard: boolean; sources: (readonly MapLine[])[]; maps: Record<string, MapEntry[]> } | null = null;

export function renderRouterConfig(state: RouterState, opts: RenderOptions): HaproxyConfig {
  const manager = opts.manager ?? (opts.maxDynamicServers > 0 ? 'slots' : 'none');
  const slots = manager === 'slots' ? opts.maxDynamicServers : 0;
  const wildcard = opts.allowWildcardRoutes === true;
  const rendered: Rendered[] = [];
  for (const r of state.routes.values()) rendered.push(renderedRoute(state, r, manager, slots, wildcard));
  if (opts.extraBackends !== undefined) for (const r of opts.extraBackends) rendered.push(renderedRoute(state, r, manager, slots, wildcard));
  rendered.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

  const backends: BackendConfig[] = new Array(rendered.length);
  const sources: (readonly MapLine[])[] = new Array(rendered.length);
  for (let i = 0; i < rendered.length; i++) {
    backends[i] = rendered[i]!.backend;
    sources[i] = rendered[i]!.mapLines;
  }
  const prev = lastMaps;
  if (prev !== null && prev.wildcard === wildcard && sameSources(prev.sources, sources)) return { backends, maps: prev.maps };

  const lines = new Map<string, MapLine[]>();
  for (const f of MAP_FILES) lines.set(f, []);
  if (wildcard) lines.set(MAP_WILDCARD, []);
  for (const src of sources) for (const l of src) lines.get(l.file)?.push(l);
  const maps: Record<string, MapEntry[]> = {};
  for (const [file, ls] of lines) {
    ls.sort((a, b) => compareMapLines(a.line, b.line));
    maps[file] = ls.map((l) => l.entry);
  }
  lastMaps = { wildcard, sources, maps };
  return { backends, maps };
}

function sameSources(a: readonly (readonly MapLine[])[], b: readonly (readonly MapLine[])[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}


/** The backend block for one route. Exported for strategies that need a single backend's shape. */
export function renderBackend(
  state: RouterState,
  route: Route,
  name: string,
  manager: 'none' | 'slots' | 'add-del',
  slots: number,
): BackendConfig {
  const termination = route.tls?.termination ?? '';
  const passthrough = termination === 'passthrough';
  const annotations = route.annotations;
  const served = servedEndpoints(route.service, endpointsOf(state, route.namespace, route.service));

  // One service per route: with endpoints it is the single active service unit, whose weight the router
  // reduces to 1 (calculateServiceWeights); without endpoints it has no weight entry and no servers.
  const weight = 1;
  // Health checks only when the route has more than one active endpoint (`gt $cfg.ActiveEndpoints 1`).
  const check = served.length > 1;
  const staticCookies = manager !== 'add-del' && !passthrough;
  const servers: ServerConfig[] = served.map((e) => {
    const s: ServerConfig = { name: e.id, address: e.ip, port: e.port, weight, disabled: false, check };
    if (staticCookies) s.cookie = md5Hex(e.id);
    return s;
  });
  // Slots: `server-template _dynamic-pod- 1-N 172.4.0.4:8765 check inter … disabled` (weight defaults to 1);
  // reencrypt backends list them one by one with `weight 0 ssl disabled check`.
  for (let i = 1; i <= slots; i++) {
    servers.push({
      name: slotServerName(i),
      address: SLOT_ADDRESS,
      port: SLOT_PORT,
      weight: termination === 'reencrypt' ? 0 : 1,
      disabled: true,
      check: true,
    });
  }

  const annotatedBalance = annotations?.[BALANCE_ANNOTATION];
  // Without the annotation: `random` for http-mode backends, `source` for passthrough (single service;
  // ROUTER_LOAD_BALANCE_ALGORITHM / ROUTER_TCP_BALANCE_SCHEME are not modelled).
  const balance: Balance =
    annotatedBalance !== undefined && BALANCE_RE.test(annotatedBalance)
      ? (annotatedBalance as Balance)
      : passthrough
        ? 'source'
        : 'random';

  const backend: BackendConfig = { name, mode: passthrough ? 'tcp' : 'http', balance, servers };
  if (passthrough) backend.hashType = 'consistent';
  const key = routingKeyName(route);
  if (!passthrough && !isTrue(annotations?.[DISABLE_COOKIES_ANNOTATION])) {
    const annotated = annotations?.[COOKIE_NAME_ANNOTATION];
    backend.cookieName = annotated !== undefined && COOKIE_NAME_RE.test(annotated) ? annotated : key;
  }
  // The 2018 template writes `dynamic-cookie-key <RoutingKeyName>` next to the slots (passthrough included);
  // the 2026 one on every backend once a config manager is on.
  if ((manager === 'slots' && (slots > 0 || termination === 'reencrypt')) || manager === 'add-del') {
    backend.dynamicCookieKey = key;
  }
  return backend;
}
