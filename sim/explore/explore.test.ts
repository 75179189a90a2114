import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../../core/events.ts';
import { join } from 'node:path';
import { loadRunInput } from '../load-input.ts';
import { parseScenario } from '../scenario/load-scenario.ts';
import { checkRun, violatesProperty } from './check-run.ts';
import { explore } from './explore.ts';
import { inThreadExploreExecutor } from './explore-executor.ts';
import { mergeExplore } from './merge.ts';
import { FORGETS_READY } from './testing/forgets-ready.ts';

const SLOTS = { name: 'dcm-slots', base: 'dcm-slots' } as const;

describe('explore finds a planted bug', () => {
  it('finds forgets-ready as haproxy-view within 10 runs and shrinks it to the known minimal log', async () => {
    const r = await explore({ seed: 1, runs: 10, strategies: [FORGETS_READY], allow: [] }, inThreadExploreExecutor());
    expect(r.findings.map((f) => [f.property, f.strategy])).toEqual([['haproxy-view', 'forgets-ready']]);
    expect(r.pass).toBe(false);
    const f = r.findings[0]!;
    const input = parseScenario(f.scenario, f.file);
    const events = [...input.events()];
    // The known minimal logs. The bug is in a runtime change that fills a server (`set server … state ready`
    // never sent): it needs a route (a route.upsert) and one endpoint of its service (an endpoints.set), the
    // later of the two after the initial sync (at 0 ms, which renders everything ready): the endpoint set at
    // runtime into the route's backend, or the route added at runtime onto a pool slot, which is filled with
    // the endpoint. One endpoint is enough and none is not: a backend with no server to ready serves what it
    // should. Nothing else takes part: 2 events, in either order.
    expect(events.map((e) => e.type).sort()).toEqual(['endpoints.set', 'route.upsert']);
    const route = events.find((e): e is Extract<InputEvent, { type: 'route.upsert' }> => e.type === 'route.upsert')!;
    const set = events.find((e): e is Extract<InputEvent, { type: 'endpoints.set' }> => e.type === 'endpoints.set')!;
    expect([set.namespace, set.service]).toEqual([route.route.namespace, route.route.service]);
    expect(set.endpoints).toHaveLength(1);
    expect(events[1]!.at).toBeGreaterThan(0);
    expect(f.after).toBe(2);
    // The finding is the planted bug's: dcm-slots itself serves the same log as it should.
    const bug = { createStrategy: FORGETS_READY.createStrategy! };
    expect(checkRun(input, bug).map((v) => v.property)).toContain('haproxy-view');
    expect(checkRun(input)).toEqual([]);
    // 1-minimal: without either event the property holds.
    const fails = violatesProperty(input, 'haproxy-view', bug);
    expect(fails(events)).toEqual(['property haproxy-view']);
    for (let i = 0; i < events.length; i++) expect(fails(events.filter((_, j) => j !== i))).toEqual([]);
  });

  it('--allow: an allowed finding is still listed, and the exploration passes', async () => {
    const allowed = await explore({ seed: 1, runs: 3, strategies: [FORGETS_READY], allow: ['haproxy-view@forgets-ready'] }, inThreadExploreExecutor());
    expect(allowed.findings.map((f) => [f.property, f.allowed])).toEqual([['haproxy-view', true]]);
    expect(allowed.pass).toBe(true);
    const other = await explore({ seed: 1, runs: 3, strategies: [FORGETS_READY], allow: ['haproxy-view@dcm-slots'] }, inThreadExploreExecutor());
    expect(other.pass).toBe(false);
  });
});

describe('explore is deterministic', () => {
  const plan = { seed: 1, runs: 4, strategies: [SLOTS], allow: [] };

  it('shards merged give the result of one run', async () => {
    const whole = await explore(plan, inThreadExploreExecutor());
    // Seed 1's first run has socket faults (refused, reset and restart at 5 %, 5 %, 1 %): a restart loses the
    // runtime changes, so dcm-slots serves other servers than it wants; some finding is needed for the test to
    // say anything.
    expect(whole.findings.length).toBeGreaterThan(0);
    const shards = await Promise.all([0, 1, 2].map(async (index) => ({ dir: `shard-${index}`, json: await explore({ ...plan, shard: { index, count: 3 } }, inThreadExploreExecutor()) })));
    expect(shards.map((s) => s.json.runIndices)).toEqual([[0, 3], [1], [2]]);
    expect(mergeExplore(shards)).toEqual(whole);
  });

  it('a stop between runs keeps a prefix: the result of fewer --runs', async () => {
    let asked = 0;
    const stopped = await explore({ ...plan, runs: undefined }, inThreadExploreExecutor(), { shouldStop: () => asked++ >= 2 });
    const two = await explore({ ...plan, runs: 2 }, inThreadExploreExecutor());
    expect(stopped.runIndices).toEqual([0, 1]);
    expect({ ...stopped, runsPlanned: 2 }).toEqual(two);
  });

  it('merge refuses shards of different explorations and overlapping ones', async () => {
    const a = await explore({ ...plan, runs: 2, shard: { index: 0, count: 2 } }, inThreadExploreExecutor());
    expect(() => mergeExplore([{ dir: 'a', json: a }, { dir: 'b', json: { ...a, seed: 2 } }])).toThrow(/its seed \(2\) differs/);
    expect(() => mergeExplore([{ dir: 'a', json: a }, { dir: 'b', json: a }])).toThrow(/run 0 was also made in a/);
    expect(() => mergeExplore([{ dir: 'a', json: a }])).toThrow(/1 of 2 runs are missing; shards 1\/2 are not among/);
  });
});

describe('the bundled finding, scenarios/examples/explore-add-del-stale-table.yaml', () => {
  const file = join(import.meta.dirname, '..', '..', 'scenarios', 'examples', 'explore-add-del-stale-table.yaml');

  it('violates haproxy-view under dcm-add-del only: a stale EndpointTable leaves a gone endpoint in route-4', () => {
    // docs/fidelity-config-manager.md, "Stale EndpointTables": route-3 and route-4 share svc-1, rendered at the
    // initial sync with its one pod (a single server, without `check`). At 3001 ms the scale to two pods adds
    // svc-1-2 to route-3 first (key order); HAProxy 2.6 refuses `enable health` on a server without check,
    // the walk stops there, and route-4's table keeps only svc-1-1. The runtime-api-error reload (start 3001,
    // reloadDurationMs 3000: serving at 6001) renders both pods in both backends. At 6002 ms the scale to zero
    // diffs each route's table: route-3's deletes both servers, route-4's stale one only svc-1-1, so
    // 10.128.0.3 (svc-1-2) stays in be_http:ns-1:route-4 while no endpoint is expected, and nothing reloads.
    expect(checkRun(loadRunInput(file))).toEqual([
      { property: 'haproxy-view', atMs: 6002, detail: 'ns-1/route-4 via http://route-4-ns-1.apps.example.com/: backend be_http:ns-1:route-4 serves [10.128.0.3:8080], expected []' },
    ]);
    for (const strategy of ['dcm-slots', 'reload-always']) expect(checkRun(loadRunInput(file, { set: { 'router.strategy': strategy } }))).toEqual([]);
  });
});
