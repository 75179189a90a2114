import { serviceKey } from './route.ts';

/**
 * One `serviceKey(namespace, service)` string per service, made the first time the service is seen and
 * handed out again for every later event. Under churn the same few thousand services change a million
 * times; a key built afresh each time must be flattened and hashed, and every map that stores the service
 * then compares it character by character against its own copy. The same string every time is hashed
 * once and found by identity. Namespace and service names from JSON.parse are short and already
 * internalized, so the two lookups here are the cheap kind.
 */
export class ServiceKeys {
  private readonly byNamespace = new Map<string, Map<string, string>>();
  private count = 0;

  /** How many services it remembers. */
  get size(): number {
    return this.count;
  }

  /** The last answer: an event's service is asked for twice in a row (its input record, then its change). */
  private lastNamespace = '';
  private lastService = '';
  private lastKey = '';

  of(namespace: string, service: string): string {
    if (namespace === this.lastNamespace && service === this.lastService && this.lastKey !== '') return this.lastKey;
    const key = this.lookUp(namespace, service);
    this.lastNamespace = namespace;
    this.lastService = service;
    this.lastKey = key;
    return key;
  }

  private lookUp(namespace: string, service: string): string {
    let services = this.byNamespace.get(namespace);
    if (services === undefined) {
      services = new Map();
      this.byNamespace.set(namespace, services);
    }
    let key = services.get(service);
    if (key === undefined) {
      key = serviceKey(namespace, service);
      services.set(service, key);
      this.count++;
    }
    return key;
  }

  /**
   * A service whose endpoints were deleted need not be remembered (a log may create millions over its
   * life). Keys asked for by routes alone (`endpointsOf` for a service that never had endpoints) stay:
   * they are bounded by the services the routes name.
   */
  forget(namespace: string, service: string): void {
    this.lastKey = '';
    const services = this.byNamespace.get(namespace);
    if (services === undefined) return;
    if (services.delete(service)) this.count--;
    if (services.size === 0) this.byNamespace.delete(namespace);
  }
}
