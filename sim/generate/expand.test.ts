import { describe, expect, test } from 'vitest';
import type { InputEvent } from '../../core/events.ts';
import { InputEventSchema } from '../eventlog/event-schema.ts';
import { expandGeneratorInput } from './expand.ts';
import type { GenerateSpecInput } from './spec.ts';

const HOUR = 3_600_000;

function expand(spec: GenerateSpecInput, seed = 1): InputEvent[] {
  return [...expandGeneratorInput(spec, seed)];
}

type EndpointsSet = Extract<InputEvent, { type: 'endpoints.set' }>;
const sets = (events: InputEvent[]): EndpointsSet[] => events.filter((e): e is EndpointsSet => e.type === 'endpoints.set');
const ips = (e: EndpointsSet): string[] => e.endpoints.map((x) => x.ip);

const EVERYTHING: GenerateSpecInput = {
  durationMs: HOUR,
  world: { services: 10, endpointsPerService: 3, workers: 4 },
  routes: { initial: 20, createPerHour: 120, deletePerHour: 60, mix: { http: 1, edge: 1, passthrough: 1, reencrypt: 1 }, customCertificates: 0.3, annotations: 0.3, paths: 0.3 },
  scale: { perHour: 60, min: 1, max: 8, step: 2 },
  rollouts: { perHour: 4, batchSize: 2 },
  drains: { perHour: 2 },
  bursts: { perHour: 2, services: 2, scaleTo: 12 },
  faults: { nodes: ['infra-1', 'infra-2', 'infra-3'], nodeFailPerHour: 2, nodeShutdownPerHour: 1, routerCrashPerHour: 2, partitionPerHour: 1, downMs: 120_000 },
};

describe('expandGenerators', () => {
  test('every event is a valid v1 event, in non-decreasing time', () => {
    const events = expand(EVERYTHING);
    expect(events.length).toBeGreaterThan(100);
    let last = 0;
    for (const e of events) {
      expect(InputEventSchema.safeParse(e).success).toBe(true);
      expect(e.at).toBeGreaterThanOrEqual(last);
      last = e.at;
    }
    // Every kind of churn shows up in an hour of this spec.
    const types = new Set(events.map((e) => e.type));
    for (const t of ['route.upsert', 'route.delete', 'endpoints.set', 'node.fail', 'node.recover', 'router.fail', 'router.recover']) expect(types).toContain(t);
  });

  test('the same seed gives the same log; another seed another', () => {
    expect(JSON.stringify(expand(EVERYTHING, 5))).toBe(JSON.stringify(expand(EVERYTHING, 5)));
    expect(JSON.stringify(expand(EVERYTHING, 5))).not.toBe(JSON.stringify(expand(EVERYTHING, 6)));
  });

  test('each generator has its own stream: switching others on does not change its events', () => {
    const routesOnly = expand({ ...EVERYTHING, scale: undefined, rollouts: undefined, drains: undefined, bursts: undefined, faults: undefined });
    const routeEvents = (es: InputEvent[]) => JSON.stringify(es.filter((e) => e.type.startsWith('route.')));
    expect(routeEvents(expand(EVERYTHING))).toBe(routeEvents(routesOnly));
    const faults = (es: InputEvent[]) => JSON.stringify(es.filter((e) => e.type.startsWith('node.') || e.type.startsWith('router.') || e.type.startsWith('network.')));
    expect(faults(expand({ ...EVERYTHING, routes: undefined }))).toBe(faults(expand(EVERYTHING)));
  });

  test('initial endpoints: one set per service at the start, round-robin on workers', () => {
    const events = expand({ durationMs: 1000, startMs: 500, world: { services: 3, endpointsPerService: 2, workers: 2 } });
    expect(events.map((e) => [e.at, e.type])).toEqual([
      [500, 'endpoints.set'],
      [500, 'endpoints.set'],
      [500, 'endpoints.set'],
    ]);
    expect(sets(events).map((e) => `${e.namespace}/${e.service}:${e.endpoints.length}`)).toEqual(['ns-0/svc-0:2', 'ns-1/svc-1:2', 'ns-2/svc-2:2']);
  });

  test('multi-port services: an endpoint per pod and port, port by port, and routes with a targetPort', () => {
    const events = expand({
      durationMs: HOUR,
      world: { services: 2, endpointsPerService: 2, workers: 2, extraPorts: [{ name: 'metrics', port: 9090 }] },
      routes: { initial: 3, targetPort: 'http', mix: { http: 1 } },
    });
    const first = sets(events)[0]!;
    // 2 pods × (http 8080 + metrics 9090), all the http ones first.
    expect(first.endpoints.map((e) => `${e.name} ${e.portName}:${e.port}`)).toEqual([
      'svc-0-0 http:8080',
      'svc-0-1 http:8080',
      'svc-0-0 metrics:9090',
      'svc-0-1 metrics:9090',
    ]);
    const routes = events.filter((e) => e.type === 'route.upsert');
    expect(routes).toHaveLength(3);
    for (const r of routes) expect(r.type === 'route.upsert' && r.route.targetPort).toBe('http');
    // Without extraPorts the endpoints carry no port name, as before (no draw changes either way).
    expect(sets(expand({ durationMs: HOUR, world: { services: 1, endpointsPerService: 1 } }))[0]!.endpoints).toEqual([{ ip: '10.128.0.1', port: 8080, name: 'svc-0-0' }]);
  });

  test('a port name or number used twice in the world is refused at its field', () => {
    expect(() => expand({ durationMs: HOUR, world: { extraPorts: [{ name: 'http', port: 9090 }] } })).toThrow(/port name 'http' is used twice/);
    expect(() => expand({ durationMs: HOUR, world: { extraPorts: [{ name: 'metrics', port: 8080 }] } })).toThrow(/port 8080 is used twice/);
  });

  test('a fault-only spec with no services emits only faults', () => {
    const events = expand({ durationMs: 10_000, world: { services: 0 }, faults: { nodes: ['a'], schedule: [{ at: 5, type: 'router.fail', node: 'a' }] } });
    expect(events).toEqual([{ at: 5, type: 'router.fail', node: 'a' }]);
  });

  test('route creations follow the Poisson rate', () => {
    // 600/h for 10 h: 6000 expected, sd sqrt(6000) ≈ 77; 4 sd either side.
    const events = expand({ durationMs: 10 * HOUR, world: { services: 5 }, routes: { createPerHour: 600 } }, 3);
    const created = events.filter((e) => e.type === 'route.upsert').length;
    expect(created).toBeGreaterThan(6000 - 4 * 77);
    expect(created).toBeLessThan(6000 + 4 * 77);
  });

  test('the termination mix, certificates and annotations appear at their shares', () => {
    // 4000 routes, equal weights: 1000 of each kind expected, sd sqrt(4000 * 1/4 * 3/4) ≈ 27; 4 sd = 110.
    const events = expand({ durationMs: 1000, world: { services: 5 }, routes: { initial: 4000, mix: { http: 1, edge: 1, passthrough: 1, reencrypt: 1 }, customCertificates: 0.5, annotations: 0.25 } }, 9);
    const routes = events.flatMap((e) => (e.type === 'route.upsert' ? [e.route] : []));
    expect(routes).toHaveLength(4000);
    for (const kind of [undefined, 'edge', 'passthrough', 'reencrypt']) {
      const n = routes.filter((r) => r.tls?.termination === kind).length;
      expect(Math.abs(n - 1000)).toBeLessThan(110);
    }
    // Certificates only on edge/reencrypt, half of them: about 1000 of 2000, sd ≈ 22.
    const withCert = routes.filter((r) => r.tls?.certificate !== undefined);
    expect(withCert.every((r) => r.tls!.termination !== 'passthrough')).toBe(true);
    expect(Math.abs(withCert.length - 1000)).toBeLessThan(90);
    // Annotations on a quarter: 1000 of 4000, sd ≈ 27.
    expect(Math.abs(routes.filter((r) => r.annotations !== undefined).length - 1000)).toBeLessThan(110);
    // Hosts are unique and every route's service exists.
    expect(new Set(routes.map((r) => r.host)).size).toBe(4000);
    expect(routes.every((r) => /^svc-[0-4]$/.test(r.service))).toBe(true);
  });

  test('deletions only name live routes, and `max` caps creations', () => {
    const events = expand({ durationMs: 5 * HOUR, routes: { initial: 5, createPerHour: 100, deletePerHour: 100, max: 10 } }, 4);
    const live = new Set<string>();
    for (const e of events) {
      if (e.type === 'route.upsert') live.add(e.route.name);
      if (e.type === 'route.delete') {
        expect(live.has(e.name)).toBe(true);
        live.delete(e.name);
      }
      expect(live.size).toBeLessThanOrEqual(10);
    }
  });

  test('a rolling deployment replaces every pod in batches, new pods not-ready first', () => {
    const events = sets(
      expand({ durationMs: HOUR, world: { services: 1, endpointsPerService: 5, workers: 2 }, rollouts: { at: [1000], batchSize: 2, batchIntervalMs: 10_000, readyAfterMs: 3000 } }),
    );
    const [initial, ...rest] = events;
    const before = ips(initial!);
    // 5 pods in batches of 2: batches at 1000, 11000, 21000 (2, 2, 1 pods), each followed 3000 ms later by readiness.
    expect(rest.map((e) => e.at)).toEqual([1000, 4000, 11000, 14000, 21000, 24000]);
    expect(rest[0]!.endpoints.filter((x) => x.ready === false)).toHaveLength(2);
    expect(rest[1]!.endpoints.every((x) => x.ready !== false)).toBe(true);
    const after = ips(rest[rest.length - 1]!);
    expect(after).toHaveLength(5);
    expect(after.filter((ip) => before.includes(ip))).toEqual([]);
    // The next batch (31000) finds no old pod left and ends the rollout without an event.
  });

  test('a drain empties one worker: exactly its pods leave, and come back elsewhere with new IPs', () => {
    // 6 services × 2 pods on 3 workers, placed round robin: pod j of service i on worker (2i + j) mod 3,
    // so every worker holds 4 pods.
    const events = sets(expand({ durationMs: HOUR, world: { services: 6, endpointsPerService: 2, workers: 3 }, drains: { at: [1000], rescheduleAfterMs: 5000 } }));
    const initial = events.filter((e) => e.at === 0);
    const byWorker = new Map<number, string[]>();
    initial.forEach((e, i) => e.endpoints.forEach((x, j) => byWorker.set((2 * i + j) % 3, [...(byWorker.get((2 * i + j) % 3) ?? []), x.ip])));
    const atDrain = events.filter((e) => e.at === 1000);
    const gone = atDrain.flatMap((e) => {
      const was = ips(initial.find((i) => i.service === e.service)!);
      return was.filter((ip) => !ips(e).includes(ip));
    });
    expect(gone).toHaveLength(4);
    expect([...byWorker.values()].some((pods) => JSON.stringify([...pods].sort()) === JSON.stringify([...gone].sort()))).toBe(true);
    const back = events.filter((e) => e.at === 6000);
    expect(back.map((e) => e.service)).toEqual(atDrain.map((e) => e.service));
    const all = back.flatMap(ips);
    expect(all).toHaveLength(atDrain.flatMap(ips).length + 4);
    expect(all.filter((ip) => gone.includes(ip))).toEqual([]);
  });

  test('an autoscaling burst climbs in HPA steps, holds, then scales back', () => {
    // From 3 pods to 20: +max(4,3)=4 → 7, +7 → 14, +min(6,14) → 20, one step (15 s) apart; back to 3 after 300 s.
    const events = sets(expand({ durationMs: HOUR, world: { services: 1, endpointsPerService: 3 }, bursts: { at: [10_000], scaleTo: 20, stepMs: 15_000, holdMs: 300_000 } }));
    expect(events.map((e) => [e.at, e.endpoints.length])).toEqual([
      [0, 3],
      [10_000, 7],
      [25_000, 14],
      [40_000, 20],
      [340_000, 3],
    ]);
  });

  test('scale keeps each service within [min, max]', () => {
    const events = sets(expand({ durationMs: 10 * HOUR, world: { services: 3, endpointsPerService: 2 }, scale: { perHour: 200, min: 1, max: 4, step: 3 } }));
    expect(events.length).toBeGreaterThan(1000);
    for (const e of events.slice(3)) {
      expect(e.endpoints.length).toBeGreaterThanOrEqual(1);
      expect(e.endpoints.length).toBeLessThanOrEqual(4);
    }
  });

  test('scheduled faults happen at their times and recover after their duration', () => {
    const events = expand({
      durationMs: HOUR,
      world: { services: 1 },
      faults: {
        nodes: ['a', 'b', 'c'],
        schedule: [
          { at: 1000, type: 'node.fail', node: 'a', recoverAfterMs: 5000 },
          { at: 2000, type: 'router.fail', node: 'b', recoverAfterMs: 1000 },
          { at: 3000, type: 'network.partition', node: 'c', recoverAfterMs: 10_000 },
          { at: 4000, type: 'node.shutdown', node: 'b' },
          { at: 5000, type: 'node.stall', node: 'c', recoverAfterMs: 2500 },
        ],
      },
    }).filter((e) => e.type !== 'endpoints.set');
    expect(events).toEqual([
      { at: 1000, type: 'node.fail', node: 'a' },
      { at: 2000, type: 'router.fail', node: 'b' },
      { at: 3000, type: 'network.partition', groups: [['c'], ['a', 'b']] },
      { at: 3000, type: 'router.recover', node: 'b' },
      { at: 4000, type: 'node.shutdown', node: 'b' },
      { at: 5000, type: 'node.stall', node: 'c', durationMs: 2500 },
      { at: 6000, type: 'node.recover', node: 'a' },
      { at: 13_000, type: 'network.heal' },
    ]);
  });

  test('rate-drawn faults only hit nodes that are up and always recover', () => {
    const events = expand({ durationMs: 20 * HOUR, world: { services: 1 }, faults: { nodes: ['a', 'b'], nodeFailPerHour: 3, routerCrashPerHour: 3, nodeStallPerHour: 2, partitionPerHour: 2, downMs: 600_000 } }, 2);
    const down = new Set<string>();
    const stalled = new Map<string, number>();
    let partitioned = false;
    for (const e of events) {
      for (const [node, until] of stalled) if (until <= e.at) stalled.delete(node);
      if (e.type === 'node.fail' || e.type === 'router.fail' || e.type === 'node.stall') {
        expect(down.has(e.node) || stalled.has(e.node)).toBe(false);
        if (e.type === 'node.stall') stalled.set(e.node, e.at + e.durationMs);
        else down.add(e.node);
      } else if (e.type === 'node.recover' || e.type === 'router.recover') {
        expect(down.delete(e.node)).toBe(true);
      } else if (e.type === 'network.partition') {
        expect(partitioned).toBe(false);
        partitioned = true;
      } else if (e.type === 'network.heal') partitioned = false;
    }
    expect(down.size).toBe(0);
    expect(partitioned).toBe(false);
  });

  test('sharedHosts: new routes take the host of a route live at that moment, at about the given share; without it every host is its own', () => {
    const spec: GenerateSpecInput = { durationMs: 4 * HOUR, world: { namespaces: 2, services: 6 }, routes: { initial: 10, createPerHour: 120, deletePerHour: 100, paths: 0.5 } };
    /** Hosts by route.upsert: whether each took a host in use by a live route, and whether that host ever had no live route before it. */
    const shares = (events: InputEvent[]): { shared: number; upserts: number; orphaned: number } => {
      const liveHost = new Map<string, string>();
      const seen = new Set<string>();
      let shared = 0;
      let orphaned = 0;
      let upserts = 0;
      for (const e of events) {
        if (e.type === 'route.upsert') {
          upserts++;
          const inUse = [...liveHost.values()].includes(e.route.host);
          if (inUse) shared++;
          else if (seen.has(e.route.host)) orphaned++;
          seen.add(e.route.host);
          liveHost.set(`${e.route.namespace}/${e.route.name}`, e.route.host);
        } else if (e.type === 'route.delete') {
          liveHost.delete(`${e.namespace}/${e.name}`);
        }
      }
      return { shared, upserts, orphaned };
    };
    const own = shares(expand(spec, 3));
    expect(own.shared).toBe(0);
    expect(own.orphaned).toBe(0);
    const half = shares(expand({ ...spec, routes: { ...spec.routes, sharedHosts: 0.5 } }, 3));
    // A host is only ever taken from a live route, never from one deleted before.
    expect(half.orphaned).toBe(0);
    // About half of the creations after the first (the first has no live route to share with): 10 initial
    // and ~480 more over 4 h; binomial(~490, 0.5) is within 245 ± 50 with overwhelming odds.
    expect(half.upserts).toBeGreaterThan(400);
    expect(Math.abs(half.shared - (half.upserts - 1) / 2)).toBeLessThan(50);
  });

  test('wildcards: a share of new routes are wildcard routes, each on a domain of its own', () => {
    const spec: GenerateSpecInput = { durationMs: 4 * HOUR, world: { namespaces: 2, services: 6 }, routes: { initial: 10, createPerHour: 120, deletePerHour: 100 } };
    const upserts = (events: InputEvent[]) => events.filter((e): e is Extract<InputEvent, { type: 'route.upsert' }> => e.type === 'route.upsert').map((e) => e.route);
    expect(upserts(expand(spec, 4)).filter((r) => r.wildcardPolicy !== undefined)).toEqual([]);
    const routes = upserts(expand({ ...spec, routes: { ...spec.routes, wildcards: 0.4 } }, 4));
    const wild = routes.filter((r) => r.wildcardPolicy === 'Subdomain');
    // Binomial(~490, 0.4): 196 ± 50 with overwhelming odds.
    expect(routes.length).toBeGreaterThan(400);
    expect(Math.abs(wild.length - routes.length * 0.4)).toBeLessThan(50);
    // www.<the host it would have had>: the domain after the first label is the route's own.
    for (const r of wild) expect(r.host).toBe(`www.${r.name}-${r.namespace}.apps.example.com`);
  });

  test('expansion is lazy: the first events of a huge spec come at once', () => {
    const it = expandGeneratorInput({ durationMs: HOUR, world: { services: 50_000, endpointsPerService: 1 }, routes: { initial: 10_000_000 } }, 1)[Symbol.iterator]();
    const first = [it.next().value, it.next().value];
    expect(first.map((e) => e?.type)).toEqual(['endpoints.set', 'endpoints.set']);
    it.return?.();
  });
});

test('expansion reads no clock and no Math.random', () => {
  const saved = { now: Date.now, random: Math.random, perf: performance.now, setTimeout: globalThis.setTimeout };
  const boom = () => {
    throw new Error('nondeterminism');
  };
  Date.now = boom;
  Math.random = boom;
  performance.now = boom;
  globalThis.setTimeout = boom as unknown as typeof setTimeout;
  try {
    expect(expand(EVERYTHING).length).toBeGreaterThan(100);
  } finally {
    Date.now = saved.now;
    Math.random = saved.random;
    performance.now = saved.perf;
    globalThis.setTimeout = saved.setTimeout;
  }
});
