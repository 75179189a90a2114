import { describe, expect, it } from 'vitest';
import type { ChurnEvent } from '../events.ts';
import type { Route } from '../route.ts';
import type { ReloadReason } from '../reload-reason.ts';
import { FakeHaproxy } from '../testing/fake-haproxy.ts';
import { Harness } from '../testing/harness.ts';
import { createStrategy, type StrategySettings } from './index.ts';

/**
 * The three strategies on the same churn, reload requests counted by reason. Requests, not reloads: the
 * harness reloads after every event that asked for one (as if RELOAD_INTERVAL had passed each time).
 */
function run(strategy: StrategySettings['strategy'], initial: ChurnEvent[], churn: ChurnEvent[]): Record<string, number> {
  const h = new Harness(
    createStrategy({ strategy, maxDynamicServers: 5, blueprintPoolSize: 10, blueprintNamespace: '', blueprints: [], allowWildcardRoutes: false }),
    new FakeHaproxy(),
  );
  h.sync(initial);
  const counts: Partial<Record<ReloadReason, number>> = {};
  for (const e of churn) {
    h.apply(e);
    for (const r of h.requests) counts[r.reason] = (counts[r.reason] ?? 0) + 1;
    h.settle();
  }
  return counts;
}

const route = (i: number, extra: Partial<Route> = {}): Route => ({ namespace: 'ns', name: `r${i}`, host: `r${i}.example.com`, service: `s${i}`, ...extra });
const eps = (svc: number, n: number): ChurnEvent => ({
  at: 0,
  type: 'endpoints.set',
  namespace: 'ns',
  service: `s${svc}`,
  endpoints: Array.from({ length: n }, (_, k) => ({ ip: `10.0.${svc}.${k + 1}`, port: 8080, name: `p${svc}-${k + 1}` })),
});

describe('reload requests by reason, derived from the rules', () => {
  const initial = [0, 1, 2].flatMap((i) => [{ at: 0, type: 'route.upsert' as const, route: route(i) }, eps(i, 2)]);

  it('steady endpoint churn (2 ↔ 3 endpoints on 3 routes, 60 changes): only reload-always reloads', () => {
    // 20 rounds; in round r every service goes to 3 endpoints (r even) or back to 2 (r odd): 60 real changes.
    const churn: ChurnEvent[] = [];
    for (let r = 0; r < 20; r++) for (let i = 0; i < 3; i++) churn.push(eps(i, r % 2 === 0 ? 3 : 2));
    // reload-always: each of the 60 changes alters a routed service → 60 endpoints-change.
    expect(run('reload-always', initial, churn)).toEqual({ 'endpoints-change': 60 });
    // dcm-slots: 3rd endpoint takes a free slot (5 per backend), removing it sets that slot to maint and frees it.
    expect(run('dcm-slots', initial, churn)).toEqual({});
    // dcm-add-del: 2 → 3 is `add server` + `enable health` on the new (checked) server; 3 → 2 is maint + del.
    // The 2 rendered servers have `check` (2 endpoints), and the "former single endpoint" rule never applies.
    expect(run('dcm-add-del', initial, churn)).toEqual({});
  });

  it('scale storm beyond the slots: 2 → 8 endpoints needs 6 slots of 5', () => {
    const churn = [eps(0, 8)];
    expect(run('reload-always', initial, churn)).toEqual({ 'endpoints-change': 1 });
    expect(run('dcm-slots', initial, churn)).toEqual({ 'dynamic-slots-exhausted': 1 });
    // add-del has no slot limit: 6 × (add server, state ready, enable health); old had 2 endpoints.
    expect(run('dcm-add-del', initial, churn)).toEqual({});
  });

  it('route burst beyond the pool: 12 new http routes, pool of 10', () => {
    const churn: ChurnEvent[] = [];
    for (let i = 10; i < 22; i++) churn.push({ at: 0, type: 'route.upsert', route: route(i) });
    expect(run('reload-always', initial, churn)).toEqual({ 'route-change': 12 });
    // The first 10 take slots 1..10 without asking for a reload; the 11th finds none (pool-exhausted); the
    // reload that follows frees every slot, so the 12th takes slot 1.
    expect(run('dcm-slots', initial, churn)).toEqual({ 'pool-exhausted': 1 });
    expect(run('dcm-add-del', initial, churn)).toEqual({ 'route-change': 12 });
  });

  it('custom certificates, annotations and reencrypt: no default blueprint matches', () => {
    const churn: ChurnEvent[] = [
      { at: 0, type: 'route.upsert', route: route(30, { tls: { termination: 'edge', certificate: 'C', key: 'K' } }) },
      { at: 0, type: 'route.upsert', route: route(31, { annotations: { 'haproxy.router.openshift.io/balance': 'leastconn' } }) },
      { at: 0, type: 'route.upsert', route: route(32, { tls: { termination: 'reencrypt' } }) },
      { at: 0, type: 'route.upsert', route: route(33, { tls: { termination: 'edge' } }) },
    ];
    expect(run('dcm-slots', initial, churn)).toEqual({ 'no-blueprint-match': 3 });
    expect(run('dcm-add-del', initial, churn)).toEqual({ 'route-change': 4 });
  });
});
