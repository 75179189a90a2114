import type { Endpoint } from './endpoint.ts';
import { serviceKey } from './route.ts';

/**
 * One service as the router knows it: its key, its endpoints, and a slot for the record a service index
 * keeps of it. An endpoint event finds this once (by namespace, then name) and reads everything else from
 * it: the state's endpoints and the strategy's routes for the service used to be two more lookups by key,
 * each a cache miss on a table of thousands.
 */
export interface ServiceEntry {
  /** `serviceKey(namespace, service)`: the same string object every time (see ServiceEndpoints). */
  readonly key: string;
  /** undefined while the router has no endpoints for it (never set, or deleted). */
  endpoints: Endpoint[] | undefined;
  /**
   * The service index (core/strategies/service-index.ts) that keeps its record here, and that record. Only
   * that index reads or writes these two; another one sees an owner not itself and looks up by key.
   */
  indexOwner: object | null;
  indexRecord: unknown;
  /**
   * One of its endpoint lists summed up by a reader that compares the next list with it (sameServedSince):
   * the list, and its ready endpoints, or -1 when two of them may share an ID. Kept here, where the event
   * has just looked, because by the service's next event the list itself has left the cache.
   */
  summedList: readonly Endpoint[] | null;
  summedReady: number;
}

/**
 * The router's endpoints by service, one entry per service, made the first time the service is seen and
 * handed out again for every later event. Under churn the same few thousand services change a million
 * times; a key built afresh each time must be flattened and hashed, and every map that stores the service
 * then compares it character by character against its own copy. The same string every time is hashed
 * once and found by identity. Namespace and service names from JSON.parse are short and already
 * internalized, so the two lookups of `entryOf` are the cheap kind.
 *
 * Read by key it is a map of the services that have endpoints (`get`, `has`, `size`, iteration), as the
 * renderer and the invariant checker read it.
 */
export class ServiceEndpoints implements Iterable<[string, Endpoint[]]> {
  private readonly byNamespace = new Map<string, Map<string, ServiceEntry>>();
  private readonly byKey = new Map<string, ServiceEntry>();
  /** Entries with endpoints. */
  private withEndpoints = 0;

  /** The last answer: an event's service is asked for twice in a row (its input record, then its change). */
  private lastNamespace = '';
  private lastService = '';
  private last: ServiceEntry | null = null;

  /** The service's entry, made if it is new. */
  entryOf(namespace: string, service: string): ServiceEntry {
    if (namespace === this.lastNamespace && service === this.lastService && this.last !== null) return this.last;
    const entry = this.lookUp(namespace, service);
    this.lastNamespace = namespace;
    this.lastService = service;
    this.last = entry;
    return entry;
  }

  /** `serviceKey(namespace, service)`, the same string object each time. */
  keyOf(namespace: string, service: string): string {
    return this.entryOf(namespace, service).key;
  }

  private lookUp(namespace: string, service: string): ServiceEntry {
    let services = this.byNamespace.get(namespace);
    if (services === undefined) {
      services = new Map();
      this.byNamespace.set(namespace, services);
    }
    let entry = services.get(service);
    if (entry === undefined) {
      entry = { key: serviceKey(namespace, service), endpoints: undefined, indexOwner: null, indexRecord: undefined, summedList: null, summedReady: 0 };
      services.set(service, entry);
      this.byKey.set(entry.key, entry);
    }
    return entry;
  }

  /** Sets the service's endpoints. */
  put(entry: ServiceEntry, endpoints: Endpoint[]): void {
    if (entry.endpoints === undefined) this.withEndpoints++;
    entry.endpoints = endpoints;
  }

  /**
   * Deletes the service's endpoints and forgets the service: a log may create millions over its life.
   * Services asked for by routes alone (`endpointsOf` for one that never had endpoints) stay: they are
   * bounded by the services the routes name.
   */
  forget(namespace: string, service: string): void {
    this.last = null;
    const services = this.byNamespace.get(namespace);
    const entry = services?.get(service);
    if (entry === undefined) return;
    if (entry.endpoints !== undefined) this.withEndpoints--;
    entry.endpoints = undefined;
    services!.delete(service);
    if (services!.size === 0) this.byNamespace.delete(namespace);
    this.byKey.delete(entry.key);
  }

  /** How many services it remembers, with endpoints or not. */
  get services(): number {
    return this.byKey.size;
  }

  // ---- read and written by key: `namespace/service` ------------------------------------------------

  get(key: string): Endpoint[] | undefined {
    return this.byKey.get(key)?.endpoints;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** Services with endpoints. */
  get size(): number {
    return this.withEndpoints;
  }

  /** Sets a service's endpoints by its key (a namespace has no `/`, so the key's first one ends it). */
  set(key: string, endpoints: Endpoint[]): this {
    const slash = key.indexOf('/');
    if (slash < 0) throw new Error(`not a service key (namespace/service): '${key}'`);
    this.put(this.entryOf(key.slice(0, slash), key.slice(slash + 1)), endpoints);
    return this;
  }

  *entries(): IterableIterator<[string, Endpoint[]]> {
    for (const [key, entry] of this.byKey) if (entry.endpoints !== undefined) yield [key, entry.endpoints];
  }

  *keys(): IterableIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): IterableIterator<Endpoint[]> {
    for (const [, endpoints] of this.entries()) yield endpoints;
  }

  [Symbol.iterator](): IterableIterator<[string, Endpoint[]]> {
    return this.entries();
  }
}
