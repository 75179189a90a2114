import { fc, test } from '@fast-check/vitest';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../../core/endpoint.ts';
import type { InputEvent } from '../../core/events.ts';
import { loadRunInput } from '../load-input.ts';
import type { RunInput } from '../run-input.ts';
import { defaultSettings } from '../settings.ts';
import { failureWith, shrinkLog } from './shrink-log.ts';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'scenarios', 'examples', 'slots-burst.jsonl');

describe('shrinkLog', () => {
  it('cuts the bundled slots-burst log to the route and a scale-up one pod past its slots', async () => {
    const input = loadRunInput(EXAMPLE);
    const all = [...input.events()];
    const r = await shrinkLog(input);
    if (!r.failed) throw new Error('the example passes');
    // Under dcm-slots a backend has router.maxDynamicServers (5) dynamic slots besides its pods: every scale
    // change between 2 and 3 pods fits, the one set of s1 to 9 pods does not and reloads (reloads.total 2 >
    // 1). That set needs the route whose backend it fills; nothing else takes part. Of its 9 pods, 6 are
    // left: the route's backend has no pod before it, so 5 fit the slots and a 6th is the one too many.
    // Endpoints before: 6 sets of 2 at 0 s, then 6 rounds of 3 services at 3,2,3,2,3,2 pods with s1's 4th
    // round at 9 instead of 2: 12 + (9 + 6 + 9 + 13 + 9 + 6) = 58.
    const burst = all.find((e) => e.type === 'endpoints.set' && e.endpoints.length === 9)!;
    const route = all.find((e) => e.type === 'route.upsert' && e.route.service === 's1')!;
    expect(r).toMatchObject({ failure: ['budget reloads.total <= 1'], before: 24, endpointsBefore: 58, stopped: false });
    expect(r.events).toHaveLength(2);
    expect(r.events[0]).toEqual(route);
    const cut = r.events[1]!;
    if (cut.type !== 'endpoints.set' || burst.type !== 'endpoints.set') throw new Error('not an endpoints.set');
    expect({ ...cut, endpoints: [] }).toEqual({ ...burst, endpoints: [] });
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

/** A small churn log: three services scaled at random, some routes, on dcm-slots with one budget. */
const eventArb = fc.oneof(
  fc.record({ kind: fc.constant('route' as const), s: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('set' as const), s: fc.integer({ min: 0, max: 2 }), n: fc.integer({ min: 0, max: 8 }) }),
  fc.record({ kind: fc.constant('delete' as const), s: fc.integer({ min: 0, max: 2 }) }),
);

function logInput(steps: ReadonlyArray<{ kind: 'route' | 'set' | 'delete'; s: number; n?: number }>, budget: string): RunInput {
  const endpoints = (s: number, n: number): Endpoint[] => Array.from({ length: n }, (_, i) => ({ ip: `10.128.${s}.${i + 1}`, port: 8080, name: `p${s}-${i + 1}` }));
  const events: InputEvent[] = steps.map((st, i) => {
    const at = i * 10_000;
    if (st.kind === 'route') return { at, type: 'route.upsert', route: { namespace: 'shop', name: `r${st.s}`, host: `r${st.s}.apps.example.com`, service: `s${st.s}` } };
    if (st.kind === 'delete') return { at, type: 'route.delete', namespace: 'shop', name: `r${st.s}` };
    return { at, type: 'endpoints.set', namespace: 'shop', service: `s${st.s}`, endpoints: endpoints(st.s, st.n!) };
  });
  const settings = defaultSettings();
  settings.router.strategy = 'dcm-slots';
  settings.router.maxDynamicServers = 2;
  settings.sim.settleMs = 10_000;
  return { name: 'prop', source: 'generated', settings, budgets: [budget], events: () => events, reproduce: 'test' };
}

describe('shrinkLog on random small failing logs', () => {
  test.prop([fc.array(eventArb, { minLength: 1, maxLength: 8 }), fc.constantFrom('reloads.total <= 1', 'reloads.total <= 2', 'runtimeApi.commands <= 4')], { numRuns: 15 })(
    'gives a log that fails the same way and is 1-minimal in events and endpoints',
    async (steps, budget) => {
      const input = logInput(steps, budget);
      const all = [...input.events()];
      const failure = failureWith(input, all);
      fc.pre(failure.length > 0);
      const r = await shrinkLog(input);
      if (!r.failed) throw new Error('the input fails');
      expect(r.failure).toEqual(failure);
      expect(failureWith(input, r.events)).toEqual(failure);
      for (let i = 0; i < r.events.length; i++) expect(failureWith(input, r.events.filter((_, j) => j !== i))).not.toEqual(failure);
      // 1-minimal inside events too: no single endpoint of any endpoints.set can go.
      r.events.forEach((e, i) => {
        if (e.type !== 'endpoints.set') return;
        for (let k = 0; k < e.endpoints.length; k++) {
          const fewer = r.events.map((x, j) => (j === i ? { ...e, endpoints: e.endpoints.filter((_, m) => m !== k) } : x));
          expect(failureWith(input, fewer)).not.toEqual(failure);
        }
      });
    },
  );
});
