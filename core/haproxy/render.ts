import { isDottedQuad } from '../dotted-quad.ts';
import type { Endpoint } from '../endpoint.ts';
import type { Route } from '../route.ts';
import type { Balance, BackendConfig, ServerConfig } from './config-model.ts';
import { isTrue, md5Hex, preferPortOf, routingKeyName, servedEndpoints, servedForRoute, type ServedEndpoint, type ServedSource } from './names.ts';

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
  /** Where a config manager keeps each service's served endpoints: servers are then named by its strings. */
  served?: ServedSource;
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
 * The `_dynamic-pod-1..N` servers of a backend, one list per slot count and weight for every backend:
 * configs are read-only, and the same few objects and name strings stay in the cache. Lists of their own
 * per route put ten thousand name strings around the heap, each read again only when the route's backend
 * is next listed, a cache miss per slot: the config manager's `_dynamic` prefix test on them cost 1.2% of
 * a dcm-slots replay of the day slice (the saturated-day bench log's first 200,000 events, commit 3f29de2),
 * and building the mock's servers from them more.
 */
function slotServerList(slots: number, weight: 0 | 1): readonly ServerConfig[] {
  const lists = SLOT_SERVERS[weight];
  let list = lists.get(slots);
  if (list === undefined) {
    const made: ServerConfig[] = [];
    for (let i = 1; i <= slots; i++) made.push({ name: slotServerName(i), address: SLOT_ADDRESS, port: SLOT_PORT, weight, disabled: true, check: true, canonicalAddress: isDottedQuad(SLOT_ADDRESS) });
    list = made;
    lists.set(slots, list);
  }
  return list;
}

const SLOT_SERVERS: readonly [Map<number, readonly ServerConfig[]>, Map<number, readonly ServerConfig[]>] = [new Map(), new Map()];

/**
 * Everything of a route's backend block but its static servers. It depends on the route alone, so a
 * renderer keeps it while the route object lives and only re-lists the servers when endpoints change.
 */
export interface BackendShape {
  readonly service: string;
  /** The route's targetPort as text: only that port's endpoints become servers. */
  readonly preferPort: string | undefined;
  readonly name: string;
  readonly mode: 'http' | 'tcp';
  readonly balance: Balance;
  readonly hashType: 'consistent' | undefined;
  readonly cookieName: string | undefined;
  readonly dynamicCookieKey: string | undefined;
  readonly staticCookies: boolean;
  /** The `_dynamic-pod-N` servers, shared by every render (configs are read-only). */
  readonly slotServers: readonly ServerConfig[];
}

export function backendShape(route: Route, name: string, manager: 'none' | 'slots' | 'add-del', slots: number): BackendShape {
  const termination = route.tls?.termination ?? '';
  const passthrough = termination === 'passthrough';
  const annotations = route.annotations;
  // Slots: `server-template _dynamic-pod- 1-N 172.4.0.4:8765 check inter … disabled` (weight defaults to 1);
  // reencrypt backends list them one by one with `weight 0 ssl disabled check`.
  const slotServers = slotServerList(slots, termination === 'reencrypt' ? 0 : 1);

  const annotatedBalance = annotations?.[BALANCE_ANNOTATION];
  // Without the annotation: `random` for http-mode backends, `source` for passthrough (single service;
  // ROUTER_LOAD_BALANCE_ALGORITHM / ROUTER_TCP_BALANCE_SCHEME are not modelled).
  const balance: Balance =
    annotatedBalance !== undefined && BALANCE_RE.test(annotatedBalance)
      ? (annotatedBalance as Balance)
      : passthrough
        ? 'source'
        : 'random';

  const key = routingKeyName(route);
  let cookieName: string | undefined;
  if (!passthrough && !isTrue(annotations?.[DISABLE_COOKIES_ANNOTATION])) {
    const annotated = annotations?.[COOKIE_NAME_ANNOTATION];
    cookieName = annotated !== undefined && COOKIE_NAME_RE.test(annotated) ? annotated : key;
  }
  // The 2018 template writes `dynamic-cookie-key <RoutingKeyName>` next to the slots (passthrough included);
  // the 2026 one on every backend once a config manager is on.
  const dynamicCookieKey = (manager === 'slots' && (slots > 0 || termination === 'reencrypt')) || manager === 'add-del' ? key : undefined;
  return {
    service: route.service,
    preferPort: preferPortOf(route),
    name,
    mode: passthrough ? 'tcp' : 'http',
    balance,
    hashType: passthrough ? 'consistent' : undefined,
    cookieName,
    dynamicCookieKey,
    staticCookies: manager !== 'add-del' && !passthrough,
    slotServers,
  };
}

/**
 * The backend block: the shape with the service's ready endpoints as static servers, then the slots. The
 * server list is built when first read: under churn most rendered backends are replaced by the next reload
 * before anything (the mock, a cfg writer) looks at them. Endpoint lists are never mutated, so holding one
 * is a snapshot.
 */
export function backendWithEndpoints(shape: BackendShape, endpoints: readonly Endpoint[], served?: ServedSource, serviceKey = ''): BackendConfig {
  return new RenderedBackend(shape, endpoints, served, serviceKey);
}

class RenderedBackend implements BackendConfig {
  readonly name: string;
  readonly mode: 'http' | 'tcp';
  readonly balance: Balance;
  declare readonly hashType?: 'consistent';
  declare readonly cookieName?: string;
  declare readonly dynamicCookieKey?: string;
  #shape: BackendShape;
  #endpoints: readonly Endpoint[];
  #servers: ServerConfig[] | undefined;
  /** The server list was built once and not kept (see `servers`). */
  #builtOnce = false;
  #served: ServedSource | undefined;
  #serviceKey: string;

  constructor(shape: BackendShape, endpoints: readonly Endpoint[], served: ServedSource | undefined, serviceKey: string) {
    this.name = shape.name;
    this.mode = shape.mode;
    this.balance = shape.balance;
    const self = this as { hashType?: string; cookieName?: string; dynamicCookieKey?: string };
    if (shape.hashType !== undefined) self.hashType = shape.hashType;
    if (shape.cookieName !== undefined) self.cookieName = shape.cookieName;
    if (shape.dynamicCookieKey !== undefined) self.dynamicCookieKey = shape.dynamicCookieKey;
    this.#shape = shape;
    this.#endpoints = endpoints;
    this.#served = served;
    this.#serviceKey = serviceKey;
  }

  /**
   * Built when read, and kept only from the second read on. The mock reads a backend once per load, at its
   * first look, and by then this backend is an old object (rendered thousands of events before, and
   * promoted), soon replaced by the reload after the change that made the mock look. A young list kept in
   * an old object is a root for every scavenge until a full collection frees the old one, however dead it
   * is: the list and its servers were copied twice and promoted, 15% of what outlives the scavenges of a
   * dcm-slots replay of the saturated day. Not kept, they die young with the mock's copy of them. A reader
   * that comes back to the same backend (a later load, a check, a cfg writer) has it kept.
   */
  get servers(): ServerConfig[] {
    if (this.#servers !== undefined) return this.#servers;
    const shape = this.#shape;
    const served = this.#served === undefined ? servedEndpoints(shape.service, this.#endpoints) : this.#served.servedOf(this.#serviceKey, shape.service, this.#endpoints);
    const servers = serversOf(shape, served);
    if (this.#builtOnce) this.#servers = servers;
    else this.#builtOnce = true;
    return servers;
  }
}

function serversOf(shape: BackendShape, all: readonly ServedEndpoint[]): ServerConfig[] {
  const served = servedForRoute(all, shape.preferPort);
  // One service per route: with endpoints it is the single active service unit, whose weight the router
  // reduces to 1 (calculateServiceWeights); without endpoints it has no weight entry and no servers.
  const weight = 1;
  // Health checks only when the route has more than one active endpoint (`gt $cfg.ActiveEndpoints 1`),
  // counted on its own port (getActiveEndpoints with PreferPort).
  const check = served.length > 1;
  const servers: ServerConfig[] = new Array(served.length + shape.slotServers.length);
  for (let i = 0; i < served.length; i++) {
    const e = served[i]!;
    servers[i] = shape.staticCookies
      ? new CookieServer(e.id, e.ip, e.port, weight, check, e.dottedQuad)
      : { name: e.id, address: e.ip, port: e.port, weight, disabled: false, check, canonicalAddress: e.dottedQuad };
  }
  for (let i = 0; i < shape.slotServers.length; i++) servers[served.length + i] = shape.slotServers[i]!;
  return servers;
}

/**
 * A static server with `cookie <md5(id)>`. The hash is only read when a cfg file is written (the mock never
 * needs it), and a churn run renders hundreds of thousands of new endpoints: compute it on demand.
 */
class CookieServer implements ServerConfig {
  readonly disabled = false;
  constructor(
    readonly name: string,
    readonly address: string,
    readonly port: number,
    readonly weight: number,
    readonly check: boolean,
    readonly canonicalAddress: boolean,
  ) {}

  get cookie(): string {
    return md5Hex(this.name);
  }
}
