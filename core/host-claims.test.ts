import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { ChurnEvent } from './events.ts';
import { HostIndex, type Claim, type HostActivation } from './host-claims.ts';
import { RouteAdmission } from './route-admission.ts';
import type { Route } from './route.ts';

/**
 * Route churn over three hosts, three namespaces and three paths. A route's TLS is fixed by its name: an
 * update in place (same host and path) is not weighed again upstream either, so a TLS change there could
 * leave two holders in conflict, as it can in the real router.
 */
const NAMES = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'];
const tlsOf = (name: string): Route['tls'] => (name === 'r0' || name === 'r3' ? { termination: 'passthrough' } : name === 'r1' ? { termination: 'edge' } : undefined);
const step = fc.oneof(
  fc.record({
    kind: fc.constant('upsert' as const),
    namespace: fc.constantFrom('a', 'b', 'c'),
    name: fc.constantFrom(...NAMES),
    host: fc.constantFrom('h1.example.com', 'h2.example.com', 'h3.example.com'),
    path: fc.constantFrom(undefined, '/x', '/y'),
    // Creation times that tie with each other and with the upserts' time (0), or come before it.
    createdAt: fc.constantFrom(undefined, undefined, -5000, 0, 1000),
  }),
  fc.record({ kind: fc.constant('delete' as const), namespace: fc.constantFrom('a', 'b', 'c'), name: fc.constantFrom(...NAMES) }),
);

const conflicts = (x: Route, y: Route): boolean =>
  (x.path ?? '') === (y.path ?? '') || (x.tls !== undefined && y.tls !== undefined && (x.tls.termination === 'passthrough' || y.tls.termination === 'passthrough'));

describe('host claims under random route churn', () => {
  for (const activation of ['same-namespace', 'oldest-first'] as HostActivation[]) {
    test.prop([fc.array(step, { maxLength: 60 })])(`${activation}: the router has exactly the holders, who do not conflict; the oldest claimant holds`, (steps) => {
      const admission = new RouteAdmission(() => {}, { activation });
      // The index admission keeps is private; a second one fed the same way checks the admitted changes against it.
      const index = (admission as unknown as { hosts: HostIndex }).hosts;
      const router = new Map<string, Route>();
      // The reference age (RouteLessThan): creation time, the upsert's (0) when not given, then the order of
      // first upserts, both as of a route's first upsert since it was last deleted.
      const firstSeen = new Map<string, { created: number; order: number }>();
      let order = 0;
      const older = (a: Claim, b: Claim): boolean => {
        const x = firstSeen.get(a.key)!;
        const y = firstSeen.get(b.key)!;
        return x.created !== y.created ? x.created < y.created : x.order < y.order;
      };
      for (const s of steps) {
        const key = `${s.namespace}/${s.name}`;
        if (s.kind === 'delete') firstSeen.delete(key);
        else if (!firstSeen.has(key)) firstSeen.set(key, { created: s.createdAt ?? 0, order: order++ });
        const e: ChurnEvent =
          s.kind === 'upsert'
            ? {
                at: 0,
                type: 'route.upsert',
                route: {
                  namespace: s.namespace,
                  name: s.name,
                  host: s.host,
                  service: 'svc',
                  ...(s.path !== undefined && { path: s.path }),
                  ...(tlsOf(s.name) !== undefined && { tls: tlsOf(s.name)! }),
                  ...(s.createdAt !== undefined && { createdAt: s.createdAt }),
                },
              }
            : { at: 0, type: 'route.delete', namespace: s.namespace, name: s.name };
        for (const c of admission.admit(e)) {
          if (c.type === 'route.upsert') router.set(`${c.route.namespace}/${c.route.name}`, c.route);
          else if (c.type === 'route.delete') router.delete(`${c.namespace}/${c.name}`);
        }
        const holders = new Map<string, Route>();
        for (const host of index.claimedHosts()) {
          const active = index.holders(host);
          const waiting = index.waiting(host);
          for (const h of active) holders.set(h.key, h.route);
          for (let i = 0; i < active.length; i++) for (let j = 0; j < i; j++) expect(conflicts(active[i]!.route, active[j]!.route)).toBe(false);
          if (activation === 'same-namespace') expect(new Set(active.map((h) => h.route.namespace)).size).toBeLessThanOrEqual(1);
          const oldest = [...active, ...waiting].reduce((m: Claim | undefined, c) => (m === undefined || older(c, m) ? c : m), undefined);
          if (oldest !== undefined) expect(active).toContain(oldest);
          // No claim that waits could hold is asked of the index: a route arriving weighs only itself against
          // the holders (hostRules.add), so one waiting may have been free to hold since (upstream too).
        }
        expect(new Map([...router].sort())).toEqual(new Map([...holders].sort()));
      }
    });
  }
});
