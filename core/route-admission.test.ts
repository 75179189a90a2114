import { describe, expect, it } from 'vitest';
import type { ChurnEvent } from './events.ts';
import { hostInDomainList, RouteAdmission } from './route-admission.ts';
import type { Route } from './route.ts';

const route = (extra: Partial<Route> = {}): Route => ({ namespace: 'shop', name: 'w', host: 'w.example.com', service: 'web', ...extra });
const upsert = (r: Route, at = 5): ChurnEvent => ({ at, type: 'route.upsert', route: r });
const del = (namespace: string, name: string, at = 5): ChurnEvent => ({ at, type: 'route.delete', namespace, name });
/** What each admitted change does, as `+ns/name` (added or changed) or `-ns/name` (deleted). */
const moves = (es: readonly ChurnEvent[]): string[] =>
  es.map((e) => (e.type === 'route.upsert' ? `+${e.route.namespace}/${e.route.name}` : e.type === 'route.delete' ? `-${e.namespace}/${e.name}` : e.type));

describe('RouteAdmission: wildcards and blueprints', () => {
  it('passes every route when wildcards are allowed, and non-wildcard routes always', () => {
    const said: string[] = [];
    const e = upsert(route({ wildcardPolicy: 'Subdomain' }));
    expect(new RouteAdmission((m) => said.push(m), { allowWildcardRoutes: true }).admit(e)).toEqual([e]);
    const plain = upsert(route({ wildcardPolicy: 'None' }));
    expect(new RouteAdmission((m) => said.push(m)).admit(plain)).toEqual([plain]);
    expect(said).toEqual([]);
  });

  it('turns a rejected wildcard route into its deletion, reported once per route', () => {
    const said: string[] = [];
    const admission = new RouteAdmission((m) => said.push(m));
    const wildcard = upsert(route({ wildcardPolicy: 'Subdomain' }));
    expect(admission.admit(wildcard)).toEqual([del('shop', 'w')]);
    admission.admit(wildcard);
    expect(said).toEqual(['route shop/w not admitted: wildcard routes are not allowed (ROUTER_ALLOW_WILDCARD_ROUTES / router.allowWildcardRoutes)']);
    // Deleted and created again, it is a new route: its rejection is said again (and nothing is kept of it).
    admission.admit(del('shop', 'w'));
    admission.admit(wildcard);
    expect(said).toHaveLength(2);
  });

  it('without the blueprint plugin a blueprint event is the route event it carries, admitted as routes are', () => {
    const bp = route({ namespace: 'bp', name: 'b' });
    const none = new RouteAdmission(() => {}, { blueprintPlugin: false });
    expect(none.admit({ at: 5, type: 'blueprint.upsert', route: bp })).toEqual([upsert(bp)]);
    expect(none.admit({ at: 6, type: 'blueprint.delete', namespace: 'bp', name: 'b' })).toEqual([del('bp', 'b', 6)]);
    // A wildcard one is then rejected like any route.
    expect(moves(none.admit({ at: 7, type: 'blueprint.upsert', route: { ...bp, wildcardPolicy: 'Subdomain' } }))).toEqual(['-bp/b']);
    // With the plugin (a config manager), a blueprint event stays one.
    const e: ChurnEvent = { at: 5, type: 'blueprint.upsert', route: bp };
    expect(new RouteAdmission(() => {}, { blueprintPlugin: true }).admit(e)).toEqual([e]);
  });

  it('a wildcard route that held its host lets the waiting route in as it goes', () => {
    const a = new RouteAdmission(() => {});
    a.admit(upsert(route({ namespace: 'a', name: 'old', host: 'h.example.com' })));
    expect(moves(a.admit(upsert(route({ namespace: 'b', name: 'new', host: 'h.example.com' }))))).toEqual([]);
    // HostAdmitter hands the now-wildcard route to UniqueHost as deleted: the host goes to b/new.
    expect(moves(a.admit(upsert(route({ namespace: 'a', name: 'old', host: 'h.example.com', wildcardPolicy: 'Subdomain' }))))).toEqual(['+b/new', '-a/old']);
  });

  it('a route turned wildcard on another host leaves its claim behind, holding the host for good (as upstream)', () => {
    const a = new RouteAdmission(() => {});
    a.admit(upsert(route({ namespace: 'a', name: 'x', host: 'one.example.com' })));
    expect(moves(a.admit(upsert(route({ namespace: 'b', name: 'y', host: 'one.example.com' }))))).toEqual([]);
    // HostAdmitter hands UniqueHost a Deleted for the route as it now is, on two.example.com, where the index
    // has no claim of it: its claim on one.example.com stays, and so does every route waiting there.
    expect(moves(a.admit(upsert(route({ namespace: 'a', name: 'x', host: 'two.example.com', wildcardPolicy: 'Subdomain' }))))).toEqual(['-a/x']);
    expect(moves(a.admit(del('a', 'x')))).toEqual(['-a/x']);
    expect(moves(a.admit(upsert(route({ namespace: 'c', name: 'z', host: 'one.example.com' }))))).toEqual([]);
  });
});

describe('RouteAdmission: allowed and denied domains (router.go AdmissionCheck)', () => {
  it('finds a host in a domain list by itself or any suffix after a dot', () => {
    expect(hostInDomainList('a.b.example.com', ['example.com'])).toBe(true);
    expect(hostInDomainList('example.com', ['example.com'])).toBe(true);
    expect(hostInDomainList('a.b.example.com', ['b.example.com'])).toBe(true);
    // Suffixes are whole labels: notexample.com is not under example.com.
    expect(hostInDomainList('notexample.com', ['example.com'])).toBe(false);
    expect(hostInDomainList('a.example.com', ['com.example'])).toBe(false);
    // The walk stops at a leading dot, as router.go's `idx > 0` does.
    expect(hostInDomainList('.example.com', ['example.com'])).toBe(false);
  });

  it('rejects a denied host first, then one outside the allowed domains, then a wildcard route; as deleted, once said', () => {
    const said: string[] = [];
    const a = new RouteAdmission((m) => said.push(m), { deniedDomains: ['bad.example.com'], allowedDomains: ['example.com'] });
    // Denied wins over allowed (bad.example.com is also under example.com).
    expect(moves(a.admit(upsert(route({ name: 'x', host: 'x.bad.example.com' }))))).toEqual(['-shop/x']);
    expect(moves(a.admit(upsert(route({ name: 'y', host: 'y.other.org' }))))).toEqual(['-shop/y']);
    expect(moves(a.admit(upsert(route({ name: 'z', host: 'z.example.com' }))))).toEqual(['+shop/z']);
    expect(moves(a.admit(upsert(route({ name: 'w', host: 'w.example.com', wildcardPolicy: 'Subdomain' }))))).toEqual(['-shop/w']);
    expect(said).toEqual([
      'route shop/x not admitted: host in list of denied domains (ROUTER_DENIED_DOMAINS / router.deniedDomains)',
      'route shop/y not admitted: host not in the allowed list of domains (ROUTER_ALLOWED_DOMAINS / router.allowedDomains)',
      'route shop/w not admitted: wildcard routes are not allowed (ROUTER_ALLOW_WILDCARD_ROUTES / router.allowWildcardRoutes)',
    ]);
  });

  it('admits every host when no allowed domain is given', () => {
    const a = new RouteAdmission(() => {}, { deniedDomains: [], allowedDomains: [] });
    expect(moves(a.admit(upsert(route({ name: 'y', host: 'y.other.org' }))))).toEqual(['+shop/y']);
  });
});

describe('RouteAdmission: one host, one owner (UniqueHost, hostindex)', () => {
  it('a newer route of another namespace waits, and is let in when the owner goes', () => {
    const said: string[] = [];
    const a = new RouteAdmission((m) => said.push(m));
    expect(moves(a.admit(upsert(route({ namespace: 'a', name: 'old', host: 'h.example.com' }))))).toEqual(['+a/old']);
    // A new route that is not admitted is not passed on at all (no Deleted for a route the router never had).
    expect(moves(a.admit(upsert(route({ namespace: 'b', name: 'new', host: 'h.example.com', path: '/other' }))))).toEqual([]);
    expect(said).toEqual(['route b/new not admitted: a route in another namespace holds h.example.com and is older than new (HostAlreadyClaimed)']);
    // Changed while waiting, same path: the index replaces it in place, still waiting, nothing passed on.
    expect(moves(a.admit(upsert(route({ namespace: 'b', name: 'new', host: 'h.example.com', path: '/other', service: 'api' }))))).toEqual([]);
    // Another path: taken out and weighed again as a known route (newRoute false), so its rejection is passed
    // on as a deletion, which changes nothing in a router that never had it.
    expect(moves(a.admit(upsert(route({ namespace: 'b', name: 'new', host: 'h.example.com', path: '/again' }))))).toEqual(['-b/new']);
    // The owner's deletion: the waiting route is added first, then the owner deleted (one input, one commit).
    expect(moves(a.admit(del('a', 'old')))).toEqual(['+b/new', '-a/old']);
  });

  it('routes of the owner namespace share the host on other paths; one path has one route', () => {
    const a = new RouteAdmission(() => {});
    a.admit(upsert(route({ name: 'root', host: 'h.example.com' })));
    expect(moves(a.admit(upsert(route({ name: 'api', host: 'h.example.com', path: '/api' }))))).toEqual(['+shop/api']);
    expect(moves(a.admit(upsert(route({ name: 'api2', host: 'h.example.com', path: '/api' }))))).toEqual([]);
    // The path's holder goes: the next oldest route of that path takes it.
    expect(moves(a.admit(del('shop', 'api')))).toEqual(['+shop/api2', '-shop/api']);
  });

  it('a passthrough route shares its host with no other TLS route, whatever the paths', () => {
    const a = new RouteAdmission(() => {});
    a.admit(upsert(route({ name: 'sni', host: 'h.example.com', tls: { termination: 'passthrough' } })));
    expect(moves(a.admit(upsert(route({ name: 'edge', host: 'h.example.com', path: '/x', tls: { termination: 'edge' } }))))).toEqual([]);
    // Plain HTTP on another path does not conflict (only TLS on both does).
    expect(moves(a.admit(upsert(route({ name: 'plain', host: 'h.example.com', path: '/y' }))))).toEqual(['+shop/plain']);
  });

  it('with the ownership check disabled any namespace shares the host on another path, oldest first per path', () => {
    const a = new RouteAdmission(() => {}, { activation: 'oldest-first' });
    a.admit(upsert(route({ namespace: 'a', name: 'root', host: 'h.example.com' })));
    expect(moves(a.admit(upsert(route({ namespace: 'b', name: 'api', host: 'h.example.com', path: '/api' }))))).toEqual(['+b/api']);
    expect(moves(a.admit(upsert(route({ namespace: 'c', name: 'root2', host: 'h.example.com' }))))).toEqual([]);
  });

  it('age is the creation time when the route carries one, the first upsert otherwise; ties go by first upsert', () => {
    // RouteLessThan: creationTimestamp first. b/early arrives second but was created before a/late: it
    // takes the host, and a/late, of another namespace, is pushed out ("replaced by older route").
    const said: string[] = [];
    const a = new RouteAdmission((m) => said.push(m));
    expect(moves(a.admit(upsert(route({ namespace: 'a', name: 'late', host: 'h.example.com', createdAt: 2000 }), 5000)))).toEqual(['+a/late']);
    expect(moves(a.admit(upsert(route({ namespace: 'b', name: 'early', host: 'h.example.com', createdAt: -60_000 }), 6000)))).toEqual(['+b/early', '-a/late']);
    // unique_host.go's wording for a route pushed out by an older one.
    expect(said).toEqual(['route a/late not admitted: replaced by older route early (HostAlreadyClaimed)']);
    // Without createdAt a route counts as created at its first upsert: c/plain at 7000 is younger than both.
    expect(moves(a.admit(upsert(route({ namespace: 'c', name: 'plain', host: 'h.example.com' }), 7000)))).toEqual([]);
    // Equal creation times (whole seconds upstream, where the UID breaks the tie): the first upserted is older.
    const t = new RouteAdmission(() => {});
    t.admit(upsert(route({ namespace: 'a', name: 'one', host: 't.example.com', createdAt: 1000 }), 5000));
    expect(moves(t.admit(upsert(route({ namespace: 'b', name: 'two', host: 't.example.com', createdAt: 1000 }), 5000)))).toEqual([]);
  });

  it('an older route moving onto a host displaces the younger holder and frees its own', () => {
    const said: string[] = [];
    const a = new RouteAdmission((m) => said.push(m));
    a.admit(upsert(route({ namespace: 'a', name: 'old', host: 'one.example.com' })));
    a.admit(upsert(route({ namespace: 'c', name: 'waiting', host: 'one.example.com' })));
    a.admit(upsert(route({ namespace: 'b', name: 'young', host: 'two.example.com' })));
    // a/old keeps its age (creation order) under the new host, so it takes two.example.com from b/young;
    // leaving one.example.com lets c/waiting in there.
    expect(moves(a.admit(upsert(route({ namespace: 'a', name: 'old', host: 'two.example.com' }))))).toEqual(['+a/old', '+c/waiting', '-b/young']);
    expect(said.at(-1)).toBe('route b/young not admitted: replaced by older route old (HostAlreadyClaimed)');
  });

  it('the owner going hands the host to the oldest route left, whose namespace pushes the others out', () => {
    const said: string[] = [];
    const a = new RouteAdmission((m) => said.push(m));
    a.admit(upsert(route({ namespace: 'a', name: 'root', host: 'h.example.com' })));
    // Ages by first upsert: a/root 0, b/x 1 (waits: another namespace), a/api 2 (shares: a/root's namespace).
    a.admit(upsert(route({ namespace: 'b', name: 'x', host: 'h.example.com', path: '/x' })));
    expect(moves(a.admit(upsert(route({ namespace: 'a', name: 'api', host: 'h.example.com', path: '/api' }))))).toEqual(['+a/api']);
    // a/root goes: b/x is older than a/api, so the host goes to namespace b, and a/api is pushed out.
    said.length = 0;
    expect(moves(a.admit(del('a', 'root')))).toEqual(['+b/x', '-a/api', '-a/root']);
    expect(said).toEqual(['route a/api not admitted: namespace b owns hostname h.example.com (HostAlreadyClaimed)']);
  });

  it('a route deleted and upserted again is a new route, younger than those there', () => {
    const a = new RouteAdmission(() => {});
    a.admit(upsert(route({ namespace: 'a', name: 'r', host: 'h.example.com' })));
    a.admit(upsert(route({ namespace: 'b', name: 's', host: 'h.example.com' })));
    expect(moves(a.admit(del('a', 'r')))).toEqual(['+b/s', '-a/r']);
    expect(moves(a.admit(upsert(route({ namespace: 'a', name: 'r', host: 'h.example.com' }))))).toEqual([]);
  });

  it('endpoint events pass as they are', () => {
    const e: ChurnEvent = { at: 1, type: 'endpoints.delete', namespace: 'shop', service: 'web' };
    expect(new RouteAdmission(() => {}).admit(e)).toEqual([e]);
  });
});
