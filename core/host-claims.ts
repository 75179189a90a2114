import type { Route } from './route.ts';

/**
 * Which routes may share a host once one holds it (openshift/router hostindex): `same-namespace`, the
 * default, admits only routes of the owner's namespace; `oldest-first` (ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK)
 * admits any namespace. Either way two routes conflict on one path, or when either is passthrough.
 */
export type HostActivation = 'same-namespace' | 'oldest-first';

/**
 * A route as the index holds it, with its age: when it was created, then the order the log first upserted
 * it (the router sorts by creationTimestamp, then by UID, which the model does not have).
 */
export interface Claim {
  readonly key: string;
  route: Route;
  /** Creation time, ms of the log's time (the route's `createdAt`, else its first upsert's time). */
  readonly created: number;
  /** The order of the first upsert: breaks ties of `created` (a creationTimestamp has whole seconds). */
  readonly age: number;
}

/** Whether `a` is older than `b` (RouteLessThan). */
export function olderThan(a: Claim, b: Claim): boolean {
  return a.created !== b.created ? a.created < b.created : a.age < b.age;
}

/**
 * What an index change did to other routes (upstream's routeChanges): the router adds the activated and
 * deletes the displaced. A route marked one way and then the other ends in the later list only.
 */
export class ClaimChanges {
  private readonly marks = new Map<string, { claim: Claim; active: boolean }>();

  activated(c: Claim): void {
    this.marks.set(c.key, { claim: c, active: true });
  }

  displaced(c: Claim): void {
    this.marks.set(c.key, { claim: c, active: false });
  }

  /**
   * The claims marked `active` or not, oldest first. Upstream lists them from a Go map, in no fixed order;
   * age order is the deterministic choice.
   */
  list(active: boolean): Claim[] {
    const out: Claim[] = [];
    for (const m of this.marks.values()) if (m.active === active) out.push(m.claim);
    return out.sort(byAge);
  }
}

/** The routes claiming one host: those admitted (active) and those waiting (inactive), each oldest first. */
class HostRules {
  active: Claim[] = [];
  inactive: Claim[] = [];

  get empty(): boolean {
    return this.active.length === 0 && this.inactive.length === 0;
  }

  add(c: Claim, activation: HostActivation, changes: ClaimChanges): void {
    if (this.active.length === 0) {
      changes.activated(c);
      this.active.push(c);
      return;
    }
    const [active, displaced] = activate(activation, changes, this.active, [c]);
    this.active = active;
    if (displaced.length === 0) return;
    if (displaced.includes(c)) changes.displaced(c);
    this.inactive = [...this.inactive, ...displaced].sort(byAge);
  }

  /** Without one admitted route, the waiting ones are weighed again; nothing is when none wait. */
  removeActive(i: number, activation: HostActivation, changes: ClaimChanges): void {
    this.active.splice(i, 1);
    if (this.inactive.length === 0) return;
    const [active, displaced] = activate(activation, changes, this.active, this.inactive);
    this.active = active;
    this.inactive = displaced.sort(byAge);
  }
}

/**
 * The router's host index (hostindex.go): which route holds each host, and which wait for it. The oldest
 * route of a host holds it; others share it as the activation rule allows.
 */
export class HostIndex {
  private readonly hosts = new Map<string, HostRules>();
  private readonly hostOf = new Map<string, string>();

  constructor(private readonly activation: HostActivation) {}

  /** A route added or changed; `newRoute` is false when the index had it already, under any host. */
  add(c: Claim): { changes: ClaimChanges; newRoute: boolean } {
    const changes = new ClaimChanges();
    const host = c.route.host;
    let newRoute = true;
    const oldHost = this.hostOf.get(c.key);
    if (oldHost !== undefined && oldHost !== host && this.remove(oldHost, c.key, true, changes)) newRoute = false;
    this.hostOf.set(c.key, host);

    let rules = this.hosts.get(host);
    const found = rules === undefined ? undefined : find(rules, c.key);
    if (found !== undefined) {
      newRoute = false;
      if ((found.claim.route.path ?? '') !== (c.route.path ?? '')) {
        this.remove(host, c.key, false, changes);
      } else {
        // The same route at the same place, updated: it keeps its standing.
        found.claim.route = c.route;
        if (found.active) changes.activated(found.claim);
        return { changes, newRoute };
      }
    }
    if (rules === undefined) this.hosts.set(host, (rules = new HostRules()));
    rules.add(c, this.activation, changes);
    return { changes, newRoute };
  }

  /**
   * A route deleted, as the router last saw it with this host: the changes its going makes (none when it
   * held nothing). Upstream looks for the route under that host only: if the index holds it under an
   * earlier one (a host change the router never admitted), that claim stays, holding the host for good.
   */
  delete(key: string, host: string): ClaimChanges {
    const changes = new ClaimChanges();
    this.hostOf.delete(key);
    this.remove(host, key, true, changes);
    return changes;
  }

  /** The routes holding a host, oldest first. */
  holders(host: string): readonly Claim[] {
    return this.hosts.get(host)?.active ?? [];
  }

  /** The routes waiting for a host, oldest first. */
  waiting(host: string): readonly Claim[] {
    return this.hosts.get(host)?.inactive ?? [];
  }

  /** Every host some route claims. */
  claimedHosts(): IterableIterator<string> {
    return this.hosts.keys();
  }

  /** Whether the route was there; a host left with no route is dropped when `removeLast`. */
  private remove(host: string, key: string, removeLast: boolean, changes: ClaimChanges): boolean {
    const rules = this.hosts.get(host);
    if (rules === undefined) return false;
    const a = rules.active.findIndex((x) => x.key === key);
    if (a >= 0) rules.removeActive(a, this.activation, changes);
    else {
      const i = rules.inactive.findIndex((x) => x.key === key);
      if (i < 0) return false;
      rules.inactive.splice(i, 1);
    }
    if (removeLast && rules.empty) this.hosts.delete(host);
    return true;
  }
}

function find(rules: HostRules, key: string): { claim: Claim; active: boolean } | undefined {
  for (const claim of rules.active) if (claim.key === key) return { claim, active: true };
  for (const claim of rules.inactive) if (claim.key === key) return { claim, active: false };
  return undefined;
}

function byAge(a: Claim, b: Claim): number {
  return olderThan(a, b) ? -1 : olderThan(b, a) ? 1 : 0;
}

/** The activation rule: which of `active` and `inactive` hold the host after a change, and which wait. */
function activate(activation: HostActivation, changes: ClaimChanges, active: readonly Claim[], inactive: readonly Claim[]): [Claim[], Claim[]] {
  if (inactive.length === 0) return [active.slice(), []];
  if (activation === 'oldest-first') return zipperMerge(active, inactive, changes, () => true);
  // SameNamespace: an owner older than every waiting route keeps the host for its namespace.
  const owner = active[0];
  if (owner === undefined || olderThan(owner, inactive[0]!)) {
    const ns = owner?.route.namespace ?? inactive[0]!.route.namespace;
    const updated = active.slice();
    const displaced: Claim[] = [];
    for (const c of inactive) place(changes, updated, displaced, c, c.route.namespace === ns, false);
    return [updated.sort(byAge), displaced];
  }
  // A waiting route older than the owner: the host goes to the oldest route's namespace.
  let ns = '';
  return zipperMerge(active, inactive, changes, (c) => {
    if (ns === '') {
      ns = c.route.namespace;
      return true;
    }
    return ns === c.route.namespace;
  });
}

/** Both lists walked together, oldest first (an admitted route first at equal age), each route placed. */
function zipperMerge(active: readonly Claim[], inactive: readonly Claim[], changes: ClaimChanges, may: (c: Claim) => boolean): [Claim[], Claim[]] {
  const updated: Claim[] = [];
  const displaced: Claim[] = [];
  let i = 0;
  let j = 0;
  while (i < inactive.length || j < active.length) {
    if (j >= active.length || (i < inactive.length && olderThan(inactive[i]!, active[j]!))) {
      const c = inactive[i++]!;
      place(changes, updated, displaced, c, may(c), false);
    } else {
      const c = active[j++]!;
      place(changes, updated, displaced, c, may(c), true);
    }
  }
  return [updated, displaced];
}

/** appendRoute: admitted when allowed and no admitted route conflicts with it, else waiting. */
function place(changes: ClaimChanges, updated: Claim[], displaced: Claim[], c: Claim, allowed: boolean, wasActive: boolean): void {
  if (allowed && !updated.some((x) => conflicts(x.route, c.route))) {
    if (!wasActive) changes.activated(c);
    updated.push(c);
    return;
  }
  if (wasActive) changes.displaced(c);
  displaced.push(c);
}

/** hasExistingMatch: one path, or TLS on both with either passthrough (SNI cannot split a host by path). */
function conflicts(a: Route, b: Route): boolean {
  if ((a.path ?? '') === (b.path ?? '')) return true;
  return a.tls !== undefined && b.tls !== undefined && (a.tls.termination === 'passthrough' || b.tls.termination === 'passthrough');
}
