/**
 * What a route's host may be. OpenShift's API server (library-go route validation) and the router itself
 * (UniqueHost's ValidateHostName, for routes stored before that check existed) both require a lowercase
 * DNS-1123 subdomain whose every label is a DNS-1123 label: letters a-z, digits and '-', each label 1 to 63
 * characters starting and ending with a letter or digit, 253 characters in all. A wildcard route
 * (wildcardPolicy Subdomain) names an ordinary host too; the router derives `*.<domain>` from it. Anything
 * else would never reach a router, and inside the simulator it breaks the map files (a space splits an
 * entry into key and value).
 */
export const ROUTE_HOST_MAX_LENGTH = 253;
const LABEL = '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?';
export const ROUTE_HOST_PATTERN = new RegExp(`^${LABEL}(\\.${LABEL})*$`);

export function badHostMessage(got: unknown): string {
  return `expected a host name as OpenShift accepts it: a DNS-1123 subdomain (lowercase letters, digits, '-' and '.'; each dot-separated label 1 to 63 characters, starting and ending with a letter or digit); got ${JSON.stringify(got)}`;
}

export function hostTooLongMessage(got: unknown): string {
  return `a host name allows at most ${ROUTE_HOST_MAX_LENGTH} characters; got ${typeof got === 'string' ? got.length : 'more'}`;
}

/**
 * The same rule by hand, for the hot path: one pass over the characters. A property test holds it to the
 * schema's answers.
 */
export function isRouteHost(s: string): boolean {
  const len = s.length;
  if (len < 1 || len > ROUTE_HOST_MAX_LENGTH) return false;
  let labelStart = 0;
  for (let i = 0; i <= len; i++) {
    const c = i < len ? s.charCodeAt(i) : 46;
    if (c === 46) {
      const labelLen = i - labelStart;
      if (labelLen < 1 || labelLen > 63 || s.charCodeAt(i - 1) === 45) return false;
      labelStart = i + 1;
    } else if (c === 45) {
      if (i === labelStart) return false;
    } else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) {
      return false;
    }
  }
  return true;
}
