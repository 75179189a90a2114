import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { ChurnEvent } from '../events.ts';
import type { Route } from '../route.ts';
import { lineageOf } from '../list-lineage.ts';
import { applyChurn, emptyRouterState } from '../router-state.ts';
import { ConfigRenderer, renderRouterConfig } from './config-renderer.ts';
import type { HaproxyConfig } from './config-model.ts';
import type { RenderOptions } from './render.ts';

/** Plain data, with the server lists and cookies (computed on read) spelled out so equality sees them. */
function plain(config: HaproxyConfig): unknown {
  return {
    maps: Object.fromEntries(Object.entries(config.maps).map(([file, entries]) => [file, entries.map((e) => ({ ...e }))])),
    backends: config.backends.map((b) => ({ ...b, servers: b.servers.map((s) => ({ ...s, cookie: s.cookie })) })),
  };
}

const names = ['a', 'b', 'c', 'd'];
const services = ['s0', 's1'];

const routeArbOf = (names: readonly string[]): fc.Arbitrary<Route> => fc
  .record({
    ns: fc.constantFrom('n1', 'n2'),
    name: fc.constantFrom(...names),
    service: fc.constantFrom(...services),
    termination: fc.constantFrom(undefined, 'edge', 'passthrough', 'reencrypt'),
    path: fc.constantFrom(undefined, '/x'),
  })
  .map(({ ns, name, service, termination, path }) => ({
    namespace: ns,
    name,
    host: `${name}.example.com`,
    service,
    ...(path !== undefined && { path }),
    ...(termination !== undefined && { tls: { termination } }),
  }));

const eventArbOf = (names: readonly string[]): fc.Arbitrary<ChurnEvent> => fc.oneof(
  routeArbOf(names).map((route) => ({ at: 0, type: 'route.upsert' as const, route })),
  fc.record({ ns: fc.constantFrom('n1', 'n2'), name: fc.constantFrom(...names) }).map(({ ns, name }) => ({ at: 0, type: 'route.delete' as const, namespace: ns, name })),
  fc
    .record({ ns: fc.constantFrom('n1', 'n2'), service: fc.constantFrom(...services), members: fc.subarray([1, 2, 3, 4]), notReady: fc.subarray([1, 2, 3, 4]) })
    .map(({ ns, service, members, notReady }) => ({
      at: 0,
      type: 'endpoints.set' as const,
      namespace: ns,
      service,
      endpoints: members.map((i) => ({ ip: `10.0.0.${i}`, port: 8080, name: `${service}-${i}`, ...(notReady.includes(i) && { ready: false }) })),
    })),
  fc.record({ ns: fc.constantFrom('n1', 'n2'), service: fc.constantFrom(...services) }).map(({ ns, service }) => ({ at: 0, type: 'endpoints.delete' as const, namespace: ns, service })),
);
const eventArb = eventArbOf(names);
/** Enough route names that bursts of route changes move a row many places between two renders of its service. */
const manyNames = Array.from({ length: 48 }, (_, i) => `r${String(i).padStart(2, '0')}`);

const pools: Route[][] = [
  [],
  [{ namespace: '_hapcm_blueprint_pool', name: '_blueprint-http-route-1', host: '', service: '_hapcm_blueprint_pool.svc' }],
];

const optionsArb: fc.Arbitrary<RenderOptions> = fc.constantFrom<RenderOptions>(
  { maxDynamicServers: 0, manager: 'none' },
  { maxDynamicServers: 2, manager: 'slots' },
  { maxDynamicServers: 0, manager: 'add-del', allowWildcardRoutes: true },
);

/** The renderer's every-service threshold: from switching at the first note to never within a test. */
const allDirtyMinArb = fc.constantFrom(0, 1, 3, 4096);
/**
 * The renderer's paths, each taken often: the every-service threshold as above; the rows rendered again put in
 * place one by one (refindCost 0) or the list read from every row (1000); a short edit log (1, 2), so that
 * rows are found by their sort key, or the default.
 */
const tuningArb = fc.record({ allDirtyMin: allDirtyMinArb, refindCost: fc.constantFrom(0, 1, 1000), editLogMax: fc.constantFrom(1, 2, 4096) });

function emptyRouterStateWith(namespace: string, name: string) {
  const state = emptyRouterState();
  applyChurn(state, { at: 0, type: 'route.upsert', route: { namespace, name, host: `${name}.example.com`, service: 's0' } });
  return state;
}

/**
 * Every config after the first says how its lists were made from the last config's (core/list-lineage.ts):
 * the backend list's edits, applied to the last one's names, give its names; each map file's list that
 * changed, made from the last config's, is that list with its edits applied.
 */
function expectLineage(config: HaproxyConfig, previous: HaproxyConfig | undefined): void {
  const lineage = lineageOf(config.backends);
  expect(lineage !== undefined).toBe(previous !== undefined);
  if (lineage !== undefined) {
    expect(lineage.from).toBe(previous!.backends);
    const names = lineage.from.map((b) => b.name);
    for (const e of lineage.edits) {
      if (e.insert) names.splice(e.at, 0, e.value.name);
      else expect(names.splice(e.at, 1)).toEqual([e.value.name]);
    }
    expect(names).toEqual(config.backends.map((b) => b.name));
  }
  for (const [file, entries] of Object.entries(config.maps)) {
    // An unchanged file's list is the last config's own, with the lineage it was made with.
    const made = entries === previous?.maps[file] ? undefined : lineageOf(entries);
    if (made === undefined) continue;
    expect(made.from).toBe(previous!.maps[file]);
    const list = made.from.slice();
    for (const e of made.edits) {
      if (e.insert) list.splice(e.at, 0, e.value);
      else expect(list.splice(e.at, 1)).toEqual([e.value]);
    }
    expect(list).toEqual(entries);
  }
}

describe('ConfigRenderer', () => {
  // Steps are (event, render now?, which pool): renders come at random points, as reloads do under churn.
  // The renderer's tuning is changed at random (tuningArb), so that renders after a list of noted services and
  // renders after the switch to every service are both compared, and each way of finding a row's place.
  test.prop(
    [optionsArb, fc.array(fc.tuple(eventArb, fc.boolean(), fc.integer({ min: 0, max: 1 })), { maxLength: 40 }), tuningArb],
    { numRuns: 300 },
  )(
    'renders after any churn exactly what a fresh full render of the same state gives',
    (opts, steps, tuning) => {
      const state = emptyRouterState();
      const renderer = new ConfigRenderer(opts, false, tuning);
      // Every config handed out stays as it was rendered, whatever the renderer does after.
      const handedOut: [HaproxyConfig, unknown][] = [];
      for (const [event, renderNow, pool] of steps) {
        const change = applyChurn(state, event);
        if (change !== null) renderer.note(change);
        if (!renderNow) continue;
        const incremental = renderer.render(state, pools[pool]);
        expect(plain(incremental)).toEqual(plain(renderRouterConfig(state, { ...opts, extraBackends: pools[pool]! })));
        expectLineage(incremental, handedOut.at(-1)?.[0]);
        for (const r of state.routes.values()) expect(renderer.renderedRoute(`${r.namespace}/${r.name}`)).toBe(r);
        handedOut.push([incremental, plain(incremental)]);
      }
      for (const [config, asRendered] of handedOut) expect(plain(config)).toEqual(asRendered);
      // With every edit kept, each row's place follows from its last one: none is searched for.
      if (tuning.editLogMax > 40) expect(renderer.searched).toBe(0);
    },
  );

  // Deferred (reload-always): renders at random points, each config read at a random later point while a
  // reader may still have it (before the second render after it), or never.
  test.prop(
    [
      optionsArb,
      fc.array(fc.tuple(eventArb, fc.constantFrom('none', 'render', 'read newest', 'read previous'), fc.integer({ min: 0, max: 1 })), { maxLength: 60 }),
      tuningArb,
    ],
    { numRuns: 300 },
  )('deferred: a config read while it may be is what a fresh full render of the state it was asked for gives; later, reading it throws', (opts, steps, tuning) => {
    const state = emptyRouterState();
    const renderer = new ConfigRenderer(opts, true, tuning);
    // What each config is: waiting to render, rendered (read, or rendered first because a later one was),
    // or dead (a second config was asked for after it, before it was rendered).
    const asked: { config: HaproxyConfig; expected: unknown; is: 'waiting' | 'rendered' | 'dead' }[] = [];
    const read = (i: number): void => {
      const a = asked[i];
      if (a === undefined || a.is === 'dead') return;
      expect(plain(a.config)).toEqual(a.expected);
      for (const older of asked.slice(0, i + 1)) if (older.is === 'waiting') older.is = 'rendered';
    };
    for (const [event, action, pool] of steps) {
      const change = applyChurn(state, event);
      if (change !== null) renderer.note(change);
      if (action === 'render') {
        const config = renderer.render(state, pools[pool]);
        asked.slice(0, -1).forEach((older) => older.is === 'waiting' && (older.is = 'dead'));
        // The first render is whole and at once.
        asked.push({ config, expected: plain(renderRouterConfig(state, { ...opts, extraBackends: pools[pool]! })), is: asked.length === 0 ? 'rendered' : 'waiting' });
      } else if (action === 'read newest') read(asked.length - 1);
      else if (action === 'read previous') read(asked.length - 2);
    }
    for (const a of asked) {
      if (a.is === 'dead') expect(() => a.config.backends).toThrow(/could no longer be rendered/);
      else expect(plain(a.config)).toEqual(a.expected);
    }
  });

  it('deferred: a config waiting on one state dies when another state is rendered whole', () => {
    const renderer = new ConfigRenderer({ maxDynamicServers: 0 }, true);
    const one = emptyRouterStateWith('n', 'a');
    renderer.render(one);
    const waiting = renderer.render(one);
    renderer.render(emptyRouterStateWith('n', 'z'));
    expect(() => waiting.backends).toThrow(/could no longer be rendered/);
  });

  it('deferred: JSON of a config reads it as a plain config', () => {
    const state = emptyRouterState();
    const renderer = new ConfigRenderer({ maxDynamicServers: 0 }, true);
    renderer.render(state);
    const change = applyChurn(state, { at: 1, type: 'route.upsert', route: { namespace: 'n', name: 'a', host: 'a.example.com', service: 's0' } });
    renderer.note(change!);
    const config = renderer.render(state);
    renderer.note(applyChurn(state, { at: 2, type: 'route.delete', namespace: 'n', name: 'a' })!);
    // Read after the route went: the config is still of the state it was asked for.
    const expected = renderRouterConfig(emptyRouterStateWith('n', 'a'), { maxDynamicServers: 0 });
    expect(JSON.parse(JSON.stringify(config))).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  // Bursts of route changes move rows far from where they were last seen; renders come after some of them.
  test.prop([optionsArb, fc.array(fc.tuple(fc.array(eventArbOf(manyNames), { minLength: 1, maxLength: 48 }), fc.integer({ min: 0, max: 1 })), { maxLength: 12 })], { numRuns: 100 })(
    'renders what a fresh full render gives when many rows moved between renders',
    (opts, bursts) => {
      const state = emptyRouterState();
      const renderer = new ConfigRenderer(opts);
      const handedOut: [HaproxyConfig, unknown][] = [];
      for (const [events, pool] of bursts) {
        for (const event of events) {
          const change = applyChurn(state, event);
          if (change !== null) renderer.note(change);
        }
        const incremental = renderer.render(state, pools[pool]);
        expect(plain(incremental)).toEqual(plain(renderRouterConfig(state, { ...opts, extraBackends: pools[pool]! })));
        expectLineage(incremental, handedOut.at(-1)?.[0]);
        handedOut.push([incremental, plain(incremental)]);
      }
      for (const [config, asRendered] of handedOut) expect(plain(config)).toEqual(asRendered);
    },
  );

  it('re-renders a service whose row moved 40 places since its last render', () => {
    const state = emptyRouterState();
    const renderer = new ConfigRenderer({ maxDynamicServers: 0 });
    const note = (e: ChurnEvent) => {
      const change = applyChurn(state, e);
      if (change !== null) renderer.note(change);
    };
    note({ at: 0, type: 'route.upsert', route: { namespace: 'n', name: 'z', host: 'z.example.com', service: 's-z' } });
    renderer.render(state);
    // 40 routes sorting before `n:z` move its row 40 places.
    for (let i = 0; i < 40; i++) note({ at: 1, type: 'route.upsert', route: { namespace: 'n', name: `a${i}`, host: `a${i}.example.com`, service: 's-a' } });
    renderer.render(state);
    note({ at: 2, type: 'endpoints.set', namespace: 'n', service: 's-z', endpoints: [{ ip: '10.0.0.9', port: 80 }] });
    const config = renderer.render(state);
    expect(plain(config)).toEqual(plain(renderRouterConfig(state, { maxDynamicServers: 0 })));
    expect(config.backends[40]!.servers.map((s) => s.address)).toEqual(['10.0.0.9']);
  });

  it('reuses unchanged backends and maps, and re-renders only the service whose endpoints changed', () => {
    const state = emptyRouterState();
    const renderer = new ConfigRenderer({ maxDynamicServers: 0 });
    const events: ChurnEvent[] = [
      { at: 0, type: 'route.upsert', route: { namespace: 'n', name: 'a', host: 'a.example.com', service: 's0' } },
      { at: 0, type: 'route.upsert', route: { namespace: 'n', name: 'b', host: 'b.example.com', service: 's1' } },
    ];
    for (const e of events) applyChurn(state, e);
    const first = renderer.render(state);
    const change = applyChurn(state, { at: 1, type: 'endpoints.set', namespace: 'n', service: 's1', endpoints: [{ ip: '10.0.0.1', port: 80 }] });
    renderer.note(change!);
    const second = renderer.render(state);
    expect(second.backends[0]).toBe(first.backends[0]);
    expect(second.backends[1]).not.toBe(first.backends[1]);
    expect(second.backends[1]!.servers.map((s) => s.address)).toEqual(['10.0.0.1']);
    expect(second.maps).toBe(first.maps);
  });

  it('renders a different state object whole (nothing noted about it)', () => {
    const renderer = new ConfigRenderer({ maxDynamicServers: 0 });
    const one = emptyRouterState();
    applyChurn(one, { at: 0, type: 'route.upsert', route: { namespace: 'n', name: 'a', host: 'a.example.com', service: 's0' } });
    renderer.render(one);
    const two = emptyRouterState();
    applyChurn(two, { at: 0, type: 'route.upsert', route: { namespace: 'n', name: 'z', host: 'z.example.com', service: 's0' } });
    expect(renderer.render(two).backends.map((b) => b.name)).toEqual(['be_http:n:z']);
  });

  it('renders right after a long stretch of endpoint changes without a render (every service looked at)', () => {
    // dcm-slots may go an hour between reloads. s-c changes once, first; then 10,000 changes alternate
    // between s-a and s-b, passing the threshold (4,096 notes) past which the renderer stops listing them
    // and looks at every service. s-c must be rendered; s-d, never changed, keeps the backend rendered before.
    const opts = { maxDynamicServers: 2, manager: 'slots' } as const;
    const state = emptyRouterState();
    const renderer = new ConfigRenderer(opts);
    for (const name of ['a', 'b', 'c', 'd']) {
      applyChurn(state, { at: 0, type: 'route.upsert', route: { namespace: 'n', name, host: `${name}.example.com`, service: `s-${name}` } });
    }
    const first = renderer.render(state);
    const set = (at: number, service: string, ip: string) => {
      const change = applyChurn(state, { at, type: 'endpoints.set', namespace: 'n', service, endpoints: [{ ip, port: 8080 }] });
      if (change !== null) renderer.note(change);
    };
    set(0, 's-c', '10.9.9.9');
    for (let i = 1; i <= 10_000; i++) set(i, i % 2 === 0 ? 's-a' : 's-b', `10.0.${i % 7}.${i % 250}`);
    const second = renderer.render(state);
    expect(plain(second)).toEqual(plain(renderRouterConfig(state, opts)));
    expect(second.backends[2]!.servers[0]!.address).toBe('10.9.9.9');
    expect(second.backends[3]).toBe(first.backends[3]);
  });

  it('deferred: a config asked for before a long stretch of endpoint changes reads as it was asked for, the next one as the state is', () => {
    // reload-always renders a config only when it is read. The first config waits while 10,000 changes pass
    // the threshold past which the renderer stops listing noted services (4,096): reading it must undo
    // them all; the config asked for after them must have them all, s-c's single early change included.
    const opts = { maxDynamicServers: 0 } as const;
    const state = emptyRouterState();
    const renderer = new ConfigRenderer(opts, true);
    for (const name of ['a', 'b', 'c', 'd']) {
      applyChurn(state, { at: 0, type: 'route.upsert', route: { namespace: 'n', name, host: `${name}.example.com`, service: `s-${name}` } });
    }
    renderer.render(state);
    const waiting = renderer.render(state);
    const asked = plain(renderRouterConfig(state, opts));
    const set = (at: number, service: string, ip: string) => {
      const change = applyChurn(state, { at, type: 'endpoints.set', namespace: 'n', service, endpoints: [{ ip, port: 8080 }] });
      if (change !== null) renderer.note(change);
    };
    set(0, 's-c', '10.9.9.9');
    for (let i = 1; i <= 10_000; i++) set(i, i % 2 === 0 ? 's-a' : 's-b', `10.0.${i % 7}.${i % 250}`);
    expect(plain(waiting)).toEqual(asked);
    const next = renderer.render(state);
    expect(plain(next)).toEqual(plain(renderRouterConfig(state, opts)));
    expect(next.backends[2]!.servers[0]!.address).toBe('10.9.9.9');
  });
});
