import { EndpointAddressFilter } from './endpoint-address-filter.ts';
import type { ChurnEvent } from './events.ts';
import { HostAdmitterClaims } from './host-admitter.ts';
import { HostIndex, type Claim, type ClaimChanges, type HostActivation } from './host-claims.ts';
import { routeKey, type Route } from './route.ts';
import { SaidOnce } from './said-once.ts';
import { VouchedEndpointsSet } from './vouched-endpoints-set.ts';

/** What the router's admission is configured with (its command line and environment). */
export interface AdmissionOptions {
  /** ROUTER_ALLOW_WILDCARD_ROUTES: otherwise a route with `wildcardPolicy: Subdomain` is rejected. */
  allowWildcardRoutes?: boolean;
  /** ROUTER_DENIED_DOMAINS: a route whose host is one of these or under one is rejected. */
  deniedDomains?: readonly string[];
  /** ROUTER_ALLOWED_DOMAINS: when any, only a route whose host is one of these or under one is admitted. */
  allowedDomains?: readonly string[];
  /**
   * The router runs the blueprint plugin (a config manager is set). Without it a blueprint event is the
   * route event it carries: the route in the blueprint namespace is an ordinary route (template.go creates
   * the plugin only with ROUTER_HAPROXY_CONFIG_MANAGER). Default true.
   */
  blueprintPlugin?: boolean;
  /** Which waiting routes a host's holder going lets in (ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK: oldest-first). */
  activation?: HostActivation;
  /** The ExtendedValidator's endpoint address check; false models a router from before June 2026. Default true. */
  validateEndpointAddresses?: boolean;
}

/**
 * The router's RouteAdmissionFunc, which HostAdmitter applies first (pkg/cmd/infra/router/router.go): a host
 * in the denied domains is rejected; with allowed domains, a host in none of them is; then, with wildcard
 * routes not allowed (the default), a route with `wildcardPolicy: Subdomain`. Worded as the router's errors,
 * with the setting that decides.
 */
export function rejectionOf(route: Route, opts: AdmissionOptions): string | undefined {
  if (route.host.length > 0) {
    if (opts.deniedDomains !== undefined && hostInDomainList(route.host, opts.deniedDomains)) {
      return 'host in list of denied domains (ROUTER_DENIED_DOMAINS / router.deniedDomains)';
    }
    if (opts.allowedDomains !== undefined && opts.allowedDomains.length > 0 && !hostInDomainList(route.host, opts.allowedDomains)) {
      return 'host not in the allowed list of domains (ROUTER_ALLOWED_DOMAINS / router.allowedDomains)';
    }
  }
  if (opts.allowWildcardRoutes === true || route.wildcardPolicy !== 'Subdomain') return undefined;
  return 'wildcard routes are not allowed (ROUTER_ALLOW_WILDCARD_ROUTES / router.allowWildcardRoutes)';
}

/** The host is one of the domains, or under one: each suffix after a dot is tried, as router.go does. */
export function hostInDomainList(host: string, domains: readonly string[]): boolean {
  let h = host;
  for (;;) {
    if (domains.includes(h)) return true;
    const dot = h.indexOf('.');
    // A leading dot ends the walk (router.go recurses only when the dot is past the first character).
    if (dot <= 0) return false;
    h = h.slice(dot + 1);
  }
}

/**
 * The router's admission of routes before they reach its state, in the order of its plugin chain
 * (template.go): HostAdmitter's admission function (denied and allowed domains, wildcards), then UniqueHost (one route, the oldest, holds each host;
 * others share it only as the namespace rule allows). UniqueHost's host check (NoHostValue, InvalidHost)
 * has nothing to do here: the input layer refuses such hosts, as the API server does
 * (sim/eventlog/route-host.ts). A rejected route reaches the router as deleted, so a route never admitted
 * changes nothing: no state change, no reload, no runtime command. A route whose going frees a host lets
 * the oldest waiting route(s) in, as the router then adds them.
 *
 * A route's age is its `createdAt`, else the time of its first upsert, and then the order of first upserts
 * (the router sorts by creationTimestamp, then UID), taken at its first upsert; a route deleted and upserted
 * again is a new one.
 *
 * Endpoints pass HostAdmitter and UniqueHost untouched; the ExtendedValidator below them drops restricted
 * addresses (EndpointAddressFilter).
 */
export class RouteAdmission {
  /** The rejections reported, per route key; forgotten with the route. */
  private readonly reported = new SaidOnce();
  private readonly hosts: HostIndex;
  /** HostAdmitter's claims, kept only with wildcard routes allowed (host_admitter.go). */
  private readonly admitter: HostAdmitterClaims | undefined;
  /** Per route key: its age, and the host of its last upsert (the route object the router last saw). */
  private readonly known = new Map<string, { readonly created: number; readonly age: number; host: string }>();
  private nextAge = 0;
  /** The one event most inputs admit, handed out in this array rather than a new one. */
  private readonly one: [ChurnEvent] = [{ at: 0, type: 'route.delete', namespace: '', name: '' }];
  private readonly addresses: EndpointAddressFilter;

  private readonly blueprintPlugin: boolean;
  private readonly validateEndpointAddresses: boolean;

  constructor(
    private readonly report: (message: string) => void,
    private readonly opts: AdmissionOptions = {},
  ) {
    const activation = opts.activation ?? 'same-namespace';
    this.blueprintPlugin = opts.blueprintPlugin !== false;
    this.validateEndpointAddresses = opts.validateEndpointAddresses !== false;
    this.hosts = new HostIndex(activation);
    this.addresses = new EndpointAddressFilter(report);
    if (opts.allowWildcardRoutes === true) this.admitter = new HostAdmitterClaims(activation === 'oldest-first');
  }

  /**
   * The changes one input makes to the router, in the order its plugins see them: usually the input itself;
   * none or several for a route event. The array is only valid until the next call.
   */
  admit(event: ChurnEvent): readonly ChurnEvent[] {
    const e = this.blueprintPlugin ? event : asRouteEvent(event);
    if (e.type === 'route.upsert') return this.upserted(e.at, e.route);
    if (e.type === 'route.delete') {
      const key = routeKey(e);
      const host = this.known.get(key)?.host;
      this.known.delete(key);
      this.reported.forget(key);
      this.admitter?.delete(key);
      return host === undefined ? [e] : this.deleted(e.at, key, host, e);
    }
    if (e.type === 'endpoints.set' && this.validateEndpointAddresses) {
      const kept = e instanceof VouchedEndpointsSet ? e.endpoints : this.addresses.filter(e.namespace, e.service, e.endpoints);
      this.one[0] = kept === e.endpoints ? e : { ...e, endpoints: kept };
      return this.one;
    }
    if (e.type === 'endpoints.delete') this.addresses.forget(e.namespace, e.service);
    this.one[0] = e;
    return this.one;
  }

  private upserted(at: number, route: Route): readonly ChurnEvent[] {
    const key = routeKey(route);
    let k = this.known.get(key);
    if (k === undefined) this.known.set(key, (k = { created: route.createdAt ?? at, age: this.nextAge++, host: route.host }));
    k.host = route.host;
    const { created, age } = k;
    // HostAdmitter passes a rejected route on to UniqueHost as deleted.
    const rejection = rejectionOf(route, this.opts);
    if (rejection !== undefined) {
      this.rejected(key, rejection);
      return this.deleted(at, key, route.host, { at, type: 'route.delete', namespace: route.namespace, name: route.name });
    }
    const claim: Claim = { key, route, created, age };
    const out: ChurnEvent[] = [];
    if (this.admitter !== undefined) {
      const claimed = this.admitter.add(claim);
      // Kept out by an older route: not passed on at all, so a route the router has keeps being served as it was.
      if ('keptOut' in claimed) {
        this.rejected(key, `${claimed.keptOut} (HostAlreadyClaimed)`);
        return out;
      }
      // The routes it displaces go to UniqueHost as deleted first (they stay known: they are not deleted in
      // the cluster, and come back with their next event).
      for (const d of claimed.displaced) {
        this.rejected(d.claim.key, `${d.why} (HostAlreadyClaimed)`);
        const gone: ChurnEvent = { at, type: 'route.delete', namespace: d.claim.route.namespace, name: d.claim.route.name };
        out.push(...this.deleted(at, d.claim.key, d.claim.route.host, gone));
      }
    }
    const { changes, newRoute } = this.hosts.add(claim);
    for (const c of changes.list(true)) out.push({ at, type: 'route.upsert', route: c.key === key ? route : c.route });
    for (const c of changes.list(false)) {
      // unique_host.go words a route this one pushes out apart from this one kept out.
      this.rejected(c.key, c.key === key ? claimedBy(this.hosts.holders(c.route.host), c) : `replaced by older route ${route.name} (HostAlreadyClaimed)`);
      if (c.key !== key || !newRoute) out.push({ at, type: 'route.delete', namespace: c.route.namespace, name: c.route.name });
    }
    return out;
  }

  /** UniqueHost's Deleted: the routes the going lets in are added, those it pushes out deleted, then the route. */
  private deleted(at: number, key: string, host: string, e: ChurnEvent): readonly ChurnEvent[] {
    const changes: ClaimChanges = this.hosts.delete(key, host);
    const out: ChurnEvent[] = [];
    for (const c of changes.list(true)) out.push({ at, type: 'route.upsert', route: c.route });
    // The oldest holder left, as unique_host.go names it for the routes the deletion pushes out.
    const owner = this.hosts.holders(host)[0]?.route.namespace ?? '<unknown>';
    for (const c of changes.list(false)) {
      this.rejected(c.key, `namespace ${owner} owns hostname ${host} (HostAlreadyClaimed)`);
      out.push({ at, type: 'route.delete', namespace: c.route.namespace, name: c.route.name });
    }
    out.push(e);
    return out;
  }

  /** Each route's rejection is reported once per reason while the route lives. */
  private rejected(key: string, why: string): void {
    if (this.reported.first(key, why)) this.report(`route ${key} not admitted: ${why}`);
  }
}

/** HostAlreadyClaimed: who holds the host the route waits for (the newest holder of its path, else the newest). */
function claimedBy(holders: readonly Claim[], c: Claim): string {
  const newestFirst = holders.slice().reverse();
  const owner = newestFirst.find((h) => (h.route.path ?? '') === (c.route.path ?? '')) ?? newestFirst[0];
  if (owner === undefined) return `host ${c.route.host} is claimed (HostAlreadyClaimed)`;
  return owner.route.namespace === c.route.namespace
    ? `route ${owner.route.name} already exposes ${c.route.host} and is older (HostAlreadyClaimed)`
    : `a route in another namespace holds ${c.route.host} and is older than ${c.route.name} (HostAlreadyClaimed)`;
}

/** A blueprint event as the route event it carries; any other event as it is. */
function asRouteEvent(e: ChurnEvent): ChurnEvent {
  if (e.type === 'blueprint.upsert') return { at: e.at, type: 'route.upsert', route: e.route };
  if (e.type === 'blueprint.delete') return { at: e.at, type: 'route.delete', namespace: e.namespace, name: e.name };
  return e;
}
