import { domainForHost } from './haproxy/route-regexp.ts';
import { olderThan, type Claim } from './host-claims.ts';

/**
 * HostAdmitter's own claims, kept only with wildcard routes allowed (host_admitter.go; ROUTER_ALLOW_WILDCARD_ROUTES,
 * `router.allowWildcardRoutes`). It sits in front of UniqueHost and is stricter about namespaces: a host is
 * claimed by one namespace whatever the paths, and a wildcard route (`*.<domain>`) claims its domain against
 * the other namespaces' hosts in it, and they against it. Within a namespace, routes conflict only on one
 * host (or domain, for wildcard routes) and one path. The older route wins (RouteLessThan); a newer one is
 * kept out, and an older one arriving displaces the newer holders.
 *
 * Three maps, as upstream: hosts claimed by ordinary routes; domains claimed by wildcard routes; and the
 * domains of ordinary routes, which block other namespaces' wildcard routes. Each list is oldest first.
 */
export class HostAdmitterClaims {
  private readonly claimedHosts = new Map<string, Claim[]>();
  private readonly claimedWildcards = new Map<string, Claim[]>();
  private readonly blockedWildcards = new Map<string, Claim[]>();
  /** The host each route last claimed (routeHosts, by UID upstream; a route's key here). */
  private readonly routeHosts = new Map<string, string>();

  constructor(private readonly disableNamespaceCheck: boolean) {}

  /**
   * addRoute: the claim made, and the routes it displaced with what each is told; or, when an older route
   * holds what the route asks for, why it is kept out, nothing changed.
   */
  add(c: Claim): { keptOut: string } | { displaced: Array<{ claim: Claim; why: string }> } {
    const found = this.displacedBy(c);
    if ('owner' in found) {
      // The full reason only when bumped by a route of its own namespace.
      return { keptOut: found.owner.route.namespace === c.route.namespace ? found.why : `a route in another namespace holds host ${c.route.host}` };
    }
    const displaced: Array<{ claim: Claim; why: string }> = [];
    const wildcardKey = domainForHost(c.route.host);
    for (const d of found.displaced) {
      this.forget(d.route.host, d);
      let why: string;
      if (d.route.namespace !== c.route.namespace) why = `a route in another namespace holds host ${d.route.host}`;
      else if (isWildcard(c)) why = `wildcard route ${c.key} has host *.${wildcardKey} blocking ${d.route.host}`;
      else why = `route ${c.key} has host ${c.route.host}, blocking ${d.route.host}`;
      // A route found twice (its host, and its domain blocking a wildcard) is displaced once here.
      if (!displaced.some((x) => x.claim.key === d.key)) displaced.push({ claim: d, why });
    }
    const old = this.routeHosts.get(c.key);
    if (old !== undefined) this.forget(old, c);
    if (isWildcard(c)) insert(this.claimedWildcards, wildcardKey, c);
    else {
      insert(this.claimedHosts, c.route.host, c);
      insert(this.blockedWildcards, wildcardKey, c);
    }
    this.routeHosts.set(c.key, c.route.host);
    return { displaced };
  }

  /** A route's Deleted: its claims under the host it last claimed go. */
  delete(key: string): void {
    const host = this.routeHosts.get(key);
    if (host === undefined) return;
    this.forget(host, { key });
    this.routeHosts.delete(key);
  }

  /** displacedRoutes: every holder the route displaces, or the first older one that keeps it out. */
  private displacedBy(c: Claim): { displaced: Claim[] } | { owner: Claim; why: string } {
    const displaced: Claim[] = [];
    const host = c.route.host;
    const path = c.route.path ?? '';
    const wildcardKey = domainForHost(host);
    const wildcard = isWildcard(c);
    for (const r of this.claimedHosts.get(host) ?? []) {
      if (this.disableNamespaceCheck || r.route.namespace === c.route.namespace) {
        // Its own claim; a wildcard route never displaces an ordinary one of its namespace; other paths coexist.
        if (r.key === c.key || wildcard || (r.route.path ?? '') !== path) continue;
      }
      if (olderThan(r, c)) return { owner: r, why: `route ${r.key} has host ${r.route.host}` };
      displaced.push(r);
    }
    for (const r of this.claimedWildcards.get(wildcardKey) ?? []) {
      if (this.disableNamespaceCheck || r.route.namespace === c.route.namespace) {
        if (r.key === c.key || !wildcard || (r.route.path ?? '') !== path) continue;
      }
      if (olderThan(r, c)) return { owner: r, why: `wildcard route ${r.key} has host *.${wildcardKey}, blocking ${host}` };
      displaced.push(r);
    }
    if (wildcard) {
      for (const r of this.blockedWildcards.get(wildcardKey) ?? []) {
        // Never a route of its own namespace.
        if (this.disableNamespaceCheck || r.route.namespace === c.route.namespace) continue;
        if (olderThan(r, c)) return { owner: r, why: `route ${r.key} has host ${r.route.host}, blocking *.${wildcardKey}` };
        displaced.push(r);
      }
    }
    return { displaced };
  }

  /** A route's entries under a host and that host's domain, in all three maps. */
  private forget(host: string, c: { key: string }): void {
    const wildcardKey = domainForHost(host);
    remove(this.claimedHosts, host, c.key);
    remove(this.blockedWildcards, wildcardKey, c.key);
    remove(this.claimedWildcards, wildcardKey, c.key);
  }
}

function isWildcard(c: Claim): boolean {
  return c.route.wildcardPolicy === 'Subdomain';
}

/** InsertRoute: the route's old entry out, then in before the first route it is older than. */
function insert(map: Map<string, Claim[]>, key: string, c: Claim): void {
  remove(map, key, c.key);
  const list = map.get(key) ?? [];
  const at = list.findIndex((r) => olderThan(c, r));
  if (at < 0) list.push(c);
  else list.splice(at, 0, c);
  map.set(key, list);
}

function remove(map: Map<string, Claim[]>, key: string, routeKey: string): void {
  const list = map.get(key);
  if (list === undefined) return;
  const rest = list.filter((r) => r.key !== routeKey);
  if (rest.length > 0) map.set(key, rest);
  else map.delete(key);
}
