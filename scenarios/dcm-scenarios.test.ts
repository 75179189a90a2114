import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunInput } from '../sim/load-input.ts';
import { runOne } from '../sim/run.ts';

/**
 * The bundled config-manager scenarios under all three strategies, with the reloads the rules predict.
 * Common rules: RELOAD_INTERVAL 5 s start to start, a reload takes 1 s, the events at time 0 are the initial
 * sync (one `initial` reload). A change 10 s after the previous reload start reloads at once; changes that
 * arrive while a reload runs fold into one more reload at lastStart + 5 s.
 */
function run(file: string, strategy: string) {
  const { reloads, invariants } = runOne(loadRunInput(join(import.meta.dirname, file), { set: { 'router.strategy': strategy } })).report;
  expect(invariants.violations).toEqual([]);
  return { total: reloads.total, requests: reloads.requests };
}

describe('bundled config-manager scenarios', () => {
  it('steady endpoint churn: only reload-always reloads', () => {
    // 60 changes (3 services alternating 3 and 2 pods), 10 s apart: each starts its own reload → 1 + 60.
    expect(run('dcm-steady-endpoint-churn.yaml', 'reload-always')).toEqual({ total: 61, requests: { initial: 1, 'endpoints-change': 60 } });
    // The 3rd pod takes a free _dynamic-pod slot, removing it sets the slot to maint: no reload.
    expect(run('dcm-steady-endpoint-churn.yaml', 'dcm-slots')).toEqual({ total: 1, requests: { initial: 1 } });
    // add server / maint + del server: no reload.
    expect(run('dcm-steady-endpoint-churn.yaml', 'dcm-add-del')).toEqual({ total: 1, requests: { initial: 1 } });
  });

  it('changes the router never sees: rejected routes and dropped endpoint addresses', () => {
    // The routes at 60 and 120 s are not admitted and the endpoint sets at 180 and 240 s serve the same one pod:
    // the router sees none of them. The second pod at 300 s, 300 s after the initial reload: reload-always
    // reloads at once; dcm-slots fills a free dynamic slot without a reload. dcm-add-del adds the server, then
    // enables checks on both servers (two endpoints now): the first was rendered without a check (a lone
    // endpoint has none), so `enable health` is refused and the router reloads, as upstream does.
    expect(run('router-admission-filters.yaml', 'reload-always')).toEqual({ total: 2, requests: { initial: 1, 'endpoints-change': 1 } });
    expect(run('router-admission-filters.yaml', 'dcm-slots')).toEqual({ total: 1, requests: { initial: 1 } });
    expect(run('router-admission-filters.yaml', 'dcm-add-del')).toEqual({ total: 2, requests: { initial: 1, 'runtime-api-error': 1 } });
  });

  it('a scale storm beyond the slots', () => {
    // 2 → 8 pods: 6 new endpoints, 5 slots.
    expect(run('dcm-scale-storm.yaml', 'reload-always')).toEqual({ total: 2, requests: { initial: 1, 'endpoints-change': 1 } });
    expect(run('dcm-scale-storm.yaml', 'dcm-slots')).toEqual({ total: 2, requests: { initial: 1, 'dynamic-slots-exhausted': 1 } });
    // add server has no slot limit.
    expect(run('dcm-scale-storm.yaml', 'dcm-add-del')).toEqual({ total: 1, requests: { initial: 1 } });
  });

  it('custom certificates, annotations and reencrypt routes', () => {
    // reload-always: routes at 10, 20, 30, 40 s reload at once (4); at 50 s four endpoint sets arrive together:
    // the first starts a reload, the other three find it running and fold into one more at 55 s → 1 + 4 + 2.
    expect(run('dcm-certificates-annotations-reencrypt.yaml', 'reload-always')).toEqual({
      total: 7,
      requests: { initial: 1, 'route-change': 4, 'endpoints-change': 4 },
    });
    // dcm-slots: the custom-certificate edge route, the annotated route and the reencrypt route match no
    // default blueprint (3 reloads, 10 s apart); the plain edge route takes an edge pool slot; the endpoints
    // at 50 s go into slots.
    expect(run('dcm-certificates-annotations-reencrypt.yaml', 'dcm-slots')).toEqual({ total: 4, requests: { initial: 1, 'no-blueprint-match': 3 } });
    // dcm-add-del: every route add reloads; endpoints go in with add server.
    expect(run('dcm-certificates-annotations-reencrypt.yaml', 'dcm-add-del')).toEqual({ total: 5, requests: { initial: 1, 'route-change': 4 } });
  });

  it('routes that pick one port of a multi-port service', () => {
    // reload-always: the initial sync, then each endpoint change at 10, 20 and 30 s (10 s apart, more than the
    // 5 s reload interval) reloads at once → 1 + 3.
    expect(run('dcm-multi-port-routes.yaml', 'reload-always')).toEqual({ total: 4, requests: { initial: 1, 'endpoints-change': 3 } });
    // dcm-slots: each route is served its own port, so 2 → 5 pods is 3 new endpoints per route, within its 5
    // slots (both ports would be 6: dynamic-slots-exhausted); the scale-down and the delete set servers to maint.
    expect(run('dcm-multi-port-routes.yaml', 'dcm-slots')).toEqual({ total: 1, requests: { initial: 1 } });
    // dcm-add-del: add server / del server for the scale-up and scale-down; the delete at 30 s hands route
    // `web` (first in key order) all four endpoints, and the two metrics servers are not in its backend: one
    // runtime-api-error reload, and the walk stops before web-metrics.
    expect(run('dcm-multi-port-routes.yaml', 'dcm-add-del')).toEqual({ total: 2, requests: { initial: 1, 'runtime-api-error': 1 } });
  });

  it('a custom reencrypt blueprint', () => {
    // reload-always: route at 10 s, endpoints at 20 s, route at 30 s: three reloads after the initial one.
    expect(run('dcm-custom-reencrypt-blueprint.yaml', 'reload-always')).toEqual({
      total: 4,
      requests: { initial: 1, 'route-change': 2, 'endpoints-change': 1 },
    });
    // dcm-slots: both reencrypt routes match the custom blueprint and take slots of its pool.
    expect(run('dcm-custom-reencrypt-blueprint.yaml', 'dcm-slots')).toEqual({ total: 1, requests: { initial: 1 } });
    // dcm-add-del: route adds reload, the endpoints are added at runtime.
    expect(run('dcm-custom-reencrypt-blueprint.yaml', 'dcm-add-del')).toEqual({ total: 3, requests: { initial: 1, 'route-change': 2 } });
  });
});
