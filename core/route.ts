import { OneString } from './one-string.ts';

/** An OpenShift Route as the router sees it (route.openshift.io/v1, the fields that shape HAProxy config). */
export type Termination = 'edge' | 'passthrough' | 'reencrypt';
export type InsecureEdgeTerminationPolicy = 'None' | 'Allow' | 'Redirect';

export interface RouteTls {
  termination: Termination;
  insecureEdgeTerminationPolicy?: InsecureEdgeTerminationPolicy;
  certificate?: string;
  key?: string;
  caCertificate?: string;
  destinationCACertificate?: string;
}

export interface Route {
  namespace: string;
  name: string;
  host: string;
  path?: string;
  service: string;
  targetPort?: string | number;
  tls?: RouteTls;
  wildcardPolicy?: 'None' | 'Subdomain';
  annotations?: Record<string, string>;
  /**
   * When the route was created (its metadata.creationTimestamp), in the log's milliseconds: negative for a
   * route older than the log. The router admits the oldest route first on a shared host; without this a
   * route counts as created at its first `route.upsert`.
   */
  createdAt?: number;
}

/** `namespace/name`: the identity the router keys routes by. */
export function routeKey(r: { namespace: string; name: string }): string {
  return `${r.namespace}/${r.name}`;
}

/** The route's termination, with plain HTTP as "" exactly as the router's blueprint matcher compares it. */
export function terminationOf(r: Route): Termination | '' {
  return r.tls?.termination ?? '';
}

/**
 * `namespace/service`: the key endpoints are stored under. One string object per key (OneString): the
 * state, the strategies' service index and the renderer each key their maps by it, and an endpoint event's
 * key is looked up in all of them.
 */
export function serviceKey(namespace: string, service: string): string {
  return serviceKeys.of(`${namespace}/${service}`);
}

const serviceKeys = new OneString(65_536);
