import { describe, expect, it } from 'vitest';
import type { Route } from '../route.ts';
import { backendModAnnotations, defaultBlueprintRoutes, findMatchingBlueprint, poolSizeOf, type Blueprint } from './blueprints.ts';
import { BlueprintPool } from './pool.ts';

const r = (extra: Partial<Route> = {}): Route => ({ namespace: 'n', name: 'x', host: 'x.example.com', service: 'x', ...extra });
const defaults: Blueprint[] = defaultBlueprintRoutes().map((route) => ({ route, poolSize: 10 }));

describe('blueprint matching', () => {
  it('matches by termination in list order; host, path, wildcard and service are not compared', () => {
    expect(findMatchingBlueprint(r({ path: '/a', wildcardPolicy: 'Subdomain', service: 'other' }), defaults)?.route.name).toBe('_blueprint-http-route');
    expect(findMatchingBlueprint(r({ tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'Allow' } }), defaults)?.route.name).toBe('_blueprint-edge-route');
    expect(findMatchingBlueprint(r({ tls: { termination: 'passthrough' } }), defaults)?.route.name).toBe('_blueprint-passthrough-route');
    expect(findMatchingBlueprint(r({ tls: { termination: 'reencrypt' } }), defaults)).toBeUndefined();
  });

  it('TLS material must be equal', () => {
    expect(findMatchingBlueprint(r({ tls: { termination: 'edge', certificate: 'C', key: 'K' } }), defaults)).toBeUndefined();
    const custom: Blueprint = { route: r({ name: 'bp', tls: { termination: 'edge', certificate: 'C', key: 'K', insecureEdgeTerminationPolicy: 'Redirect' } }), poolSize: 1 };
    expect(findMatchingBlueprint(r({ tls: { termination: 'edge', certificate: 'C', key: 'K' } }), [...defaults, custom])).toBe(custom);
    expect(findMatchingBlueprint(r({ tls: { termination: 'edge', certificate: 'C', key: 'K2' } }), [...defaults, custom])).toBeUndefined();
  });

  it('backend-modifying annotations: the same set and values; none on the route means not checked', () => {
    const timeout = { 'haproxy.router.openshift.io/timeout': '5m' };
    const custom: Blueprint = { route: r({ name: 'bp', annotations: { ...timeout, unrelated: 'x' } }), poolSize: 1 };
    expect(findMatchingBlueprint(r({ annotations: timeout }), [...defaults, custom])).toBe(custom);
    expect(findMatchingBlueprint(r({ annotations: { 'haproxy.router.openshift.io/timeout': '6m' } }), [...defaults, custom])).toBeUndefined();
    // No modifiers on the route: the blueprint's annotations are not checked, so the first http one in list order wins.
    expect(findMatchingBlueprint(r(), [custom, ...defaults])).toBe(custom);
    // Cookie annotations only modify non-passthrough backends.
    expect(backendModAnnotations(r({ tls: { termination: 'passthrough' }, annotations: { 'router.openshift.io/cookie_name': 'c' } }))).toEqual([]);
    expect(backendModAnnotations(r({ annotations: { 'router.openshift.io/cookie_name': 'c' } }))).toEqual([['router.openshift.io/cookie_name', 'c']]);
  });

  it('pool size annotation: upstream ignores a valid value and turns an invalid one into 0', () => {
    expect(poolSizeOf(r(), 10)).toBe(10);
    expect(poolSizeOf(r({ annotations: { 'router.openshift.io/pool-size': '3' } }), 10)).toBe(10);
    expect(poolSizeOf(r({ annotations: { 'router.openshift.io/pool-size': 'three' } }), 10)).toBe(0);
  });
});

describe('BlueprintPool', () => {
  it('provisions <blueprint>-<i> pool routes, finds the first free slot, resets after a reload', () => {
    const pool = new BlueprintPool(2, [r({ namespace: 'custom', name: 'bp-re', tls: { termination: 'reencrypt' } })]);
    expect(pool.poolRoutes().map((x) => `${x.namespace}/${x.name}/${x.host}`)).toEqual([
      '_hapcm_blueprint_pool/_blueprint-http-route-1/',
      '_hapcm_blueprint_pool/_blueprint-http-route-2/',
      '_hapcm_blueprint_pool/_blueprint-edge-route-1/',
      '_hapcm_blueprint_pool/_blueprint-edge-route-2/',
      '_hapcm_blueprint_pool/_blueprint-passthrough-route-1/',
      '_hapcm_blueprint_pool/_blueprint-passthrough-route-2/',
      '_hapcm_blueprint_pool/bp-re-1/',
      '_hapcm_blueprint_pool/bp-re-2/',
    ]);
    const re = pool.blueprints[3]!;
    expect(pool.findFreeSlot(re)).toBe('be_secure:_hapcm_blueprint_pool:bp-re-1');
    pool.take('be_secure:_hapcm_blueprint_pool:bp-re-1', 'n/a');
    expect(pool.findFreeSlot(re)).toBe('be_secure:_hapcm_blueprint_pool:bp-re-2');
    pool.take('be_secure:_hapcm_blueprint_pool:bp-re-2', 'n/b');
    expect(pool.findFreeSlot(re)).toBeUndefined();
    pool.reset();
    expect(pool.findFreeSlot(re)).toBe('be_secure:_hapcm_blueprint_pool:bp-re-1');
  });

  it('an upsert with an existing name replaces it in place; remove drops its pool', () => {
    const pool = new BlueprintPool(1);
    pool.upsert(r({ namespace: 'a', name: 'bp' }));
    pool.upsert(r({ namespace: 'b', name: 'bp', tls: { termination: 'edge' } }));
    expect(pool.blueprints.map((b) => `${b.route.name}:${b.route.tls?.termination ?? ''}`)).toEqual([
      '_blueprint-http-route:',
      '_blueprint-edge-route:edge',
      '_blueprint-passthrough-route:passthrough',
      'bp:edge',
    ]);
    pool.remove('bp');
    expect(pool.poolRoutes()).toHaveLength(3);
  });
});
