import { compareEndpoints, inRouterOrder } from './endpoint-order.ts';
import { sameEndpointsAfter, samePrefixLength, type Endpoint } from './endpoint.ts';
import type { ChurnEvent } from './events.ts';
import { routeKey, serviceKey, type Route } from './route.ts';
import { ServiceEndpoints, type ServiceEntry } from './service-endpoints.ts';
import { VouchedEndpointsSet } from './vouched-endpoints-set.ts';

/**
 * What the router has been told: routes, endpoints per service and custom blueprint routes.
 * This is the desired state that a reload renders and that the invariants compare HAProxy against.
 */
export interface RouterState {
  readonly routes: Map<string, Route>;
  /** Endpoints per service, by `serviceKey(namespace, service)`; one entry per service (see ServiceEndpoints). */
  readonly endpoints: ServiceEndpoints;
  readonly blueprints: Map<string, Route>;
}

/** What an event changed; `null` from `applyChurn` means nothing did (e.g. the same endpoints twice). */
export type StateChange =
  | { kind: 'route.added'; route: Route }
  | { kind: 'route.modified'; before: Route; after: Route }
  | { kind: 'route.removed'; route: Route }
  | {
      kind: 'endpoints.changed';
      namespace: string;
      service: string;
      /** `serviceKey(namespace, service)`, made once: every consumer of the change looks it up. */
      key: string;
      /** The service's entry in the state: what a consumer keeps per service is reached from it without a lookup. */
      entry: ServiceEntry;
      before: readonly Endpoint[];
      after: readonly Endpoint[];
      /** An `endpoints.delete` (the router's DeleteEndpoints), rather than a list that became empty. */
      deleted: boolean;
    }
  | { kind: 'blueprint.changed'; before: Route | undefined; after: Route | undefined };

export function emptyRouterState(): RouterState {
  return { routes: new Map(), endpoints: new ServiceEndpoints(), blueprints: new Map() };
}

const NO_ENDPOINTS: readonly Endpoint[] = [];

export function endpointsOf(state: RouterState, namespace: string, service: string): readonly Endpoint[] {
  // The invariant check asks this for every route after every settled change: no key is built per call.
  return state.endpoints.entryOf(namespace, service).endpoints ?? NO_ENDPOINTS;
}

/**
 * `list` (a new array: an event's own is replayed again by sweeps) with its first `prefix` endpoints, alike
 * in `before` place by place, as the objects `before` has when every field is the same. The state keeps a
 * list until the service's next event, long enough to leave the cache and be copied by the collector; the
 * readers of the change compare the two lists from the start, and find these the same objects, their
 * strings compared by pointer, where they read a cold copy character by character. Only what the check
 * for an unchanged list compared anyway: dcm-slots on the day slice 3,759 → 3,610 ms of wall time, best of
 * four alternating (2 Dec 2026), reload-always and dcm-add-del alike. Looking further costs reload-always
 * a read of the old list it does not otherwise make (sameServedSince): keepingAlike, which finds every
 * endpoint alike, is for the strategies that ask for it.
 */
function keepingPrefix(before: readonly Endpoint[], list: readonly Endpoint[], prefix: number): Endpoint[] {
  const out = list.slice();
  // `ready` as written: absent and `true` both mean ready, but print apart.
  for (let i = 0; i < prefix; i++) if (before[i]!.ready === list[i]!.ready) out[i] = before[i]!;
  return out;
}

/**
 * `list` with every endpoint that `before` has alike (every field the same, `ready` as written) as the
 * object `before` has, found by one merge of the two lists, both in the router's order (compareEndpoints);
 * the same array when none is. keepingPrefix's reach for lists of any length, for a strategy that reads
 * the old list anyway (RouterStrategy.keepsAlikeEndpoints): the config managers diff the two lists, and
 * find the endpoints that stayed as the objects they hold, compared by pointer, rather than as fresh
 * copies compared field by field against the old list's strings. Fewer endpoints copied also leaves the
 * collector fewer to promote: a service's list lives until its next event.
 */
function keepingAlike(before: readonly Endpoint[], list: Endpoint[]): Endpoint[] {
  let out: Endpoint[] | undefined;
  let i = 0;
  for (let j = 0; j < list.length && i < before.length; j++) {
    const e = list[j]!;
    let order = 0;
    while (i < before.length) {
      const b = before[i]!;
      order = b.port !== e.port || b.portName !== e.portName || b.ip !== e.ip ? compareEndpoints(b, e) : 0;
      if (order >= 0) break;
      i++;
    }
    if (i === before.length) break;
    if (order !== 0) continue;
    const b = before[i]!;
    if (b.ip === e.ip && b.name === e.name && b.portName === e.portName && b.ready === e.ready) {
      (out ??= list.slice())[j] = b;
      i++;
    }
  }
  return out ?? list;
}

/**
 * Applies one churn event in place and says what changed. `keepAlike`: a changed endpoint list keeps every
 * endpoint alike in the list before as the object it was (keepingAlike), not only its first ones when the
 * two have one length (keepingPrefix).
 */
export function applyChurn(state: RouterState, e: ChurnEvent, keepAlike = false): StateChange | null {
  switch (e.type) {
    case 'route.upsert': {
      const key = routeKey(e.route);
      const before = state.routes.get(key);
      if (before !== undefined && sameRoute(before, e.route)) return null;
      state.routes.set(key, e.route);
      return before === undefined ? { kind: 'route.added', route: e.route } : { kind: 'route.modified', before, after: e.route };
    }
    case 'route.delete': {
      const key = routeKey(e);
      const before = state.routes.get(key);
      if (before === undefined) return null;
      state.routes.delete(key);
      return { kind: 'route.removed', route: before };
    }
    case 'endpoints.set': {
      const entry = state.endpoints.entryOf(e.namespace, e.service);
      const before = entry.endpoints ?? NO_ENDPOINTS;
      const listed = e.endpoints;
      // Lists of one length are compared place by place first; others differ without a look.
      const prefix = before.length === listed.length ? samePrefixLength(before, listed) : 0;
      if (before.length === listed.length && sameEndpointsAfter(before, listed, prefix)) return null;
      // Kept in the router's order (sorted as its informer sorts them), whatever order the event lists.
      const ordered = e instanceof VouchedEndpointsSet ? listed : inRouterOrder(listed);
      const after = keepAlike ? keepingAlike(before, ordered) : prefix > 0 && ordered === listed ? keepingPrefix(before, listed, prefix) : ordered;
      state.endpoints.put(entry, after);
      return { kind: 'endpoints.changed', namespace: e.namespace, service: e.service, key: entry.key, entry, before, after, deleted: false };
    }
    case 'endpoints.delete': {
      // A change even when there was nothing to delete: the router's DeleteEndpoints marks its state
      // changed for any service a route uses (the template router reloads), and the config managers still
      // run RemoveRouteEndpoints, which arms the commit timer.
      const entry = state.endpoints.entryOf(e.namespace, e.service);
      const before = entry.endpoints ?? NO_ENDPOINTS;
      state.endpoints.forget(e.namespace, e.service);
      return { kind: 'endpoints.changed', namespace: e.namespace, service: e.service, key: entry.key, entry, before, after: NO_ENDPOINTS, deleted: true };
    }
    case 'blueprint.upsert': {
      const key = routeKey(e.route);
      const before = state.blueprints.get(key);
      if (before !== undefined && sameRoute(before, e.route)) return null;
      state.blueprints.set(key, e.route);
      return { kind: 'blueprint.changed', before, after: e.route };
    }
    case 'blueprint.delete': {
      const key = routeKey(e);
      const before = state.blueprints.get(key);
      if (before === undefined) return null;
      state.blueprints.delete(key);
      return { kind: 'blueprint.changed', before, after: undefined };
    }
  }
}

/** Routes are plain JSON from the event log, so a canonical JSON comparison is exact. */
/**
 * Whether an update leaves the route as router.go's configsAreEqual sees it (AddRoute then skips it): that
 * compares what the router derives, so a target port compares as text (PreferPort = TargetPort.String(),
 * 8080 and "8080" alike), `wildcardPolicy: None` as no policy (IsWildcard is false for both), and a
 * passthrough route's certificates not at all (the router keeps none for it), nor its creation time.
 */
export function sameRoute(a: Route, b: Route): boolean {
  return canonicalJson(comparable(a)) === canonicalJson(comparable(b));
}

function comparable(r: Route): Route {
  // creationTimestamp is no part of the route's config (and never changes in Kubernetes).
  let out = r.createdAt === undefined ? r : { ...r, createdAt: undefined };
  if (typeof r.targetPort === 'number') out = { ...out, targetPort: String(r.targetPort) };
  if (r.wildcardPolicy === 'None') out = { ...out, wildcardPolicy: undefined };
  const tls = r.tls;
  if (tls?.termination === 'passthrough') out = { ...out, tls: { termination: tls.termination, insecureEdgeTerminationPolicy: tls.insecureEdgeTerminationPolicy } };
  return out;
}

function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}
