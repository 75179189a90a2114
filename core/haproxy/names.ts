import * as crypto from 'node:crypto';
import { isDottedQuad } from '../dotted-quad.ts';
import { isReady, servesPort, type Endpoint } from '../endpoint.ts';
import { OneString } from '../one-string.ts';
import { RecentMap } from '../recent-map.ts';
import { terminationOf, type Route, type Termination } from '../route.ts';

/**
 * Names exactly as the router renders them (pkg/router/template/util GenerateBackendNamePrefix,
 * router.go routeKey, plugin.go endpoint IDs). Modelled, not copied.
 */

/** The router's ServiceAliasConfigKey: `<namespace>:<name>` (routeKeySeparator is ":"). */
export function aliasKey(r: { namespace: string; name: string }): string {
  return `${r.namespace}:${r.name}`;
}

export function backendPrefix(termination: Termination | ''): string {
  switch (termination) {
    case 'edge':
      return 'be_edge_http';
    case 'reencrypt':
      return 'be_secure';
    case 'passthrough':
      return 'be_tcp';
    default:
      return 'be_http';
  }
}

/**
 * `be_http:<ns>:<name>`, `be_edge_http:…`, `be_tcp:…` (passthrough), `be_secure:…` (reencrypt).
 *
 * One string object per name, whoever asks: the renderer names the backend in the config, a config manager
 * names it in its commands, and the manager's `show backend` cache and the mock's backend index then find
 * the name by identity instead of comparing its characters with a cold copy (the cache lookup went from
 * 2.3% to 1.0% of a dcm-add-del replay of the day slice).
 */
export function backendNameOf(route: Route): string {
  return backendNames.of([backendPrefix(terminationOf(route)), route.namespace, route.name].join(':'));
}

const backendNames = new OneString(16_384);

/**
 * The endpoint ID the router uses as the static server name. Endpoints backed by a pod (our `name`) are
 * `pod:<pod>:<endpoints name = service>:<port name>:<ip>:<port>`, others `ept:<service>:<port name>:<ip>:<port>`
 * (plugin.go); an unnamed port leaves that field empty.
 */
export function endpointServerName(service: string, e: Endpoint): string {
  const portName = e.portName ?? '';
  // Joined rather than a template literal: a template makes a tree of concatenations that V8 flattens at the
  // first comparison, which comes later with the parts cold in cache; `join` writes the flat string at once
  // (in a micro-benchmark, later comparisons of two such IDs 27 ns against 160-400, and no slower to make).
  return e.name === undefined ? ['ept', service, portName, e.ip, e.port].join(':') : ['pod', e.name, service, portName, e.ip, e.port].join(':');
}

/**
 * Every reload re-renders each changed backend's server cookies, mostly for endpoints seen before: a pure
 * function, so a memo of the names used lately is safe (RecentMap: its memory stays flat over a long run).
 */
const md5Memo = new RecentMap<string, string>(16_384);

/**
 * The one-shot `crypto.hash` (Node 20.12+) hashes a route key in about a quarter of the time of a
 * `createHash` object (0.4 against 1.6 µs); each new route costs one, about 1% of a reload-always replay
 * of the day slice before this (1 Dec 2026). Older Node 20 releases keep the object.
 */
const md5Once: (s: string) => string =
  typeof crypto.hash === 'function' ? (s) => crypto.hash('md5', s, 'hex') : (s) => crypto.createHash('md5').update(s).digest('hex');

export function md5Hex(s: string): string {
  let h = md5Memo.get(s);
  if (h === undefined) {
    h = md5Once(s);
    md5Memo.set(s, h);
  }
  return h;
}

/**
 * The route's RoutingKeyName, the default cookie name and the dynamic cookie key. router.go hashes
 * `fmt.Sprintf("%s %s", config.TLSTermination, backendKey)` before it sets the termination, so the text is
 * always `" <ns>:<name>"` (a leading space) whatever the route's termination.
 */
export function routingKeyName(r: { namespace: string; name: string }): string {
  return md5Hex(` ${aliasKey(r)}`);
}

/** One served endpoint: its static server name, address, and the port name a route's targetPort may select. */
export interface ServedEndpoint {
  id: string;
  ip: string;
  port: number;
  portName?: string | undefined;
  /**
   * `ip` is a dotted quad (isDottedQuad), which HAProxy prints as written. Found when the entry is made,
   * while the address is in the cache: a backend rebuilt after a reload then need not read it again
   * (ServerConfig.canonicalAddress).
   */
  dottedQuad: boolean;
}

/**
 * The endpoints the router serves for a service, in endpoint-list order: only ready addresses (the router
 * reads `subsets[].addresses`, never `notReadyAddresses`), duplicates by ID dropped as plugin.go does. This
 * is the service's EndpointTable; a route is served its share of it (servedForRoute).
 */
export function servedEndpoints(service: string, endpoints: readonly Endpoint[]): ServedEndpoint[] {
  const out: ServedEndpoint[] = [];
  let seen: Set<string> | undefined;
  for (const e of endpoints) {
    if (!isReady(e)) continue;
    const id = endpointServerName(service, e);
    if (out.length > 0) {
      seen ??= new Set(out.map((x) => x.id));
      if (seen.has(id)) continue;
      seen.add(id);
    }
    out.push({ id, ip: e.ip, port: e.port, portName: e.portName, dottedQuad: isDottedQuad(e.ip) });
  }
  return out;
}

/** Up to this many served endpoints, duplicates are looked for pairwise and earlier entries by a scan. */
const SMALL_TABLE = 16;

/**
 * servedEndpoints for one service as its endpoints change, one list after the other. An endpoint that was
 * in the previous list (same address, port, pod and port name) keeps its entry, the same object with the
 * same ID string: under churn most of a service's endpoints stay from one change to the next, so their IDs
 * are not concatenated again, and the config manager's diff compares them by identity. The results for the
 * last two lists asked about are kept: the previous change's new list serves as the next change's old one,
 * and a backend rendered at the last reload, read by the mocked HAProxy after a change, finds its list too
 * (its servers are then named by the very strings the manager's diff holds).
 */
export class ServedMemo {
  private endpoints: readonly Endpoint[] | null = null;
  private served: ServedEndpoint[] = [];
  /** The endpoint each entry of `served` was made from. */
  private sources: Endpoint[] = [];
  /** The list before: the one a reload rendered is usually the last or the one before it. */
  private previousEndpoints: readonly Endpoint[] | null = null;
  private previousServed: ServedEndpoint[] = [];

  of(service: string, endpoints: readonly Endpoint[]): readonly ServedEndpoint[] {
    if (endpoints === this.endpoints) return this.served;
    if (endpoints === this.previousEndpoints) return this.previousServed;
    const sources: Endpoint[] = [];
    const out = this.build(service, endpoints, sources);
    this.previousEndpoints = this.endpoints;
    this.previousServed = this.served;
    this.endpoints = endpoints;
    this.served = out;
    this.sources = sources;
    return out;
  }

  /** The same answer as `of`, without remembering this list: for readers of older lists (a rendered backend). */
  peek(service: string, endpoints: readonly Endpoint[]): readonly ServedEndpoint[] {
    if (endpoints === this.endpoints) return this.served;
    if (endpoints === this.previousEndpoints) return this.previousServed;
    return this.build(service, endpoints, []);
  }

  /** The list served for `endpoints`, reusing the last list's entries; each entry's endpoint goes to `sources`. */
  private build(service: string, endpoints: readonly Endpoint[], sources: Endpoint[]): ServedEndpoint[] {
    const prevServed = this.served;
    const prevSources = this.sources;
    const out: ServedEndpoint[] = [];
    let seen: Set<string> | undefined;
    let cursor = 0;
    /** Whether every endpoint in `sources` so far has plain fields (see hasSameId). */
    let plain = true;
    for (const e of endpoints) {
      if (!isReady(e)) continue;
      const j = findSame(prevSources, e, cursor);
      let entry: ServedEndpoint;
      if (j >= 0) {
        entry = prevServed[j]!;
        cursor = j + 1;
      } else {
        entry = { id: endpointServerName(service, e), ip: e.ip, port: e.port, portName: e.portName, dottedQuad: isDottedQuad(e.ip) };
      }
      // Asked once per endpoint: `includes` is a call into a built-in, and it was asked twice.
      const plainSoFar: boolean = plain && plainFields(e);
      if (out.length > 0) {
        // The first of two endpoints with one ID is served, as plugin.go keeps it.
        if (out.length < SMALL_TABLE && seen === undefined) {
          if (plainSoFar ? hasSameId(sources, e) : hasId(out, entry.id)) continue;
        } else {
          seen ??= new Set(out.map((x) => x.id));
          if (seen.has(entry.id)) continue;
          seen.add(entry.id);
        }
      }
      out.push(entry);
      sources.push(e);
      plain = plainSoFar;
    }
    return out;
  }
}

/** Served endpoints by service, for a renderer that shares them with a config manager (see ServedMemo). */
export interface ServedSource {
  servedOf(serviceKey: string, service: string, endpoints: readonly Endpoint[]): readonly ServedEndpoint[];
}

/** The previous entry made from an endpoint identical to `e`: first where the last one matched left off. */
function findSame(sources: readonly Endpoint[], e: Endpoint, from: number): number {
  if (from < sources.length && sameIdentity(sources[from]!, e)) return from;
  if (sources.length > SMALL_TABLE) return -1;
  for (let i = 0; i < sources.length; i++) if (i !== from && sameIdentity(sources[i]!, e)) return i;
  return -1;
}

function sameIdentity(x: Endpoint, y: Endpoint): boolean {
  return x.ip === y.ip && x.port === y.port && x.name === y.name && x.portName === y.portName;
}

/**
 * Whether the endpoint's pod and port name hold no `:`. Then its ID (`pod:<pod>:<service>:<port name>:<ip>:<port>`,
 * the port decimal) splits back into its fields, so two such endpoints of a service have one ID exactly when
 * they have one pod (or none), one port name (unset and empty alike), address and port.
 */
function plainFields(e: Endpoint): boolean {
  return (e.name === undefined || !e.name.includes(':')) && (e.portName === undefined || !e.portName.includes(':'));
}

/**
 * Whether an endpoint already served has the ID of `e`, all of them with plain fields, compared on the
 * endpoints just read rather than on ID strings: entries kept from the list before are cold in cache, and
 * comparing their IDs was the largest part of building a dcm-add-del replay's served lists.
 */
function hasSameId(sources: readonly Endpoint[], e: Endpoint): boolean {
  for (let i = 0; i < sources.length; i++) {
    const x = sources[i]!;
    if (x.ip === e.ip && x.port === e.port && x.name === e.name && (x.portName ?? '') === (e.portName ?? '')) return true;
  }
  return false;
}

function hasId(list: readonly ServedEndpoint[], id: string): boolean {
  for (let i = 0; i < list.length; i++) if (list[i]!.id === id) return true;
  return false;
}

/**
 * A route's preferred port (PreferPort upstream): its `targetPort` as text, a number in decimal, or
 * undefined when it names none and takes every port.
 */
export function preferPortOf(route: Route): string | undefined {
  return route.targetPort === undefined ? undefined : String(route.targetPort);
}

/**
 * The share of a service's served endpoints a route gets (endpointsForAlias): all of them without a
 * preferred port, else those of that port, by name or number. The same list when nothing is filtered out,
 * so routes without a targetPort cost nothing.
 */
export function servedForRoute(served: readonly ServedEndpoint[], preferPort: string | undefined): readonly ServedEndpoint[] {
  if (preferPort === undefined) return served;
  let i = 0;
  while (i < served.length && servesPort(preferPort, served[i]!.portName, served[i]!.port)) i++;
  if (i === served.length) return served;
  const out = served.slice(0, i);
  for (i++; i < served.length; i++) if (servesPort(preferPort, served[i]!.portName, served[i]!.port)) out.push(served[i]!);
  return out;
}

/** Go's strconv.ParseBool truth values, which the template's `isTrue` uses. */
export function isTrue(v: string | undefined): boolean {
  return v === '1' || v === 't' || v === 'T' || v === 'true' || v === 'TRUE' || v === 'True';
}
