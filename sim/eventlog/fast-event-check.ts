import type { InputEvent } from '../../core/events.ts';

/**
 * The hot path's validator. Schema validation with zod costs more than the whole simulation step, so every
 * line is first checked by this hand-written test of the common, well-formed case. It may say "not sure"
 * (false) for valid input — zod then decides and words the error — but it never accepts what the schema
 * rejects: a property test holds it to that.
 */
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function looksValid(raw: unknown): raw is InputEvent {
  if (typeof raw !== 'object' || raw === null) return false;
  const e = raw as Record<string, unknown>;
  const at = e['at'];
  if (typeof at !== 'number' || !Number.isInteger(at) || at < 0) return false;
  switch (e['type']) {
    case 'endpoints.set':
      return hasOnly(e, 5) && nonEmpty(e['namespace']) && nonEmpty(e['service']) && endpoints(e['endpoints']);
    case 'endpoints.delete':
      return hasOnly(e, 4) && nonEmpty(e['namespace']) && nonEmpty(e['service']);
    case 'route.upsert':
    case 'blueprint.upsert':
      return hasOnly(e, 3) && route(e['route']);
    case 'route.delete':
    case 'blueprint.delete':
      return hasOnly(e, 4) && nonEmpty(e['namespace']) && nonEmpty(e['name']);
    default:
      return false;
  }
}

/** Exactly `n` own keys: with the checks on the known ones this rules out unknown fields (the schema is strict). */
function hasOnly(o: Record<string, unknown>, n: number): boolean {
  let count = 0;
  for (const _k in o) count++;
  return count === n;
}

function nonEmpty(v: unknown): boolean {
  return typeof v === 'string' && v.length > 0;
}

function endpoints(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const ep of v) {
    if (typeof ep !== 'object' || ep === null) return false;
    const o = ep as Record<string, unknown>;
    let n = 2;
    if (typeof o['ip'] !== 'string' || !IPV4.test(o['ip'])) return false;
    const port = o['port'];
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) return false;
    if (o['ready'] !== undefined) {
      if (typeof o['ready'] !== 'boolean') return false;
      n++;
    }
    if (o['name'] !== undefined) {
      if (!nonEmpty(o['name'])) return false;
      n++;
    }
    if (!hasOnly(o, n)) return false;
  }
  return true;
}

/** Plain routes only (no TLS, annotations or wildcard): anything richer goes to the schema. */
function route(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  if (!nonEmpty(r['namespace']) || !nonEmpty(r['name']) || !nonEmpty(r['host']) || !nonEmpty(r['service'])) return false;
  let n = 4;
  if (r['path'] !== undefined) {
    if (typeof r['path'] !== 'string' || !r['path'].startsWith('/')) return false;
    n++;
  }
  return hasOnly(r, n);
}
