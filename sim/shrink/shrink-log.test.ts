import { fc, test } from '@fast-check/vitest';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../../core/endpoint.ts';
import type { InputEvent } from '../../core/events.ts';
import { loadRunInput } from '../load-input.ts';
import type { RunInput } from '../run-input.ts';
import { runOne } from '../run.ts';
import { defaultSettings, type Settings } from '../settings.ts';
import type { BaselineCheck } from './failure.ts';
import { failureWith, shrinkLog } from './shrink-log.ts';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'scenarios', 'examples', 'slots-burst.jsonl');

describe('shrinkLog', () => {
  it('cuts the bundled slots-burst log to the route and a scale-up one pod past its slots', async () => {
    const input = loadRunInput(EXAMPLE);
    const all = [...input.events()];
    const r = await shrinkLog(input);
    if (!r.failed) throw new Error('the example passes');
    // Under dcm-slots a backend has router.maxDynamicServers (5) dynamic slots besides its pods: every scale
    // change between 2 and 3 pods fits, the one set of s1 to 9 pods does not and reloads for
    // dynamic-slots-exhausted (the budget allows none). That set needs the route whose backend it fills;
    // nothing else takes part. Of its 9 pods, 6 are left: the route's backend has no pod before it, so 5 fit
    // the slots and a 6th is the one too many.
    // Endpoints before: 6 sets of 2 at 0 s, then 6 rounds of 3 services at 3,2,3,2,3,2 pods with s1's 4th
    // round at 9 instead of 2: 12 + (9 + 6 + 9 + 13 + 9 + 6) = 58.
    // Times pulled together: the route stays at 0; the set moves from 110 s to 1001 ms, the first millisecond
    // after the initial reload (0 to router.reloadDurationMs = 1000 ms; an input at 1000 ms is applied before
    // that instant's timers, sim/engine.ts). Earlier, the manager refuses the change while the reload runs
    // and asks for another one for reload-in-progress: a reload, but not the budget's reason.
    const burst = all.find((e) => e.type === 'endpoints.set' && e.endpoints.length === 9)!;
    const route = all.find((e) => e.type === 'route.upsert' && e.route.service === 's1')!;
    expect(r).toMatchObject({ failure: ['budget reloads.requests.dynamic-slots-exhausted <= 0'], before: 24, endpointsBefore: 58, stopped: false });
    expect(r.events).toHaveLength(2);
    expect(r.events[0]).toEqual(route);
    const cut = r.events[1]!;
    if (cut.type !== 'endpoints.set' || burst.type !== 'endpoints.set') throw new Error('not an endpoints.set');
    expect({ ...cut, endpoints: [] }).toEqual({ ...burst, at: 1001, endpoints: [] });
    expect(cut.endpoints).toHaveLength(6);
    for (const ep of cut.endpoints) expect(burst.endpoints).toContainEqual(ep);
    expect(await shrinkLog(input)).toEqual(r);
  });

  it('says when the input passes', async () => {
    expect(await shrinkLog(loadRunInput(EXAMPLE, { set: { 'router.maxDynamicServers': '9' } }))).toEqual({ failed: false, events: 24 });
  });

  it('stops when asked with a log that still fails the same way', async () => {
    const input = loadRunInput(EXAMPLE);
    let runs = 0;
    const r = await shrinkLog(input, { onProgress: (p) => (runs = p.runs), shouldStop: () => runs >= 4 });
    if (!r.failed) throw new Error('the example passes');
    expect(r.stopped).toBe(true);
    expect(r.runs).toBe(4);
    expect(failureWith(input, r.events)).toEqual(r.failure);
  });
});

/**
 * Three services behind routes on dcm-add-del, each set to 3 pods at 0 and again every 20 s; in the third
 * round s1's endpoints are deleted instead, and its next set brings the same 3 pods back. s1's route has a
 * path and edge TLS.
 */
function staleTableLog(): InputEvent[] {
  const events: InputEvent[] = [];
  for (let s = 0; s < 3; s++) {
    const tls = s === 1 ? { path: '/cart', tls: { termination: 'edge' as const, insecureEdgeTerminationPolicy: 'Redirect' as const } } : {};
    events.push({ at: 0, type: 'route.upsert', route: { namespace: 'shop', name: `r${s}`, host: `r${s}.apps.example.com`, service: `s${s}`, ...tls } });
    events.push({ at: 0, type: 'endpoints.set', namespace: 'shop', service: `s${s}`, endpoints: pods(s, 3) });
  }
  for (let k = 1; k <= 6; k++) {
    for (let s = 0; s < 3; s++) {
      const at = k * 20_000 + s * 1000;
      if (s === 1 && k === 3) events.push({ at, type: 'endpoints.delete', namespace: 'shop', service: 's1' });
      else events.push({ at, type: 'endpoints.set', namespace: 'shop', service: `s${s}`, endpoints: pods(s, 3) });
    }
  }
  return events;
}

function pods(s: number, n: number): Endpoint[] {
  return Array.from({ length: n }, (_, i) => ({ ip: `10.128.${s}.${i + 1}`, port: 8080, name: `p${s}-${i + 1}` }));
}

function inputOf(events: readonly InputEvent[], strategy: Settings['router']['strategy'], budgets: string[] = []): RunInput {
  const settings = defaultSettings();
  settings.router.strategy = strategy;
  return { name: 'stale-table', source: 'test', settings, budgets, events: () => events, reproduce: 'test' };
}

/** Whether every single event of the log is needed: the log without any one of them fails otherwise. */
function expectOneMinimal(input: RunInput, events: readonly InputEvent[], failure: readonly string[], baseline?: BaselineCheck): void {
  for (let i = 0; i < events.length; i++) expect(failureWith(input, events.filter((_, j) => j !== i), baseline)).not.toEqual(failure);
}

describe('shrinkLog on failures other than a budget', () => {
  it('an invariant: the stale EndpointTable of dcm-add-del cut to the route, a pod, its delete and its return', async () => {
    const input = inputOf(staleTableLog(), 'dcm-add-del');
    const r = await shrinkLog(input);
    if (!r.failed) throw new Error('the log passes');
    // docs/fidelity-config-manager.md, dcm-add-del: an endpoints.delete removes the servers without touching
    // the route's EndpointTable, so the same pods set again before a reload are "unchanged" and the backend
    // stays empty while the desired state has them: haproxy-view fails (and with it the default budget
    // invariants.violations == 0). It takes the route, a first set (the table), the delete and the set again;
    // one pod is enough (cut from both sets at once), and nothing of the other services. The route loses its
    // path and TLS: plain HTTP fails the same way.
    expect(r.failure).toEqual(['budget invariants.violations == 0', 'invariant haproxy-view']);
    const pod = pods(1, 1);
    expect(r.events.map((e) => e.type)).toEqual(['route.upsert', 'endpoints.set', 'endpoints.delete', 'endpoints.set']);
    expect(r.events[0]).toEqual({ at: 0, type: 'route.upsert', route: { namespace: 'shop', name: 'r1', host: 'r1.apps.example.com', service: 's1' } });
    // Times: the first set stays at 0 (the initial sync: the route's table is {pod} when the initial reload
    // starts). The delete moves from 61 s to 1 ms, inside the initial reload (0 to 1000 ms): refused, it leaves
    // the table as it was and asks for a reload, which starts at 5 s (RELOAD_INTERVAL) and writes the backend
    // without the pod. The set comes back at 6001 ms, the first millisecond after that reload (an input at
    // 6000 ms goes before that instant's timers, and a change while it runs is refused and reloads again):
    // the table still says {pod}, so nothing is added.
    expect(r.events[1]).toEqual({ at: 0, type: 'endpoints.set', namespace: 'shop', service: 's1', endpoints: pod });
    expect(r.events[2]).toEqual({ at: 1, type: 'endpoints.delete', namespace: 'shop', service: 's1' });
    expect(r.events[3]).toEqual({ at: 6001, type: 'endpoints.set', namespace: 'shop', service: 's1', endpoints: pod });
    expect(failureWith(input, r.events)).toEqual(r.failure);
    expectOneMinimal(input, r.events, r.failure);
  });

  it('cluster events: a partition cut to one node, pulled to time 0, and its heal kept', async () => {
    // vrrp-partition-heal: infra-1 and infra-2 cannot hear each other from 60 s to 90 s, and both are master
    // for about 27 s (the scenario's own budgets allow that: splitBrainMs <= 28400, flaps == 1). A budget of
    // no split brain at all fails on it.
    const input = loadRunInput(join(import.meta.dirname, '..', '..', 'scenarios', 'vrrp-partition-heal.yaml'), { budgets: ['failover.splitBrainMs == 0'] });
    const r = await shrinkLog(input);
    if (!r.failed) throw new Error('the scenario passes');
    expect(r.failure).toEqual(['budget failover.splitBrainMs == 0']);
    // With two nodes, infra-2 alone in a group is the same partition (the nodes in no group form the other).
    // The heal stays: without it the split brain lasts to the end, past the scenario's 28,400 ms, a second
    // failing budget. Both pulled earlier: the partition to 0, the heal closer than the 30 s it was, to the
    // least gap that still splits.
    expect(r.events.map((e) => e.type)).toEqual(['network.partition', 'network.heal']);
    expect(r.events[0]).toEqual({ at: 0, type: 'network.partition', groups: [['infra-2']] });
    expect(r.events[1]!.at).toBeLessThan(30_000);
    expect(failureWith(input, r.events)).toEqual(r.failure);
    // One millisecond less for the heal, and the run passes or fails otherwise.
    expect(failureWith(input, [r.events[0]!, { ...r.events[1]!, at: r.events[1]!.at - 1 }])).not.toEqual(r.failure);
  });

  it('a baseline regression: the burst against a baseline run with slots enough, cut to the same two events', async () => {
    const plain = loadRunInput(EXAMPLE);
    const all = [...plain.events()];
    // The example without its budget, so that the comparison alone fails.
    const input: RunInput = { ...plain, budgets: [] };
    const roomy = loadRunInput(EXAMPLE, { set: { 'router.maxDynamicServers': '9' } });
    const baseline: BaselineCheck = { report: runOne({ ...roomy, budgets: [] }).report, tolerances: [] };
    const r = await shrinkLog(input, { baseline });
    if (!r.failed) throw new Error('no regression');
    // With 9 slots the burst fits: 1 reload (initial). With 5 it does not: a second one for
    // dynamic-slots-exhausted, so reloads.total (2 > 1), the reason's count (1 > 0) and the rate per hour
    // (more reloads in the same simulated time) regress.
    expect(r.failure).toEqual(['baseline reloads.perHour', 'baseline reloads.requests.dynamic-slots-exhausted', 'baseline reloads.total']);
    expect(r.events.map((e) => e.type)).toEqual(['route.upsert', 'endpoints.set']);
    expect(r.events[0]).toEqual(all.find((e) => e.type === 'route.upsert' && e.route.service === 's1'));
    expect(failureWith(input, r.events, baseline)).toEqual(r.failure);
    expectOneMinimal(input, r.events, r.failure, baseline);
  });
});

/**
 * A small churn log: three services scaled at random, routes added and deleted, endpoints deleted, at gaps
 * of 0, 1, 5 or 20 s; on dcm-slots with 2 slots or on dcm-add-del (whose stale tables break haproxy-view),
 * judged by one budget or by the invariants alone.
 */
const stepArb = (services: number) =>
  fc.record({
    gapMs: fc.constantFrom(0, 1000, 5000, 20_000),
    what: fc.oneof(
      fc.record({ kind: fc.constant('route' as const), s: fc.integer({ min: 0, max: services }) }),
      fc.record({ kind: fc.constant('set' as const), s: fc.integer({ min: 0, max: services }), n: fc.integer({ min: 0, max: 8 }) }),
      fc.record({ kind: fc.constant('delete' as const), s: fc.integer({ min: 0, max: services }) }),
      fc.record({ kind: fc.constant('gone' as const), s: fc.integer({ min: 0, max: services }) }),
    ),
  });
type Step = { gapMs: number; what: { kind: 'route' | 'set' | 'delete' | 'gone'; s: number; n?: number } };

function logInput(steps: readonly Step[], strategy: 'dcm-slots' | 'dcm-add-del', budget: string | undefined): RunInput {
  let at = 0;
  const events: InputEvent[] = steps.map(({ gapMs, what: st }) => {
    at += gapMs;
    if (st.kind === 'route') return { at, type: 'route.upsert', route: { namespace: 'shop', name: `r${st.s}`, host: `r${st.s}.apps.example.com`, service: `s${st.s}` } };
    if (st.kind === 'delete') return { at, type: 'route.delete', namespace: 'shop', name: `r${st.s}` };
    if (st.kind === 'gone') return { at, type: 'endpoints.delete', namespace: 'shop', service: `s${st.s}` };
    return { at, type: 'endpoints.set', namespace: 'shop', service: `s${st.s}`, endpoints: pods(st.s, st.n!) };
  });
  const settings = defaultSettings();
  settings.router.strategy = strategy;
  settings.router.maxDynamicServers = 2;
  settings.sim.settleMs = 10_000;
  return { name: 'prop', source: 'generated', settings, budgets: budget === undefined ? [] : [budget], events: () => events, reproduce: 'test' };
}

describe('shrinkLog on random small failing logs', () => {
  test.prop(
    [
      fc.array(stepArb(2), { minLength: 1, maxLength: 8 }),
      fc.constantFrom('dcm-slots' as const, 'dcm-add-del' as const),
      fc.constantFrom(undefined, 'reloads.total <= 1', 'reloads.total <= 2', 'runtimeApi.commands <= 4'),
    ],
    { numRuns: 15 },
  )('gives a log that fails the same way and is 1-minimal in events and endpoints', async (steps, strategy, budget) => {
    await expectShrunk(logInput(steps, strategy, budget));
  });

  // One service on dcm-add-del, judged by the invariants alone: its route and 2 pods at 0 (the initial sync
  // fills the route's table), then its endpoints set to 1 to 3 pods, deleted, or its route upserted again, at
  // gaps of 0 to 2 s. A delete followed by the pods the table holds is a stale table (about 1 log in 6).
  const churnArb = fc.record({ gapMs: fc.constantFrom(0, 1000, 2000), kind: fc.constantFrom('set' as const, 'set' as const, 'gone' as const, 'route' as const), n: fc.integer({ min: 1, max: 3 }) });
  test.prop([fc.array(churnArb, { minLength: 2, maxLength: 6 })], { numRuns: 8 })('an invariant failure too', async (steps) => {
    const input = logInput([{ gapMs: 0, what: { kind: 'route', s: 0 } }, { gapMs: 0, what: { kind: 'set', s: 0, n: 2 } }, ...steps.map((st) => ({ gapMs: st.gapMs, what: { kind: st.kind, s: 0, n: st.n } }))], 'dcm-add-del', undefined);
    fc.pre(failureWith(input, [...input.events()]).includes('invariant haproxy-view'));
    await expectShrunk(input);
  });
});

/** shrinkLog's result fails the same way, is no longer, keeps time order, and is 1-minimal in events and endpoints. */
async function expectShrunk(input: RunInput): Promise<void> {
  const all = [...input.events()];
  const failure = failureWith(input, all);
  fc.pre(failure.length > 0);
  const r = await shrinkLog(input);
  if (!r.failed) throw new Error('the input fails');
  expect(r.failure).toEqual(failure);
  expect(r.events.length).toBeLessThanOrEqual(all.length);
  expect(failureWith(input, r.events)).toEqual(failure);
  for (let i = 1; i < r.events.length; i++) expect(r.events[i]!.at).toBeGreaterThanOrEqual(r.events[i - 1]!.at);
  expectOneMinimal(input, r.events, failure);
  // 1-minimal inside events too: no single endpoint of any endpoints.set can go.
  r.events.forEach((e, i) => {
    if (e.type !== 'endpoints.set') return;
    for (let k = 0; k < e.endpoints.length; k++) {
      const fewer = r.events.map((x, j) => (j === i ? { ...e, endpoints: e.endpoints.filter((_, m) => m !== k) } : x));
      expect(failureWith(input, fewer)).not.toEqual(failure);
    }
  });
}
