import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { STRATEGY_NAMES } from '../../core/strategy.ts';
import { FEATURES, drawSwarm, swarmInput, swarmScenarioText } from './swarm.ts';
import { livenessBoundMs } from './liveness-bound.ts';

describe('drawSwarm', () => {
  test.prop([fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.constantFrom(...STRATEGY_NAMES)], { numRuns: 25 })(
    'the same seed gives the same scenario bytes, a valid scenario whose features are known ones',
    (seed, strategy) => {
      const a = swarmScenarioText(drawSwarm(seed), strategy);
      expect(swarmScenarioText(drawSwarm(seed), strategy)).toBe(a);
      const input = swarmInput(drawSwarm(seed), strategy);
      expect(input.settings.seed).toBe(seed);
      expect(input.settings.router.strategy).toBe(strategy);
      for (const f of drawSwarm(seed).features) expect(FEATURES).toContain(f);
      // The liveness phase is at least the bound (more with stalls, which end downMs after they start).
      expect(input.settings.sim.settleMs).toBeGreaterThanOrEqual(livenessBoundMs(input));
    },
  );

  it('turns features on and off across seeds: each one is on in some runs and off in others', () => {
    const on = new Map<string, number>();
    const n = 200;
    for (let s = 0; s < n; s++) for (const f of drawSwarm(s).features) on.set(f, (on.get(f) ?? 0) + 1);
    for (const f of FEATURES) {
      expect.soft(on.get(f) ?? 0, f).toBeGreaterThan(0);
      expect.soft(on.get(f) ?? 0, f).toBeLessThan(n);
    }
  });

  it('strategies see the same workload: only router.strategy differs', () => {
    const a = swarmScenarioText(drawSwarm(7), 'dcm-slots');
    const b = swarmScenarioText(drawSwarm(7), 'dcm-add-del');
    expect(a.replace('strategy: dcm-slots', 'strategy: dcm-add-del')).toBe(b);
  });
});
