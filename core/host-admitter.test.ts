import { describe, expect, it } from 'vitest';
import type { ChurnEvent } from './events.ts';
import { domainForHost } from './haproxy/route-regexp.ts';
import { HostAdmitterClaims } from './host-admitter.ts';
import type { Claim } from './host-claims.ts';
import { RouteAdmission } from './route-admission.ts';
import type { Route } from './route.ts';

let order = 0;
/** A claim created at `created` ms; `age` (the first-upsert order) breaks ties, as the UID does upstream. */
const claim = (namespace: string, name: string, host: string, extra: Partial<Route> = {}, created = order): Claim => ({
  key: `${namespace}/${name}`,
  route: { namespace, name, host, service: 'web', ...extra },
  created,
  age: order++,
});
const wildcard = { wildcardPolicy: 'Subdomain' as const };
const outcome = (r: ReturnType<HostAdmitterClaims['add']>): string | string[] => ('keptOut' in r ? r.keptOut : r.displaced.map((d) => `-${d.claim.key}: ${d.why}`));

describe('HostAdmitter claims (host_admitter.go), wildcard routes allowed', () => {
  it('a host belongs to one namespace whatever the paths: the older route keeps it, a newer one is kept out', () => {
    const h = new HostAdmitterClaims(false);
    expect(outcome(h.add(claim('a', 'x', 'www.acme.test')))).toEqual([]);
    // Another namespace, another path: still the same host (UniqueHost alone would let it share).
    expect(outcome(h.add(claim('b', 'y', 'www.acme.test', { path: '/other' })))).toBe('a route in another namespace holds host www.acme.test');
    // Its own namespace on another path coexists; on the same path the older route wins, and the reason
    // names it in full (the owner is of the route's own namespace).
    expect(outcome(h.add(claim('a', 'p', 'www.acme.test', { path: '/p' })))).toEqual([]);
    expect(outcome(h.add(claim('a', 'q', 'www.acme.test', { path: '/p' })))).toBe('route a/p has host www.acme.test');
  });

  it('an older route arriving displaces the newer holders of other namespaces', () => {
    const h = new HostAdmitterClaims(false);
    h.add(claim('b', 'young', 'www.acme.test', {}, 5000));
    expect(outcome(h.add(claim('a', 'old', 'www.acme.test', {}, 1000)))).toEqual(['-b/young: a route in another namespace holds host www.acme.test']);
    // The displaced route's claim is gone: it is kept out when it comes again.
    expect(outcome(h.add(claim('b', 'young', 'www.acme.test', {}, 5000)))).toBe('a route in another namespace holds host www.acme.test');
  });

  it('a wildcard route claims its domain against other namespaces, and their hosts in it block it', () => {
    const h = new HostAdmitterClaims(false);
    h.add(claim('a', 'star', 'www.acme.test', wildcard));
    // *.acme.test is a's: an ordinary host of another namespace in that domain is kept out...
    expect(outcome(h.add(claim('b', 'host', 'api.acme.test')))).toBe('a route in another namespace holds host api.acme.test');
    // ...while one of a's own namespace coexists with the wildcard route.
    expect(outcome(h.add(claim('a', 'host', 'api.acme.test')))).toEqual([]);
    // An older host of another namespace in a domain blocks a newer wildcard route there.
    const g = new HostAdmitterClaims(false);
    g.add(claim('b', 'host', 'api.corp.test'));
    expect(outcome(g.add(claim('a', 'star', 'www.corp.test', wildcard)))).toBe('a route in another namespace holds host www.corp.test');
    // An older wildcard route displaces the newer hosts of other namespaces in its domain.
    const f = new HostAdmitterClaims(false);
    f.add(claim('b', 'host', 'api.shop.test', {}, 9000));
    expect(outcome(f.add(claim('a', 'star', 'www.shop.test', wildcard, 100)))).toEqual(['-b/host: a route in another namespace holds host api.shop.test']);
  });

  it('two wildcard routes of one namespace on one domain and path: the older keeps it', () => {
    const h = new HostAdmitterClaims(false);
    h.add(claim('a', 'one', 'x.acme.test', wildcard));
    expect(outcome(h.add(claim('a', 'two', 'y.acme.test', wildcard)))).toBe('wildcard route a/one has host *.acme.test, blocking y.acme.test');
    // On another path they coexist.
    expect(outcome(h.add(claim('a', 'three', 'z.acme.test', { ...wildcard, path: '/z' })))).toEqual([]);
  });

  it('with the namespace check disabled every namespace is treated as one', () => {
    const h = new HostAdmitterClaims(true);
    h.add(claim('a', 'x', 'www.acme.test'));
    expect(outcome(h.add(claim('b', 'y', 'www.acme.test', { path: '/other' })))).toEqual([]);
    // The same path conflicts; the full reason is given only when the owner is of the route's own namespace.
    expect(outcome(h.add(claim('c', 'z', 'www.acme.test')))).toBe('a route in another namespace holds host www.acme.test');
    expect(outcome(h.add(claim('a', 'w', 'www.acme.test')))).toBe('route a/x has host www.acme.test');
  });

  it('a route moving to another host frees the old one; a deletion frees what it claimed', () => {
    const h = new HostAdmitterClaims(false);
    const x = claim('a', 'x', 'one.acme.test');
    h.add(x);
    h.add({ ...x, route: { ...x.route, host: 'two.acme.test' } });
    expect(outcome(h.add(claim('b', 'y', 'one.acme.test')))).toEqual([]);
    h.delete('a/x');
    expect(outcome(h.add(claim('c', 'z', 'two.acme.test')))).toEqual([]);
  });
});

describe('the domain a wildcard route claims', () => {
  it('GetDomainForHost: what follows the first label', () => {
    expect([domainForHost('www.acme.test'), domainForHost('acme.test'), domainForHost('localhost')]).toEqual(['acme.test', 'test', '']);
  });
});

describe('RouteAdmission with wildcard routes allowed: HostAdmitter in front of UniqueHost', () => {
  const upsert = (r: Route, at: number): ChurnEvent => ({ at, type: 'route.upsert', route: r });
  const moves = (es: readonly ChurnEvent[]): string[] => es.map((e) => (e.type === 'route.upsert' ? `+${e.route.namespace}/${e.route.name}` : e.type === 'route.delete' ? `-${e.namespace}/${e.name}` : e.type));
  const route = (namespace: string, name: string, host: string, extra: Partial<Route> = {}): Route => ({ namespace, name, host, service: 'web', ...extra });

  it('a route kept out is not passed on at all, even as a deletion: a changed route keeps being served as it was', () => {
    const said: string[] = [];
    const a = new RouteAdmission((m) => said.push(m), { allowWildcardRoutes: true });
    expect(moves(a.admit(upsert(route('a', 'x', 'www.acme.test'), 0)))).toEqual(['+a/x']);
    expect(moves(a.admit(upsert(route('b', 'y', 'other.acme.test'), 1000)))).toEqual(['+b/y']);
    // b/y moves onto a/x's host: kept out, and the router still has b/y on other.acme.test.
    expect(moves(a.admit(upsert(route('b', 'y', 'www.acme.test'), 2000)))).toEqual([]);
    expect(said).toEqual(['route b/y not admitted: a route in another namespace holds host www.acme.test (HostAlreadyClaimed)']);
  });

  it('the routes an older one displaces are deleted before it is added, and stay out until their next event', () => {
    const a = new RouteAdmission(() => {}, { allowWildcardRoutes: true });
    a.admit(upsert(route('b', 'young', 'api.shop.test', { createdAt: 9000 }), 9000));
    // a/star, created earlier, claims *.shop.test: b/young goes first, then a/star comes in.
    expect(moves(a.admit(upsert(route('a', 'star', 'www.shop.test', { wildcardPolicy: 'Subdomain', createdAt: 100 }), 10_000)))).toEqual(['-b/young', '+a/star']);
    // a/star's deletion does not bring b/young back (upstream: only its next event or a resync does).
    expect(moves(a.admit({ at: 11_000, type: 'route.delete', namespace: 'a', name: 'star' }))).toEqual(['-a/star']);
    expect(moves(a.admit(upsert(route('b', 'young', 'api.shop.test', { createdAt: 9000 }), 12_000)))).toEqual(['+b/young']);
  });
});
