import { describe, expect, it } from 'vitest';
import type { ChurnEvent } from './events.ts';
import { RouteAdmission } from './route-admission.ts';
import type { Route } from './route.ts';

const route = (extra: Partial<Route> = {}): Route => ({ namespace: 'shop', name: 'w', host: 'w.example.com', service: 'web', ...extra });
const upsert = (r: Route): ChurnEvent => ({ at: 5, type: 'route.upsert', route: r });

describe('RouteAdmission', () => {
  it('passes every route when wildcards are allowed, and non-wildcard routes always', () => {
    const said: string[] = [];
    const e = upsert(route({ wildcardPolicy: 'Subdomain' }));
    expect(new RouteAdmission(true, (m) => said.push(m)).admit(e)).toBe(e);
    const plain = upsert(route({ wildcardPolicy: 'None' }));
    expect(new RouteAdmission(false, (m) => said.push(m)).admit(plain)).toBe(plain);
    expect(said).toEqual([]);
  });

  it('turns a rejected wildcard route into its deletion, reported once per route', () => {
    const said: string[] = [];
    const admission = new RouteAdmission(false, (m) => said.push(m));
    const wildcard = upsert(route({ wildcardPolicy: 'Subdomain' }));
    expect(admission.admit(wildcard)).toEqual({ at: 5, type: 'route.delete', namespace: 'shop', name: 'w' });
    admission.admit(wildcard);
    expect(said).toEqual(['route shop/w not admitted: wildcard routes are not allowed (ROUTER_ALLOW_WILDCARD_ROUTES / router.allowWildcardRoutes)']);
  });

  it('without the blueprint plugin a blueprint event is the route event it carries, admitted as routes are', () => {
    const bp = route({ namespace: 'bp', name: 'b' });
    const none = new RouteAdmission(false, () => {}, false);
    expect(none.admit({ at: 5, type: 'blueprint.upsert', route: bp })).toEqual({ at: 5, type: 'route.upsert', route: bp });
    expect(none.admit({ at: 6, type: 'blueprint.delete', namespace: 'bp', name: 'b' })).toEqual({ at: 6, type: 'route.delete', namespace: 'bp', name: 'b' });
    // A wildcard one is then rejected like any route.
    expect(none.admit({ at: 7, type: 'blueprint.upsert', route: { ...bp, wildcardPolicy: 'Subdomain' } }).type).toBe('route.delete');
    // With the plugin (a config manager), a blueprint event stays one.
    const e: ChurnEvent = { at: 5, type: 'blueprint.upsert', route: bp };
    expect(new RouteAdmission(false, () => {}, true).admit(e)).toBe(e);
  });
});
