import { describe, expect, it } from 'vitest';
import type { Route } from './route.ts';
import { applyChurn, emptyRouterState } from './router-state.ts';

const base: Route = { namespace: 'shop', name: 'r', host: 'r.example.com', service: 's' };
const upsert = (route: Route) => ({ at: 0, type: 'route.upsert' as const, route });

/** The change an update makes after `first`: null when router.go's AddRoute would skip it (configsAreEqual). */
function after(first: Route, second: Route): string | null {
  const state = emptyRouterState();
  applyChurn(state, upsert(first));
  return applyChurn(state, upsert(second))?.kind ?? null;
}

describe('a route update as router.go compares it (configsAreEqual)', () => {
  it('a target port compares as text: 8080 and "8080" are the same PreferPort', () => {
    expect(after({ ...base, targetPort: 8080 }, { ...base, targetPort: '8080' })).toBeNull();
    expect(after({ ...base, targetPort: 8080 }, { ...base, targetPort: 'http' })).toBe('route.modified');
  });

  it('wildcardPolicy None is no policy; Subdomain is another route', () => {
    expect(after(base, { ...base, wildcardPolicy: 'None' })).toBeNull();
    expect(after(base, { ...base, wildcardPolicy: 'Subdomain' })).toBe('route.modified');
  });

  it('a passthrough route keeps no certificates, so changing them changes nothing; an edge route\'s do', () => {
    const pass: Route = { ...base, tls: { termination: 'passthrough' } };
    expect(after(pass, { ...pass, tls: { termination: 'passthrough', certificate: 'C', key: 'K' } })).toBeNull();
    expect(after(pass, { ...pass, tls: { termination: 'passthrough', insecureEdgeTerminationPolicy: 'Redirect' } })).toBe('route.modified');
    const edge: Route = { ...base, tls: { termination: 'edge' } };
    expect(after(edge, { ...edge, tls: { termination: 'edge', certificate: 'C', key: 'K' } })).toBe('route.modified');
  });

  it('the creation time is no part of the config: a route that only gains one is not changed', () => {
    expect(after(base, { ...base, createdAt: -5000 })).toBeNull();
    expect(after({ ...base, createdAt: 0 }, { ...base, createdAt: 7 })).toBeNull();
  });

  it('the state keeps the route it had when an update is skipped', () => {
    const state = emptyRouterState();
    const first = { ...base, targetPort: 8080 };
    applyChurn(state, upsert(first));
    applyChurn(state, upsert({ ...base, targetPort: '8080' }));
    expect(state.routes.get('shop/r')).toBe(first);
  });
});
