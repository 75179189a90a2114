import { fc, test } from '@fast-check/vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STRATEGY_NAMES, type StrategyName } from '../core/strategy.ts';
import { projectReport } from '../reports/project-report.ts';
import { eventLogHeader, writeEventLogFile } from './cli/event-log-writer.ts';
import { expandGeneratorInput } from './generate/expand.ts';
import { loadScenario, parseScenario } from './scenario/load-scenario.ts';
import { loadRunInput } from './load-input.ts';
import { readOutputLog } from './output/output-log-reader.ts';
import { JsonlFileSink, MemorySink } from './output/output-sink.ts';
import { headerOf, judge, runOne } from './run.ts';
import type { RunInput } from './run-input.ts';
import { defaultSettings } from './settings.ts';
import type { InputEvent } from '../core/events.ts';

const SCENARIO = join(import.meta.dirname, '..', 'scenarios', 'churn-with-failover.yaml');

function churnInput(seed: number, strategy: StrategyName, scalePerHour: number, routesPerHour: number): RunInput {
  const settings = defaultSettings();
  settings.seed = seed;
  settings.router.strategy = strategy;
  settings.sim.settleMs = 10_000;
  return {
    name: 'prop',
    source: 'generated',
    settings,
    budgets: ['reloads.total >= 1'],
    events: () =>
      expandGeneratorInput(
        {
          durationMs: 600_000,
          world: { services: 8, endpointsPerService: 2 },
          routes: { initial: 6, createPerHour: routesPerHour, deletePerHour: routesPerHour / 2 },
          scale: { perHour: scalePerHour, min: 0, max: 9 },
        },
        seed,
      ),
    reproduce: 'test',
  };
}

function logOf(input: RunInput): string {
  const sink = new MemorySink();
  const { report } = runOne(input, sink);
  return sink.records.map((r) => JSON.stringify(r)).join('\n') + '\n' + JSON.stringify(report);
}

describe('a run', () => {
  test.prop(
    [fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.constantFrom(...STRATEGY_NAMES), fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 200 })],
    { numRuns: 25 },
  )('is deterministic: same input and seed, byte-identical output log and report', (seed, strategy, scale, routes) => {
    expect(logOf(churnInput(seed, strategy, scale, routes))).toBe(logOf(churnInput(seed, strategy, scale, routes)));
  });

  it('is deterministic with a keepalived cluster and faults (the bundled example scenario)', () => {
    const a = logOf(loadRunInput(SCENARIO));
    expect(a).toBe(logOf(loadRunInput(SCENARIO)));
    expect(a).toContain('"type":"vrrp.state"');
  });

  // The checker reads HAProxy without building its maps or backends (a built map hands out entry pointers
  // that `show map` prints), so what the router observes is the same whether checks run or not.
  test.prop([fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.constantFrom(...STRATEGY_NAMES)], { numRuns: 10 })(
    'observes the same with invariant checks after every settle as with none',
    (seed, strategy) => {
      const observed = (invariants: 'settled' | 'off'): string => {
        const input = churnInput(seed, strategy, 600, 60);
        input.settings.sim.invariants = invariants;
        const sink = new MemorySink();
        runOne(input, sink);
        return sink.records
          .filter((r) => r.type !== 'invariant')
          .map((r) => JSON.stringify(r))
          .join('\n');
      };
      expect(observed('settled')).toBe(observed('off'));
    },
  );

  // A file sink is handed churn inputs by their fields (OutputSink.recordInput); a memory sink gets every
  // record as an object. Both must end up with the same log and the same report.
  test.prop([fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.constantFrom(...STRATEGY_NAMES)], { numRuns: 6 })(
    'writes to a file, churn inputs by their fields, the same records and report as it hands a memory sink',
    (seed, strategy) => {
      const dir = mkdtempSync(join(tmpdir(), 'rb-inputs-'));
      const input = churnInput(seed, strategy, 1200, 120);
      const file = new JsonlFileSink(join(dir, 'output.jsonl'), headerOf(input));
      const viaFile = runOne(input, file).report;
      file.commit();
      const memory = new MemorySink();
      const viaMemory = runOne(churnInput(seed, strategy, 1200, 120), memory).report;
      const lines = readFileSync(join(dir, 'output.jsonl'), 'utf8').trimEnd().split('\n').slice(1);
      expect(lines).toEqual(memory.records.map((r) => JSON.stringify(r)));
      expect(lines.filter((l) => l.includes('"type":"input"')).length).toBeGreaterThan(0);
      expect(JSON.stringify(viaFile)).toBe(JSON.stringify(viaMemory));
    },
  );

  it('reports the same without its churn inputs (which is why a run may hand them to the sink alone)', () => {
    const sink = new MemorySink();
    const input = loadRunInput(SCENARIO);
    runOne(input, sink);
    const header = headerOf(input);
    const churn = new Set(['route.upsert', 'route.delete', 'endpoints.set', 'endpoints.delete', 'blueprint.upsert', 'blueprint.delete']);
    const without = sink.records.filter((r) => r.type !== 'input' || !churn.has(r.event));
    // The scenario has both kinds: churn inputs to drop, and the cluster's inputs that the failover report reads.
    expect(without.length).toBeLessThan(sink.records.length);
    expect(without.some((r) => r.type === 'input')).toBe(true);
    expect(JSON.stringify(projectReport(header, without))).toBe(JSON.stringify(projectReport(header, sink.records)));
  });

  it('rebuilds the same report from the output log alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-run-'));
    const input = loadRunInput(SCENARIO);
    const sink = new JsonlFileSink(join(dir, 'output.jsonl'), headerOf(input));
    const { report } = runOne(input, sink);
    sink.commit();
    const { header, records } = readOutputLog(join(dir, 'output.jsonl'));
    expect(JSON.stringify(judge(projectReport(header, records), header.budgets))).toBe(JSON.stringify(report));
    expect(readFileSync(join(dir, 'output.jsonl'), 'utf8').split('\n')[0]).toContain('"routerbench":"outputlog"');
  });
});

describe('an expanded scenario', () => {
  it('runs as its event log exactly as the scenario does (settings, cluster and budgets travel in the header)', () => {
    const scenario = loadScenario(SCENARIO);
    const dir = mkdtempSync(join(tmpdir(), 'rb-expand-'));
    const log = join(dir, 'expanded.jsonl');
    const header = eventLogHeader({ scenario: scenario.name, seed: scenario.settings.seed, settings: scenario.settings, cluster: scenario.cluster, budgets: scenario.budgets });
    writeEventLogFile(log, header, scenario.events());
    const fromScenario = runOne(scenario).report;
    const fromLog = runOne(loadRunInput(log)).report;
    expect({ ...fromLog, reproduce: '', settingSources: {} }).toEqual({ ...fromScenario, reproduce: '', settingSources: {} });
    // Only where the settings were read differs: the scenario's keys on their lines, the log's header on line 1.
    expect(fromScenario.settingSources?.['router.strategy']).toMatch(/\.yaml:\d+$/);
    expect(new Set(Object.values(fromLog.settingSources ?? {}))).toEqual(new Set([`${log}:1`]));
  });
});

describe('determinism guard', () => {
  const saved = { random: Math.random, now: Date.now, Date: globalThis.Date, perf: performance.now, st: globalThis.setTimeout, si: globalThis.setInterval };
  afterEach(() => {
    Math.random = saved.random;
    Date.now = saved.now;
    globalThis.Date = saved.Date;
    performance.now = saved.perf;
    globalThis.setTimeout = saved.st;
    globalThis.setInterval = saved.si;
  });

  it('runs with the wall clock, Math.random and real timers made to throw', () => {
    const input = loadRunInput(SCENARIO);
    const forbidden = (what: string) => () => {
      throw new Error(`${what} used during a simulation`);
    };
    const before = logOf(input);
    Math.random = forbidden('Math.random');
    Date.now = forbidden('Date.now');
    performance.now = forbidden('performance.now');
    globalThis.setTimeout = forbidden('setTimeout') as unknown as typeof setTimeout;
    globalThis.setInterval = forbidden('setInterval') as unknown as typeof setInterval;
    globalThis.Date = class extends saved.Date {
      constructor(...args: unknown[]) {
        if (args.length === 0) throw new Error('new Date() used during a simulation');
        super(...(args as [string]));
      }
    } as DateConstructor;
    expect(logOf(input)).toBe(before);
  });
});

describe('faults on the stats socket (haproxy.* settings)', () => {
  it('are drawn from their own seeded stream; refused connections are retried and change no decision', () => {
    const clean = loadRunInput(SCENARIO, { set: { 'router.strategy': 'dcm-slots' } });
    const faulty = loadRunInput(SCENARIO, { set: { 'router.strategy': 'dcm-slots', 'haproxy.refusedRate': '0.05' } });
    const sink = new MemorySink();
    const withFaults = runOne(faulty, sink).report;
    const refused = sink.records.filter((r) => r.type === 'runtime.command' && r.outcome === 'refused').length;
    // About 5% of ~800 commands are refused at least once; the client retries them (3 attempts, 10/20 ms apart).
    expect(refused).toBeGreaterThan(10);
    // Precondition for what follows: with this seed no command was refused three times in a row.
    expect(withFaults.runtimeApi.errors).toBe(0);
    // Then every change still applied at runtime, so the reloads and their reasons are those of a clean socket,
    // and HAProxy ends in the desired state.
    const cleanReport = runOne(clean).report;
    expect(withFaults.reloads).toEqual(cleanReport.reloads);
    expect(withFaults.runtimeApi.commands).toBe(cleanReport.runtimeApi.commands + refused);
    expect(withFaults.invariants.violations).toEqual([]);
    expect(logOf(faulty)).toBe(logOf(faulty));
  });

  it('rates adding up to more than 1 are an input error', () => {
    expect(() => loadRunInput(SCENARIO, { set: { 'haproxy.refusedRate': '0.7', 'haproxy.resetRate': '0.5' } })).toThrow(/add up to at most 1/);
  });
});

describe('a cluster-only scenario', () => {
  it('needs no events: keepalived elects a master and adverts flow for sim.durationMs', () => {
    const input = parseScenario(
      ['name: cluster-only', 'cluster:', '  nodes:', '    - { name: infra-1, ip: 198.18.0.11 }', '    - { name: infra-2, ip: 198.18.0.12 }', '  ipfailover: { virtualIps: 198.18.0.100 }', 'sim: { durationMs: 60000 }', ''].join('\n'),
      'cluster-only.yaml',
    );
    const { report } = runOne(input);
    expect(report.events).toBe(0);
    expect(report.simulatedMs).toBe(60_000);
    // One VIP, one master at the end; it adverts once a second after winning the election (≤ 3A + S ≈ 4 s).
    expect(report.failover.spread?.max).toBe(1);
    expect(report.failover.traffic?.advertsSent).toBeGreaterThanOrEqual(56);
    expect(report.failover.traffic?.advertsSent).toBeLessThanOrEqual(60);
  });
});

describe('route admission', () => {
  const scenario = (allow: boolean): string =>
    [
      'name: wildcards',
      `router: { strategy: reload-always, allowWildcardRoutes: ${allow} }`,
      'sim: { settleMs: 10000 }',
      'events:',
      '  - { at: 0, type: route.upsert, route: { namespace: shop, name: a, host: a.example.com, service: web } }',
      '  - { at: 0, type: endpoints.set, namespace: shop, service: web, endpoints: [{ ip: 10.0.0.1, port: 8080 }] }',
      '  - { at: 10000, type: route.upsert, route: { namespace: shop, name: w, host: w.example.com, service: web, wildcardPolicy: Subdomain } }',
      '  - { at: 20000, type: route.upsert, route: { namespace: shop, name: a, host: a.example.com, service: web, wildcardPolicy: Subdomain } }',
      '',
    ].join('\n');

  it('rejects wildcard routes unless allowed, as the router does: as if deleted, once said', () => {
    // Not allowed: the initial reload; w at 10 s is never admitted (nothing changes); a turning into a
    // wildcard route at 20 s is a removal: one route-change reload. 2 reloads, 2 warnings (w, a).
    const denied = runOne(parseScenario(scenario(false), 'wildcards.yaml')).report;
    expect(denied.reloads.total).toBe(2);
    expect(denied.reloads.requests).toEqual({ initial: 1, 'route-change': 1 });
    expect(denied.warnings.list.map((w) => w.message)).toEqual([
      'route shop/w not admitted: wildcard routes are not allowed (ROUTER_ALLOW_WILDCARD_ROUTES / router.allowWildcardRoutes)',
      'route shop/a not admitted: wildcard routes are not allowed (ROUTER_ALLOW_WILDCARD_ROUTES / router.allowWildcardRoutes)',
    ]);
    expect(denied.invariants.violations).toEqual([]);
    // Allowed: the initial reload, w added at 10 s, a modified at 20 s (10 s apart, above the 5 s interval): 3.
    // At 20 s a, now a wildcard route too, claims *.example.com, which w (same namespace, same path, created
    // later) holds: HostAdmitter displaces w, passed on as deleted in the same input (host_admitter.go).
    const allowed = runOne(parseScenario(scenario(true), 'wildcards.yaml')).report;
    expect(allowed.reloads.total).toBe(3);
    expect(allowed.warnings.list.map((w) => w.message)).toEqual(['route shop/w not admitted: wildcard route shop/a has host *.example.com blocking w.example.com (HostAlreadyClaimed)']);
    // HAProxy serves the wildcard routes under their wildcard keys, asked for at a host of their domain.
    expect(allowed.invariants.checked).toBeGreaterThan(0);
    expect(allowed.invariants.violations).toEqual([]);
  });

  const claims = (strategy: string, ownershipCheck: boolean): string =>
    [
      'name: hosts',
      `router: { strategy: ${strategy}, disableNamespaceOwnershipCheck: ${!ownershipCheck} }`,
      'sim: { settleMs: 10000 }',
      'events:',
      '  - { at: 0, type: route.upsert, route: { namespace: a, name: old, host: h.example.com, service: web } }',
      '  - { at: 0, type: endpoints.set, namespace: a, service: web, endpoints: [{ ip: 10.0.0.1, port: 8080 }] }',
      '  - { at: 0, type: endpoints.set, namespace: b, service: api, endpoints: [{ ip: 10.0.0.2, port: 8080 }] }',
      '  - { at: 10000, type: route.upsert, route: { namespace: b, name: new, host: h.example.com, path: /api, service: api } }',
      '  - { at: 30000, type: route.delete, namespace: a, name: old }',
      '',
    ].join('\n');

  // Generated churn where routes share hosts across two namespaces and half of them have paths: holders
  // come and go, waiting routes are let in, conflicting paths wait. After every settle HAProxy must serve
  // exactly the routes the admission let through (the checker's desired state is the router's). Not
  // dcm-slots, which loses a route handed a host and path at runtime (the next test); no endpoint churn,
  // whose refusals during reloads leave dcm-add-del's EndpointTables stale (a flaw of its own,
  // docs/fidelity-config-manager.md, tolerated by sim/strategies.model.test.ts).
  test.prop([fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.constantFrom<StrategyName>('reload-always', 'dcm-add-del'), fc.boolean(), fc.boolean()], { numRuns: 16 })(
    'HAProxy serves exactly the admitted routes under shared-host churn, with and without the ownership check and wildcard routes',
    (seed, strategy, ownershipCheck, allowWildcardRoutes) => {
      const settings = defaultSettings();
      settings.seed = seed;
      settings.router.strategy = strategy;
      settings.router.disableNamespaceOwnershipCheck = !ownershipCheck;
      settings.router.allowWildcardRoutes = allowWildcardRoutes;
      settings.sim.settleMs = 10_000;
      settings.sim.invariants = 'settled';
      const input: RunInput = {
        name: 'shared-hosts',
        source: 'generated',
        settings,
        budgets: [],
        events: () =>
          expandGeneratorInput(
            {
              durationMs: 1_800_000,
              world: { namespaces: 2, services: 4, endpointsPerService: 2 },
              routes: { initial: 6, createPerHour: 240, deletePerHour: 200, paths: 0.5, sharedHosts: 0.6, wildcards: 0.3, mix: { http: 2, edge: 1, passthrough: 1, reencrypt: 0 } },
            },
            seed,
          ),
        reproduce: 'test',
      };
      const sink = new MemorySink();
      const { report } = runOne(input, sink);
      expect(report.invariants.violations).toEqual([]);
      expect(report.invariants.checked).toBeGreaterThan(0);
    },
  );

  it('dcm-slots: a route handed its host and path when the holder goes is unserved until the next reload, as upstream', () => {
    // Same namespace, same host, no path: a/new conflicts with the older a/old and waits. a/old's deletion
    // at 30 s activates a/new first (unique_host.go: "perform activations first"): AddRoute puts its map
    // entries on a pool backend at runtime. Then RemoveRoute(a/old) deletes every map entry under that
    // host's keys (Find(key) in map.go, whatever backend it points at), a/new's included. Nothing reloads
    // until the commit timer RemoveRoute armed fires, 60 s later (router.commitIntervalMs): a/new is
    // unserved from 30 s to the end of that reload.
    const yaml = [
      'name: handover',
      'router: { strategy: dcm-slots, commitIntervalMs: 60000 }',
      'sim: { settleMs: 10000, invariants: settled, durationMs: 150000 }',
      'events:',
      '  - { at: 0, type: route.upsert, route: { namespace: a, name: old, host: h.example.com, service: web } }',
      '  - { at: 0, type: endpoints.set, namespace: a, service: web, endpoints: [{ ip: 10.0.0.1, port: 8080 }] }',
      '  - { at: 0, type: endpoints.set, namespace: a, service: api, endpoints: [{ ip: 10.0.0.2, port: 8080 }] }',
      '  - { at: 10000, type: route.upsert, route: { namespace: a, name: new, host: h.example.com, service: api } }',
      '  - { at: 30000, type: route.delete, namespace: a, name: old }',
      '',
    ].join('\n');
    const sink = new MemorySink();
    const { report } = runOne(parseScenario(yaml, 'handover.yaml'), sink);
    const reloads = sink.records.filter((r) => r.type === 'reload.end').map((r) => r.atUs / 1000);
    // The initial reload, then the commit reload: armed by RemoveRoute at 30 s, fired at 90 s, ending after
    // router.reloadDurationMs.
    expect(reloads.length).toBe(2);
    expect(reloads[1]).toBeGreaterThanOrEqual(90_000);
    const unserved = report.invariants.violations.filter((v) => v.detail.startsWith('a/new via http://h.example.com/'));
    expect(unserved.length).toBeGreaterThan(0);
    expect(report.invariants.violations).toEqual(unserved);
    expect(Math.min(...unserved.map((v) => v.atMs))).toBe(30_000);
    expect(Math.max(...unserved.map((v) => v.atMs))).toBeLessThan(reloads[1]!);
  });

  it('dcm-slots: a path route added at runtime behind its host\'s root route resolves to the root route until the next reload, as upstream', () => {
    // a/root (no path) is in the initial config. a/api (same host, /api) at 10 s goes on a pool backend at
    // runtime: `add map` appends its pattern after a/root's, and HAProxy takes the first pattern that
    // matches, so a request for /api reaches a/root's backend. The commit timer AddRoute armed at 10 s fires
    // 60 s later (router.commitIntervalMs); the reload renders the map with the longer path first.
    const yaml = (strategy: string): string =>
      [
        'name: shadowed',
        `router: { strategy: ${strategy}, commitIntervalMs: 60000 }`,
        'sim: { settleMs: 10000, invariants: settled, durationMs: 150000 }',
        'events:',
        '  - { at: 0, type: route.upsert, route: { namespace: a, name: root, host: h.example.com, service: web } }',
        '  - { at: 0, type: endpoints.set, namespace: a, service: web, endpoints: [{ ip: 10.0.0.1, port: 8080 }] }',
        '  - { at: 0, type: endpoints.set, namespace: a, service: api, endpoints: [{ ip: 10.0.0.2, port: 8080 }] }',
        '  - { at: 10000, type: route.upsert, route: { namespace: a, name: api, host: h.example.com, path: /api, service: api } }',
        '',
      ].join('\n');
    const sink = new MemorySink();
    const { report } = runOne(parseScenario(yaml('dcm-slots'), 'shadowed.yaml'), sink);
    const reloads = sink.records.filter((r) => r.type === 'reload.end').map((r) => r.atUs / 1000);
    expect(reloads.length).toBe(2);
    expect(reloads[1]).toBeGreaterThanOrEqual(70_000);
    // Every violation is a/api reaching a/root's backend (the checker also words it as the two sharing it
    // and as the backend serving a/root's servers).
    const shadowed = report.invariants.violations;
    expect(shadowed.map((v) => v.detail)).toContain("a/api via http://h.example.com/api: resolves to be_http:a:root, another route's backend");
    for (const v of shadowed) expect(v.detail).toMatch(/a\/api.*be_http:a:root/);
    expect(Math.min(...shadowed.map((v) => v.atMs))).toBe(10_000);
    expect(Math.max(...shadowed.map((v) => v.atMs))).toBeLessThan(reloads[1]!);
    // Rendered whole at each change, the map is in order.
    expect(runOne(parseScenario(yaml('reload-always'), 'shadowed.yaml')).report.invariants.violations).toEqual([]);
  });

  // (dcm-slots adds and deletes such routes at runtime, on a pool backend: no reload either way.)
  it.each(['reload-always', 'dcm-add-del'])('%s: a host held by an older route of another namespace keeps a newer route out until it goes', (strategy) => {
    // With the ownership check (the default): b/new at 10 s waits (another namespace holds the host) and
    // does not reach the router. a/old's deletion at 30 s lets b/new in
    // within the same input: both changes ask for a route change (both strategies reload for a route add
    // and a delete), one Commit, one reload.
    // 1 initial + 1 = 2 reloads.
    const held = runOne(parseScenario(claims(strategy, true), 'hosts.yaml')).report;
    expect(held.reloads.total).toBe(2);
    expect(held.reloads.requests['route-change']).toBe(2);
    expect(held.warnings.list.map((w) => w.message)).toEqual([
      'route b/new not admitted: a route in another namespace holds h.example.com and is older than new (HostAlreadyClaimed)',
    ]);
    expect(held.invariants.violations).toEqual([]);
    // Without it, b/new on another path shares the host at once: a reload at 10 s and one at 30 s: 3.
    const shared = runOne(parseScenario(claims(strategy, false), 'hosts.yaml')).report;
    expect(shared.reloads.total).toBe(3);
    expect(shared.warnings.total).toBe(0);
  });
});

describe('allowed and denied domains', () => {
  const scenario = (router: string): string =>
    [
      'name: domains',
      `router: { strategy: reload-always, ${router} }`,
      'sim: { settleMs: 10000 }',
      'events:',
      '  - { at: 0, type: route.upsert, route: { namespace: shop, name: a, host: a.apps.example.com, service: web } }',
      '  - { at: 0, type: endpoints.set, namespace: shop, service: web, endpoints: [{ ip: 10.0.0.1, port: 8080 }] }',
      '  - { at: 10000, type: route.upsert, route: { namespace: shop, name: b, host: b.internal.example.com, service: web } }',
      '  - { at: 20000, type: route.upsert, route: { namespace: shop, name: c, host: c.other.org, service: web } }',
      '',
    ].join('\n');

  it.each([
    ['a comma-separated string', 'deniedDomains: "internal.example.com", allowedDomains: " example.com ,"'],
    ['lists', 'deniedDomains: [internal.example.com], allowedDomains: [example.com]'],
  ])('keep the routes they exclude out of the router (given as %s)', (_, router) => {
    // b is under a denied domain and c under no allowed one: neither is admitted, so only the initial reload
    // happens (a is there at time 0); each rejection is said once.
    const { report } = runOne(parseScenario(scenario(router), 'domains.yaml'));
    expect(report.reloads.requests).toEqual({ initial: 1 });
    expect(report.warnings.list.map((w) => w.message)).toEqual([
      'route shop/b not admitted: host in list of denied domains (ROUTER_DENIED_DOMAINS / router.deniedDomains)',
      'route shop/c not admitted: host not in the allowed list of domains (ROUTER_ALLOWED_DOMAINS / router.allowedDomains)',
    ]);
    expect(report.invariants.violations).toEqual([]);
  });

  it('admit every route by default: two more route-change reloads', () => {
    // b at 10 s and c at 20 s, 10 s apart, past the 5 s interval.
    const { report } = runOne(parseScenario(scenario('allowWildcardRoutes: false'), 'domains.yaml'));
    expect(report.reloads.requests).toEqual({ initial: 1, 'route-change': 2 });
  });
});

describe('blueprint events without a config manager', () => {
  it('are the routes they carry under reload-always: a route-change reload, a backend, and endpoint changes that reload', () => {
    const settings = defaultSettings();
    settings.router.strategy = 'reload-always';
    const bp = { namespace: 'bp', name: 'b', host: 'b.example.com', service: 'web' };
    const events: InputEvent[] = [
      { at: 10_000, type: 'blueprint.upsert', route: bp },
      { at: 20_000, type: 'endpoints.set', namespace: 'bp', service: 'web', endpoints: [{ ip: '10.0.0.1', port: 8080 }] },
      { at: 30_000, type: 'blueprint.delete', namespace: 'bp', name: 'b' },
    ];
    const { report } = runOne({ name: 'bp', source: 'test', settings, budgets: [], events: () => events, reproduce: '' });
    // The initial reload, then one per event, each at least RELOAD_INTERVAL (5 s) after the last: 1 + 3.
    expect(report.reloads.requests).toEqual({ initial: 1, 'route-change': 2, 'endpoints-change': 1 });
    expect(report.reloads.total).toBe(4);
    // The invariant check resolved the route to its backend serving the endpoint, and found it gone at the end.
    expect(report.invariants.violations).toEqual([]);
  });
});

describe('restricted endpoint addresses', () => {
  const scenario = (strategy: StrategyName, validate = true): string =>
    [
      'name: restricted',
      `router: { strategy: ${strategy}, validateEndpointAddresses: ${validate} }`,
      'sim: { settleMs: 10000 }',
      'events:',
      '  - { at: 0, type: route.upsert, route: { namespace: shop, name: a, host: a.example.com, service: web } }',
      '  - { at: 0, type: endpoints.set, namespace: shop, service: web, endpoints: [{ ip: 10.0.0.1, port: 8080 }] }',
      '  - { at: 10000, type: endpoints.set, namespace: shop, service: web, endpoints: [{ ip: 10.0.0.1, port: 8080 }, { ip: 127.0.0.1, port: 8080 }] }',
      '  - { at: 20000, type: endpoints.set, namespace: shop, service: web, endpoints: [{ ip: 10.0.0.1, port: 8080 }, { ip: "::ffff:169.254.169.254", port: 8080, ready: false }] }',
      '  - { at: 30000, type: endpoints.set, namespace: shop, service: web, endpoints: [{ ip: 10.0.0.2, port: 8080 }, { ip: 127.0.0.1, port: 8080 }] }',
      '',
    ].join('\n');

  it.each(STRATEGY_NAMES)('never reach the router (%s): a change to them alone changes nothing', (strategy) => {
    // The router sees 10.0.0.1 at 0, 10 and 20 s (the loopback and link-local addresses are dropped before
    // it), then 10.0.0.2 at 30 s: the initial reload and one endpoint change. reload-always reloads for it
    // (30 s is past the 5 s interval); the dynamic managers change the backend at runtime. Without the
    // filter, 10 s and 20 s would each be a change too.
    const { report } = runOne(parseScenario(scenario(strategy), 'restricted.yaml'));
    expect(report.reloads.requests).toEqual(strategy === 'reload-always' ? { initial: 1, 'endpoints-change': 1 } : { initial: 1 });
    expect(report.warnings.list.map((w) => w.message)).toEqual([
      'endpoints shop/web: skipping endpoint address 127.0.0.1: IP address 127.0.0.1 is a restricted loopback IP',
      'endpoints shop/web: skipping endpoint address ::ffff:169.254.169.254: IP address ::ffff:169.254.169.254 is a restricted link-local IP',
    ]);
    expect(report.invariants.violations).toEqual([]);
  });

  it('reach it with router.validateEndpointAddresses off, as before the router checked them', () => {
    // Every event is now a change: 10.0.0.1 at 0 s, plus 127.0.0.1 at 10 s, plus (instead) the link-local one
    // at 20 s, 10.0.0.2 and 127.0.0.1 at 30 s; each 10 s apart, past the 5 s interval: reload-always reloads
    // for each of the three after the initial one, and nothing is said.
    const { report } = runOne(parseScenario(scenario('reload-always', false), 'restricted.yaml'));
    expect(report.reloads.requests).toEqual({ initial: 1, 'endpoints-change': 3 });
    expect(report.warnings.total).toBe(0);
  });
});
