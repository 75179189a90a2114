import type { Route } from '../route.ts';
import { routeRegexp, sniRegexp } from './route-regexp.ts';

/**
 * Which map files and keys a route gets. Two generators, because the real router has two and they differ:
 *
 * - `renderedMapEntries`: what a reload writes (template_helper generateHAProxyMap → util/haproxy
 *   GenerateMapEntry). Every route with a host gets an os_route_http_redirect.map entry whose value is "1"
 *   for the Redirect policy and "0" otherwise; os_tcp_be.map only for routes without a path; the
 *   os_sni_passthrough.map key is the bare `^<host>$` SNI regexp.
 * - `dynamicMapEntries`: what the config manager adds at runtime (manager.go BuildMapAssociations): a
 *   redirect entry only for the Redirect policy with the backend name as value; os_tcp_be.map whatever the
 *   path; the os_sni_passthrough.map key is the host regexp `^<host>\.?(:[0-9]+)?(/.*)?$`.
 *
 * The reference page's table describes the runtime side; where it says the redirect and SNI values are the
 * backend name, upstream writes "1"/"0" on reload and "1" in the SNI map at runtime.
 */

export const MAP_HTTP = 'os_http_be.map';
export const MAP_EDGE_REENCRYPT = 'os_edge_reencrypt_be.map';
export const MAP_REDIRECT = 'os_route_http_redirect.map';
export const MAP_TCP = 'os_tcp_be.map';
export const MAP_SNI = 'os_sni_passthrough.map';
export const MAP_WILDCARD = 'os_wildcard_domain.map';

/**
 * The map files a reload writes, in the order the template's frontends first reference them (so the order
 * `show map` lists them in): redirect (public), http (public), sni + tcp (public_ssl), edge/reencrypt (fe_sni).
 * os_wildcard_domain.map only exists when wildcard routes are allowed.
 */
export const MAP_FILES: readonly string[] = [MAP_REDIRECT, MAP_HTTP, MAP_SNI, MAP_TCP, MAP_EDGE_REENCRYPT];

export interface MapAssociation {
  map: string;
  key: string;
  value: string;
}

export interface MapOptions {
  /** ROUTER_ALLOW_WILDCARD_ROUTES: a `Subdomain` wildcard policy only takes effect when allowed. */
  allowWildcardRoutes?: boolean;
}

function isWildcard(route: Route, opts: MapOptions | undefined): boolean {
  return opts?.allowWildcardRoutes === true && route.wildcardPolicy === 'Subdomain';
}

/** The entries a reload writes for one route whose backend is `backendName`. */
export function renderedMapEntries(route: Route, backendName: string, opts?: MapOptions): MapAssociation[] {
  const host = route.host;
  if (host.length === 0) return [];
  const out: MapAssociation[] = [];
  const wildcard = isWildcard(route, opts);
  const termination = route.tls?.termination ?? '';
  const policy = route.tls?.insecureEdgeTerminationPolicy ?? '';
  const path = route.path ?? '';
  const pathKey = routeRegexp(host, path, wildcard);

  if (wildcard) out.push({ map: MAP_WILDCARD, key: routeRegexp(host, '', true), value: '1' });
  if (termination === '' || ((termination === 'edge' || termination === 'reencrypt') && policy === 'Allow')) {
    out.push({ map: MAP_HTTP, key: pathKey, value: backendName });
  }
  if (termination === 'edge' || termination === 'reencrypt') {
    out.push({ map: MAP_EDGE_REENCRYPT, key: pathKey, value: backendName });
  }
  out.push({ map: MAP_REDIRECT, key: pathKey, value: policy === 'Redirect' ? '1' : '0' });
  if (path.length === 0 && (termination === 'passthrough' || termination === 'reencrypt')) {
    out.push({ map: MAP_TCP, key: routeRegexp(host, '', wildcard), value: backendName });
  }
  if (path.length === 0 && termination === 'passthrough') {
    out.push({ map: MAP_SNI, key: sniRegexp(host, wildcard), value: '1' });
  }
  return out;
}

/**
 * The entries the config manager adds (or deletes) at runtime for a route served by `backendName`
 * (a pool slot's backend while pooled). One entry per (map, key), as upstream keeps them in a map.
 */
export function dynamicMapEntries(route: Route, backendName: string, opts?: MapOptions): MapAssociation[] {
  const host = route.host;
  if (host.length === 0) return [];
  const out: MapAssociation[] = [];
  const wildcard = isWildcard(route, opts);
  const termination = route.tls?.termination ?? '';
  const policy = route.tls?.insecureEdgeTerminationPolicy ?? 'None';
  const pathKey = routeRegexp(host, route.path, wildcard);

  if (policy === 'Redirect') out.push({ map: MAP_REDIRECT, key: pathKey, value: backendName });
  if (termination === '') {
    out.push({ map: MAP_HTTP, key: pathKey, value: backendName });
  } else if (termination === 'edge' || termination === 'reencrypt') {
    out.push({ map: MAP_EDGE_REENCRYPT, key: pathKey, value: backendName });
    if (policy === 'Allow') out.push({ map: MAP_HTTP, key: pathKey, value: backendName });
  }
  const hostKey = routeRegexp(host, '', wildcard);
  if (wildcard) out.push({ map: MAP_WILDCARD, key: hostKey, value: '1' });
  if (termination === 'reencrypt') {
    out.push({ map: MAP_TCP, key: hostKey, value: backendName });
  } else if (termination === 'passthrough') {
    out.push({ map: MAP_TCP, key: hostKey, value: backendName });
    out.push({ map: MAP_SNI, key: hostKey, value: '1' });
  }
  return out;
}

/** Keys of wildcard routes start with this literal text and sort after all others (util.SortMapPaths). */
const WILDCARD_KEY_PREFIX = '^[^\\.]*\\.';

/**
 * The order a reload writes a map file in: lines `<key> <value>` sorted in reverse byte order, so longer
 * paths of the same host come first, with wildcard keys after all exact-host keys.
 */
export function compareMapLines(a: string, b: string): number {
  const aw = a.startsWith(WILDCARD_KEY_PREFIX);
  const bw = b.startsWith(WILDCARD_KEY_PREFIX);
  if (aw !== bw) return aw ? 1 : -1;
  return a < b ? 1 : a > b ? -1 : 0;
}
