import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { ChurnEvent } from '../core/events.ts';
import type { HaproxyConfig, MapEntry } from '../core/haproxy/config-model.ts';
import { recordLineage, type ListEdit } from '../core/list-lineage.ts';
import type { Route } from '../core/route.ts';
import { emptyRouterState, type RouterState } from '../core/router-state.ts';
import { createStrategy } from '../core/strategies/index.ts';
import { Harness } from '../core/testing/harness.ts';
import { MockHaproxy } from './haproxy/mock-haproxy.ts';
import { checkInvariants } from './invariants.ts';
import { RouterSettingsSchema } from './settings.ts';

/**
 * The checker keeps a row per live route for as long as the state object lives: the route's facts, whether
 * another route claims its host and path, its service's entry and the servers expected from its endpoint
 * list (sim/invariants.ts, RouteRow). Rows are carried over when the set of routes changes. Whatever the
 * churn between two checks (routes added, changed, deleted, hosts taken and freed, a service's endpoints
 * deleted and listed again), a check of the state the router keeps must say what a check of a copy of it
 * says, whose rows are all new.
 */
const NAMES = ['a', 'b', 'c', 'd', 'e'];
const HOSTS = ['one.example.com', 'two.example.com', 'three.example.com', ''];
const SERVICES = ['s1', 's2'];

const eventArb: fc.Arbitrary<ChurnEvent> = fc.oneof(
  fc
    .record({ name: fc.constantFrom(...NAMES), host: fc.constantFrom(...HOSTS), service: fc.constantFrom(...SERVICES), edge: fc.boolean() })
    .map(({ name, host, service, edge }): ChurnEvent => {
      const route: Route = { namespace: 'ns', name, host, service, ...(edge && { tls: { termination: 'edge' } }) };
      return { at: 0, type: 'route.upsert', route };
    }),
  fc.constantFrom(...NAMES).map((name): ChurnEvent => ({ at: 0, type: 'route.delete', namespace: 'ns', name })),
  fc.record({ service: fc.constantFrom(...SERVICES), pods: fc.integer({ min: 0, max: 3 }), first: fc.integer({ min: 0, max: 2 }) }).map(
    ({ service, pods, first }): ChurnEvent => ({
      at: 0,
      type: 'endpoints.set',
      namespace: 'ns',
      service,
      endpoints: Array.from({ length: pods }, (_, i) => ({ ip: `10.1.0.${first + i}`, port: 8080, name: `${service}-${first + i}` })),
    }),
  ),
  fc.constantFrom(...SERVICES).map((service): ChurnEvent => ({ at: 0, type: 'endpoints.delete', namespace: 'ns', service })),
);

/** The same routes and endpoint lists in a new state object: the checker knows nothing of it yet. */
function copyOf(state: RouterState): RouterState {
  const copy = emptyRouterState();
  for (const [key, route] of state.routes) copy.routes.set(key, route);
  for (const [key, endpoints] of state.endpoints) copy.endpoints.set(key, endpoints);
  return copy;
}

describe('checkInvariants, with rows kept through churn', () => {
  test.prop([fc.constantFrom('reload-always', 'dcm-slots', 'dcm-add-del'), fc.array(fc.tuple(eventArb, fc.nat(3).map((n) => n === 0)), { minLength: 1, maxLength: 30 }), fc.boolean()], { numRuns: 200 })(
    'agrees with a check of a fresh copy of the state, checked after any of the changes',
    (strategy, steps, sabotage) => {
      const mock = new MockHaproxy();
      const h = new Harness(createStrategy(RouterSettingsSchema.parse({ strategy })), { load: (c) => mock.load(c), send: (command) => mock.send(command) });
      h.sync([]);
      for (const [e, check] of steps) {
        h.apply(e);
        h.settle();
        // Checks skipped now and then: several reloads' changes then lie between two checks.
        if (!check) continue;
        // Now and then a server is knocked out, so that the checks also agree on a violation.
        const names = mock.backendNames().filter((b) => (mock.backend(b)?.servers.length ?? 0) > 0);
        if (sabotage && names.length > 0) mock.execute(`set server ${names[0]}/${mock.backend(names[0]!)!.servers[0]!.name} state maint`);
        const kept = checkInvariants(h.state, mock);
        expect(kept).toEqual(checkInvariants(copyOf(h.state), mock));
        expect(kept).toEqual(checkInvariants(h.state, mock, { reuse: false }));
      }
    },
  );
});

describe('checkInvariants, a lookup carried across a reload by the map file lineage', () => {
  const route = (name: string): Route => ({ namespace: 'ns', name, host: `${name}.example.com`, service: name });
  const set = (service: string, ip: string): ChurnEvent => ({ at: 0, type: 'endpoints.set', namespace: 'ns', service, endpoints: [{ ip, port: 8080, name: `${service}-0` }] });

  /** Routes a and b served, checked once (every probe remembered), and the config HAProxy then ran. */
  function served(): { mock: MockHaproxy; state: RouterState; config: HaproxyConfig } {
    const mock = new MockHaproxy();
    let config: HaproxyConfig | undefined;
    const h = new Harness(createStrategy(RouterSettingsSchema.parse({ strategy: 'reload-always' })), {
      load: (c) => {
        config = c;
        mock.load(c);
      },
      send: (command) => mock.send(command),
    });
    h.sync([{ at: 0, type: 'route.upsert', route: route('a') }, { at: 0, type: 'route.upsert', route: route('b') }, set('a', '10.1.0.1'), set('b', '10.1.0.2')]);
    h.settle();
    expect(checkInvariants(h.state, mock)).toEqual([]);
    return { mock, state: h.state, config: config! };
  }

  /**
   * The same config with os_http_be.map's entries edited, the edits recorded as the renderer records them
   * (or not: a reader more than one reload behind has no record, and compares the lists).
   */
  function reloadWith(mock: MockHaproxy, config: HaproxyConfig, edit: (entries: MapEntry[]) => ListEdit<MapEntry>[], recorded = true): HaproxyConfig {
    const before = config.maps[HTTP_MAP]!;
    const entries = before.slice();
    const edits = edit(entries);
    if (recorded) recordLineage(entries, before, edits);
    const next = { backends: config.backends, maps: { ...config.maps, [HTTP_MAP]: entries } };
    mock.load(next);
    return next;
  }
  const HTTP_MAP = 'os_http_be.map';

  it("an entry put in before a route's own, matching its requests, takes them", () => {
    const { mock, state, config } = served();
    reloadWith(mock, config, (entries) => {
      const own = entries.find((e) => e.value === 'be_http:ns:a')!;
      const shadow = { key: own.key, value: 'be_http:ns:b' };
      entries.unshift(shadow);
      return [{ at: 0, insert: true, value: shadow }];
    });
    const v = checkInvariants(state, mock);
    expect(v).toEqual(checkInvariants(state, mock, { reuse: false }));
    // a's requests now go to b's backend, which serves b's endpoint.
    expect(v.some((s) => s.startsWith('ns/a via http://a.example.com/: backend be_http:ns:b serves'))).toBe(true);
  });

  it('the same, without a record of the edits', () => {
    const { mock, state, config } = served();
    reloadWith(
      mock,
      config,
      (entries) => {
        entries.unshift({ key: entries.find((e) => e.value === 'be_http:ns:a')!.key, value: 'be_http:ns:b' });
        return [];
      },
      false,
    );
    const v = checkInvariants(state, mock);
    expect(v).toEqual(checkInvariants(state, mock, { reuse: false }));
    expect(v.some((s) => s.startsWith('ns/a via http://a.example.com/: backend be_http:ns:b serves'))).toBe(true);
  });

  it('entries moved without a record: a second entry for the route, once after its own, now before it', () => {
    const { mock, state, config } = served();
    // First a copy of a's key to b's backend after a's own entry: a's lookups still find their own first.
    const second = reloadWith(mock, config, (entries) => {
      const at = entries.findIndex((e) => e.value === 'be_http:ns:a');
      entries.splice(at + 1, 0, { key: entries[at]!.key, value: 'be_http:ns:b' });
      return [{ at: at + 1, insert: true, value: entries[at + 1]! }];
    });
    expect(checkInvariants(state, mock)).toEqual([]);
    // Then the same two entries swapped, nothing new: a's lookups find b's backend.
    reloadWith(
      mock,
      second,
      (entries) => {
        const at = entries.findIndex((e) => e.value === 'be_http:ns:a');
        [entries[at], entries[at + 1]] = [entries[at + 1]!, entries[at]!];
        return [];
      },
      false,
    );
    const v = checkInvariants(state, mock);
    expect(v).toEqual(checkInvariants(state, mock, { reuse: false }));
    expect(v.some((s) => s.startsWith('ns/a via http://a.example.com/: backend be_http:ns:b serves'))).toBe(true);
  });

  it("a route's own entry taken out leaves its requests without a backend", () => {
    const { mock, state, config } = served();
    reloadWith(mock, config, (entries) => {
      const at = entries.findIndex((e) => e.value === 'be_http:ns:a');
      const [own] = entries.splice(at, 1);
      return [{ at, insert: false, value: own! }];
    });
    const v = checkInvariants(state, mock);
    expect(v).toEqual(checkInvariants(state, mock, { reuse: false }));
    expect(v).toContain('ns/a via http://a.example.com/: no-match');
  });

  it("a route's own entry taken out without a record of the edits", () => {
    const { mock, state, config } = served();
    reloadWith(
      mock,
      config,
      (entries) => {
        entries.splice(
          entries.findIndex((e) => e.value === 'be_http:ns:a'),
          1,
        );
        return [];
      },
      false,
    );
    const v = checkInvariants(state, mock);
    expect(v).toEqual(checkInvariants(state, mock, { reuse: false }));
    expect(v).toContain('ns/a via http://a.example.com/: no-match');
  });

  it('an entry put in for a host no route has is reported, though every lookup holds', () => {
    const { mock, state, config } = served();
    reloadWith(mock, config, (entries) => {
      const stray = { key: '^c\\.example\\.com(:[0-9]+)?(/.*)?$', value: 'be_http:ns:b' };
      entries.unshift(stray);
      return [{ at: 0, insert: true, value: stray }];
    });
    const v = checkInvariants(state, mock);
    expect(v).toEqual([`${HTTP_MAP}: entry ^c\\.example\\.com(:[0-9]+)?(/.*)?$ → be_http:ns:b belongs to no live route`]);
    expect(checkInvariants(state, mock, { reuse: false })).toEqual(v);
  });

  it("an entry put in that matches none of a route's requests leaves its lookup as it was", () => {
    const { mock, state, config } = served();
    reloadWith(mock, config, (entries) => {
      // A second copy of b's entry, first in the file: a's lookups miss it, b's find it first, to b's backend.
      const copy = { ...entries.find((e) => e.value === 'be_http:ns:b')! };
      entries.unshift(copy);
      return [{ at: 0, insert: true, value: copy }];
    });
    expect(checkInvariants(state, mock)).toEqual([]);
    expect(checkInvariants(state, mock, { reuse: false })).toEqual([]);
  });
});
