import type { InputEvent } from '../../core/events.ts';
import type { Route, RouteTls } from '../../core/route.ts';

/**
 * The forms of one event one step simpler than it, most removed first: what is left of a route with one
 * optional part gone (its path, TLS, target port, wildcard policy, annotations, one annotation, one TLS
 * field), of a partition with one node fewer (or one-way dropped), of a join without one of its own
 * keepalived settings, of a stall half as long. Each form is still a valid event of the same kind for the
 * same subject (docs/event-log.md), so a shrunk log stays one the reader accepts. Endpoints are cut
 * elsewhere (by ddmin, a list of them can lose many at once). Pure; the order is fixed, so the search is
 * deterministic.
 */
export function simplerForms(e: InputEvent): InputEvent[] {
  switch (e.type) {
    case 'route.upsert':
    case 'blueprint.upsert':
      return simplerRoutes(e.route).map((route) => ({ ...e, route }));
    case 'network.partition':
      return simplerPartitions(e);
    case 'node.join': {
      const out: InputEvent[] = [];
      for (const k of ['priority', 'preempt', 'preemptDelayMs'] as const) if (e[k] !== undefined) out.push(without(e, k));
      return out;
    }
    case 'node.stall':
      return e.durationMs > 1 ? [{ ...e, durationMs: Math.floor(e.durationMs / 2) }] : [];
    default:
      return [];
  }
}

function simplerRoutes(r: Route): Route[] {
  const out: Route[] = [];
  // Whole parts before their pieces: one run that drops all of a route's TLS saves one per field.
  for (const k of ['tls', 'annotations', 'path', 'targetPort', 'wildcardPolicy'] as const) if (r[k] !== undefined) out.push(without(r, k));
  for (const name of Object.keys(r.annotations ?? {}).sort()) {
    const rest = { ...r.annotations };
    delete rest[name];
    out.push({ ...r, annotations: rest });
  }
  if (r.tls !== undefined) {
    for (const k of ['insecureEdgeTerminationPolicy', 'certificate', 'key', 'caCertificate', 'destinationCACertificate'] as const) {
      if (r.tls[k] !== undefined) out.push({ ...r, tls: without<RouteTls, typeof k>(r.tls, k) });
    }
  }
  return out;
}

function simplerPartitions(e: Extract<InputEvent, { type: 'network.partition' }>): InputEvent[] {
  const out: InputEvent[] = [];
  if (e.oneWay !== undefined) out.push(without(e, 'oneWay'));
  // One node fewer; a group left empty goes, and the last node of the last group stays (a partition has one).
  e.groups.forEach((g, i) =>
    g.forEach((_, j) => {
      const groups = e.groups.map((h, k) => (k === i ? h.filter((_, m) => m !== j) : h)).filter((h) => h.length > 0);
      if (groups.length > 0) out.push({ ...e, groups });
    }),
  );
  return out;
}

function without<T extends object, K extends keyof T>(o: T, k: K): T {
  const copy = { ...o };
  delete copy[k];
  return copy;
}
