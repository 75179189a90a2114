import type { Endpoint } from '../endpoint.ts';
import { isReady } from '../endpoint.ts';
import { ServedMemo, servedEndpoints, type ServedEndpoint, type ServedSource } from '../haproxy/names.ts';
import { routeKey, serviceKey, type Route } from '../route.ts';
import type { RouterState } from '../router-state.ts';
import type { ServiceEntry } from '../service-endpoints.ts';

/** One service a route uses: its routes' keys, and its served endpoints as last computed. */
export interface ServiceRecord<T = unknown> {
  /** Route keys, in key order. */
  readonly routes: string[];
  /**
   * The routes themselves, in the same order: the objects the router state has under those keys (the index
   * is told every route change). An endpoint change walks its service's routes without a lookup in the
   * state's map per route, which cost 2-3% of a dcm replay of the day slice in cache misses alone.
   */
  readonly routeObjects: Route[];
  /**
   * What the index's owner keeps for each route, in the same order: undefined until it stores something,
   * and again once the route object at that place is replaced. A strategy reaches its per-route data from
   * the record its endpoint event already found, without a lookup by route key.
   */
  readonly routeData: (T | undefined)[];
  readonly served: ServedMemo;
  /** The state's entry for the service that holds this record for its index (see `recordAt`), if one does. */
  claimedBy: ServiceEntry | null;
}

/**
 * Which routes use a service (the router's ServiceAliasAssociations), kept in route-key order because the
 * router visits them in Go map order and we need one deterministic order. Each service has one record, so
 * an endpoint event finds its routes and its served endpoints with one lookup. The strategy's renderer
 * reads served endpoints from here too (ServedSource), so both name a server with one string.
 */
export class ServiceIndex<T = unknown> implements ServedSource {
  private readonly byService = new Map<string, ServiceRecord<T>>();

  rebuild(state: RouterState): void {
    for (const rec of this.byService.values()) this.release(rec);
    this.byService.clear();
    for (const r of state.routes.values()) this.add(r);
  }

  add(r: Route): void {
    const k = serviceKey(r.namespace, r.service);
    const key = routeKey(r);
    const rec = this.byService.get(k);
    if (rec === undefined) {
      this.byService.set(k, { routes: [key], routeObjects: [r], routeData: [undefined], served: new ServedMemo(), claimedBy: null });
      return;
    }
    const list = rec.routes;
    let i = list.length;
    while (i > 0 && list[i - 1]! > key) i--;
    if (list[i - 1] === key) {
      rec.routeObjects[i - 1] = r;
      rec.routeData[i - 1] = undefined;
      return;
    }
    list.splice(i, 0, key);
    rec.routeObjects.splice(i, 0, r);
    rec.routeData.splice(i, 0, undefined);
  }

  remove(r: Route): void {
    const k = serviceKey(r.namespace, r.service);
    const rec = this.byService.get(k);
    if (rec === undefined) return;
    const list = rec.routes;
    const i = list.indexOf(routeKey(r));
    if (i >= 0) {
      list.splice(i, 1);
      rec.routeObjects.splice(i, 1);
      rec.routeData.splice(i, 1);
    }
    if (list.length === 0) {
      this.release(rec);
      this.byService.delete(k);
    }
  }

  /**
   * `recordOf(entry.key)`, from the entry when this index keeps the record there. The first lookup of a
   * record puts it in the service's entry; a record removed, or the index rebuilt, takes it out again, so
   * an entry this index owns always holds what `recordOf` would answer. An entry another index owns is
   * left to it: two indexes on one state (tests do that) then look up by key, and take turns owning.
   */
  recordAt(entry: ServiceEntry): ServiceRecord<T> | undefined {
    if (entry.indexOwner === this) return entry.indexRecord as ServiceRecord<T>;
    const rec = this.byService.get(entry.key);
    if (rec !== undefined) {
      this.release(rec);
      entry.indexOwner = this;
      entry.indexRecord = rec;
      rec.claimedBy = entry;
    }
    return rec;
  }

  /** Takes the record out of the entry that holds it. */
  private release(rec: ServiceRecord<T>): void {
    const entry = rec.claimedBy;
    if (entry === null) return;
    rec.claimedBy = null;
    if (entry.indexOwner !== this) return;
    entry.indexOwner = null;
    entry.indexRecord = undefined;
  }

  routesOf(namespace: string, service: string): readonly string[] {
    return this.routesOfKey(serviceKey(namespace, service));
  }

  /** The same, by `serviceKey(namespace, service)`. */
  routesOfKey(key: string): readonly string[] {
    return this.byService.get(key)?.routes ?? EMPTY;
  }

  /** The service's record by `serviceKey(namespace, service)`; undefined when no route uses it. */
  recordOf(key: string): ServiceRecord<T> | undefined {
    return this.byService.get(key);
  }

  servedOf(serviceKey: string, service: string, endpoints: readonly Endpoint[]): readonly ServedEndpoint[] {
    const rec = this.byService.get(serviceKey);
    return rec === undefined ? servedEndpoints(service, endpoints) : rec.served.peek(service, endpoints);
  }
}

const EMPTY: readonly string[] = [];

/** The router's EndpointTable comparison (reflect.DeepEqual): same served endpoints in the same order. */
export function sameServed(a: readonly ServedEndpoint[], b: readonly ServedEndpoint[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.id !== b[i]!.id) return false;
  return true;
}

/**
 * `sameServed(servedEndpoints(service, a), servedEndpoints(service, b))` without building either list: equal
 * ready sequences serve the same, and only when they differ can de-duplication still make them equal.
 * Every endpoint event asks this, so the common answers allocate nothing. `bMayRepeat`, when the caller
 * knows it, is `mayHaveDuplicates(b)`.
 */
export function sameServedEndpoints(service: string, a: readonly Endpoint[], b: readonly Endpoint[], bMayRepeat?: boolean): boolean {
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && !isReady(a[i]!)) i++;
    while (j < b.length && !isReady(b[j]!)) j++;
    if (i === a.length || j === b.length) {
      if (i === a.length && j === b.length) return true;
      break;
    }
    const x = a[i]!;
    const y = b[j]!;
    if (x.ip !== y.ip || x.port !== y.port || x.name !== y.name || x.portName !== y.portName) break;
    i++;
    j++;
  }
  // Different ready sequences without duplicates serve differently; only duplicates need the full lists.
  if (!mayHaveDuplicates(a) && !(bMayRepeat ?? mayHaveDuplicates(b))) return false;
  return sameServed(servedEndpoints(service, a), servedEndpoints(service, b));
}

/**
 * `sameServedEndpoints(service, before, after)` for a change of the service `entry`, which then sums up
 * `after` (ServiceEntry.summedList). Without an ID twice, a list serves its ready endpoints, so when the
 * entry sums up `before` and the two ready counts differ, as they do for most changes under churn, the lists
 * serve differently, and `before` is not read: by the service's next change it has left the cache, and
 * reading it was the largest part of a reload-always replay's endpoint events after parsing them.
 */
export function sameServedSince(service: string, entry: ServiceEntry, before: readonly Endpoint[], after: readonly Endpoint[]): boolean {
  const mayRepeat = mayHaveDuplicates(after);
  let ready = -1;
  if (!mayRepeat) {
    ready = 0;
    for (let i = 0; i < after.length; i++) if (isReady(after[i]!)) ready++;
  }
  const apart = entry.summedList === before && entry.summedReady >= 0 && ready >= 0 && entry.summedReady !== ready;
  entry.summedList = after;
  entry.summedReady = ready;
  return !apart && sameServedEndpoints(service, before, after, mayRepeat);
}

const PAIRWISE_MAX = 16;

/** Whether two endpoints share an identity (ip, port, pod, port name); long lists are assumed to. */
function mayHaveDuplicates(list: readonly Endpoint[]): boolean {
  if (list.length > PAIRWISE_MAX) return true;
  for (let i = 1; i < list.length; i++) {
    const x = list[i]!;
    for (let j = 0; j < i; j++) {
      const y = list[j]!;
      if (x.ip === y.ip && x.port === y.port && x.name === y.name && x.portName === y.portName) return true;
    }
  }
  return false;
}
