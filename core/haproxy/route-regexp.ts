/**
 * The map keys the router generates for a route (pkg/router/template/util GenerateRouteRegexp and
 * GenerateSNIRegexp), modelled from their documented behaviour.
 */

const META = /[\\.+*?()|[\]{}^$]/g;

/** Go's regexp.QuoteMeta: a backslash before each of `\.+*?()|[]{}^$`. */
export function quoteMeta(s: string): string {
  return s.replace(META, '\\$&');
}

/** The part of a host after its first label (routeapihelpers.GetDomainForHost); "" when there is none. */
export function domainForHost(host: string): string {
  const i = host.indexOf('.');
  return i < 0 ? '' : host.slice(i + 1);
}

function hostRegexp(host: string, wildcard: boolean): string {
  if (wildcard) {
    const domain = domainForHost(host);
    if (domain.length > 0) return `[^\\.]*${quoteMeta(`.${domain}`)}`;
  }
  return quoteMeta(host);
}

/** `^<host>\.?(:[0-9]+)?<path>(/.*)?$`; a path ending in "/" takes `(.*)?`; a path of only slashes is dropped. */
export function routeRegexp(host: string, path: string | undefined, wildcard: boolean): string {
  const p = path ?? '';
  let pathRe: string;
  let subpathRe: string;
  if (trimTrailingSlashes(p).length === 0) {
    pathRe = '';
    subpathRe = '(/.*)?';
  } else if (p.endsWith('/')) {
    pathRe = escapeWhitespace(quoteMeta(p));
    subpathRe = '(.*)?';
  } else {
    pathRe = escapeWhitespace(quoteMeta(p));
    subpathRe = '(/.*)?';
  }
  return `^${hostRegexp(host, wildcard)}\\.?(:[0-9]+)?${pathRe}${subpathRe}$`;
}

/** `^<host>$`: the SNI key of os_sni_passthrough.map as a reload writes it. */
export function sniRegexp(host: string, wildcard: boolean): string {
  return `^${hostRegexp(host, wildcard)}$`;
}

function trimTrailingSlashes(p: string): string {
  let end = p.length;
  while (end > 0 && p.charCodeAt(end - 1) === 47) end--;
  return p.slice(0, end);
}

/** Map files cannot hold raw whitespace: the router writes `\x20`, `\t`, `\r`, `\n` (bugzilla 2074304). */
function escapeWhitespace(s: string): string {
  if (!/[ \t\r\n]/.test(s)) return s;
  return s.replaceAll(' ', '\\x20').replaceAll('\t', '\\t').replaceAll('\r', '\\r').replaceAll('\n', '\\n');
}
