import { isDottedQuad } from '../../core/dotted-quad.ts';
import type { InputEvent } from '../../core/events.ts';
import { MAX_AT_MS } from './event-time.ts';
import { isDns1123Label, isDns1123Subdomain } from './k8s-names.ts';
import { hasOnly } from './key-count.ts';
import { isRouteHost } from './route-host.ts';

/**
 * The hot path's validator. Schema validation with zod costs more than the whole simulation step, so every
 * line is first checked by this hand-written test of the common, well-formed case. It may say "not sure"
 * (false) for valid input — zod then decides and words the error — but it never accepts what the schema
 * rejects: a property test holds it to that.
 *
 * An event it accepts gets its `type` replaced by the same text as a constant. `JSON.parse` internalizes
 * only strings of up to 10 characters, so "endpoints.set" arrives as a fresh string on every line, and
 * every `switch` on the type downstream (the state, the strategy, the report projections) then compares
 * it character by character; the constant compares by identity.
 */
export function looksValid(raw: unknown): raw is InputEvent {
  if (typeof raw !== 'object' || raw === null) return false;
  const e = raw as Record<string, unknown>;
  const at = e['at'];
  // Past MAX_AT_MS (2^53 and 1e300 among them) the schema rejects the time, and words why.
  if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at > MAX_AT_MS) return false;
  switch (e['type']) {
    case 'endpoints.set':
      return namespace(e['namespace']) && objectName(e['service']) && endpoints(e['endpoints']) && hasOnly(e, 5) && typed(e, 'endpoints.set');
    case 'endpoints.delete':
      return hasOnly(e, 4) && namespace(e['namespace']) && objectName(e['service']) && typed(e, 'endpoints.delete');
    case 'route.upsert':
      return hasOnly(e, 3) && route(e['route']) && typed(e, 'route.upsert');
    case 'blueprint.upsert':
      return hasOnly(e, 3) && route(e['route']) && typed(e, 'blueprint.upsert');
    case 'route.delete':
      return hasOnly(e, 4) && namespace(e['namespace']) && objectName(e['name']) && typed(e, 'route.delete');
    case 'blueprint.delete':
      return hasOnly(e, 4) && namespace(e['namespace']) && objectName(e['name']) && typed(e, 'blueprint.delete');
    default:
      return false;
  }
}

/** Puts the constant in place of the parsed copy of the same text (see above); always true. */
function typed(e: Record<string, unknown>, type: InputEvent['type']): true {
  e['type'] = type;
  return true;
}

function namespace(v: unknown): boolean {
  return typeof v === 'string' && isDns1123Label(v);
}

function objectName(v: unknown): boolean {
  return typeof v === 'string' && isDns1123Subdomain(v);
}

function endpoints(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const ep: unknown = v[i];
    if (typeof ep !== 'object' || ep === null) return false;
    const o = ep as Record<string, unknown>;
    const port = o['port'];
    // In range first, so `| 0` is exact and NaN is already out.
    if (typeof port !== 'number' || !(port >= 1 && port <= 65535) || (port | 0) !== port) return false;
    let n = 2;
    const ready = o['ready'];
    if (ready !== undefined) {
      if (ready !== true && ready !== false) return false;
      n++;
    }
    const name = o['name'];
    if (name !== undefined) {
      if (!objectName(name)) return false;
      n++;
    }
    // Imported logs carry the port's name on most endpoints: too common to leave to the schema.
    const portName = o['portName'];
    if (portName !== undefined) {
      if (typeof portName !== 'string' || !isDns1123Label(portName)) return false;
      n++;
    }
    const ip = o['ip'];
    if (typeof ip !== 'string' || !isDottedQuad(ip) || !hasOnly(o, n)) return false;
  }
  return true;
}

/**
 * Routes with a path, TLS and a creation time at most (no target port, wildcard or annotations): anything richer goes to the
 * schema. TLS is here because generated and imported logs carry it on many routes, and the schema took
 * about 36 µs a route (1.8% of a reload-always replay of the churn slice, whose routes are half edge).
 */
function route(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  const host = r['host'];
  if (!namespace(r['namespace']) || !objectName(r['name']) || typeof host !== 'string' || !isRouteHost(host) || !objectName(r['service'])) return false;
  let n = 4;
  if (r['path'] !== undefined) {
    if (typeof r['path'] !== 'string' || !r['path'].startsWith('/')) return false;
    n++;
  }
  if (r['tls'] !== undefined) {
    if (!tls(r['tls'])) return false;
    n++;
  }
  // Imported routes carry their creation time.
  const createdAt = r['createdAt'];
  if (createdAt !== undefined) {
    if (typeof createdAt !== 'number' || !Number.isInteger(createdAt) || createdAt < -MAX_AT_MS || createdAt > MAX_AT_MS) return false;
    n++;
  }
  return hasOnly(r, n);
}

const TERMINATIONS: ReadonlySet<unknown> = new Set(['edge', 'passthrough', 'reencrypt']);
const INSECURE_POLICIES: ReadonlySet<unknown> = new Set(['None', 'Allow', 'Redirect']);
const PEM_FIELDS = ['certificate', 'key', 'caCertificate', 'destinationCACertificate'] as const;

function tls(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const t = v as Record<string, unknown>;
  if (!TERMINATIONS.has(t['termination'])) return false;
  let n = 1;
  const policy = t['insecureEdgeTerminationPolicy'];
  if (policy !== undefined) {
    if (!INSECURE_POLICIES.has(policy)) return false;
    n++;
  }
  for (const field of PEM_FIELDS) {
    const pem = t[field];
    if (pem === undefined) continue;
    if (typeof pem !== 'string') return false;
    n++;
  }
  return hasOnly(t, n);
}
