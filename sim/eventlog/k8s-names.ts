import { z } from 'zod';
import { isRouteHost } from './route-host.ts';

/**
 * Names as Kubernetes accepts them (apimachinery's validation): a namespace is a DNS-1123 label (lowercase
 * letters, digits and '-', starting and ending with a letter or digit, at most 63 characters); an object's
 * name (a route, a service's Endpoints, a pod) a DNS-1123 subdomain (such labels joined by dots, at most 253
 * characters). The router only ever sees such names; anything else (a space, '/', NUL, a newline, 100,000
 * characters) would only break the simulator's map files, server names and reports.
 */
export const LABEL_MAX_LENGTH = 63;
export const SUBDOMAIN_MAX_LENGTH = 253;

/** A DNS-1123 label, by hand for the hot path; a property test holds it to the schema below. */
export function isDns1123Label(s: string): boolean {
  const len = s.length;
  if (len < 1 || len > LABEL_MAX_LENGTH) return false;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    const alnum = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (!alnum && !(c === 45 && i > 0 && i < len - 1)) return false;
  }
  return true;
}

/** A DNS-1123 subdomain: the rule a route's host follows too. */
export const isDns1123Subdomain = isRouteHost;

const LABEL = '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?';
const LABEL_PATTERN = new RegExp(`^${LABEL}$`);
const SUBDOMAIN_PATTERN = new RegExp(`^${LABEL}(\\.${LABEL})*$`);

function quoted(v: unknown): string {
  return typeof v === 'string' && v.length > 80 ? `${JSON.stringify(v.slice(0, 80))}… (${v.length} characters)` : JSON.stringify(v);
}

/** A namespace's name. */
export const namespaceName = z
  .string()
  .min(1)
  .max(LABEL_MAX_LENGTH, { error: (issue) => `a namespace name is at most ${LABEL_MAX_LENGTH} characters (a DNS-1123 label); got ${quoted(issue.input)}` })
  .regex(LABEL_PATTERN, {
    error: (issue) => `expected a namespace name as Kubernetes accepts it: a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit); got ${quoted(issue.input)}`,
  });

/** An object's name: a route, a service (its Endpoints), a pod. */
export const objectName = z
  .string()
  .min(1)
  .max(SUBDOMAIN_MAX_LENGTH, { error: (issue) => `a name is at most ${SUBDOMAIN_MAX_LENGTH} characters (a DNS-1123 subdomain); got ${quoted(issue.input)}` })
  .regex(SUBDOMAIN_PATTERN, {
    error: (issue) =>
      `expected a name as Kubernetes accepts it: a DNS-1123 subdomain (lowercase letters, digits, '-' and '.'; each dot-separated label starting and ending with a letter or digit); got ${quoted(issue.input)}`,
  });
