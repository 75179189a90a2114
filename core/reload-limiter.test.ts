import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { initialLimiterState, limiterAbsorbs, limiterFinished, limiterRequest, limiterTimer, type LimiterState } from './reload-limiter.ts';

/** States the limiter can reach: random requests, timer firings and reload ends from the initial state. */
const reachable = fc
  .tuple(
    fc.integer({ min: 1, max: 10_000 }),
    // Requests outnumber the rest, as under churn, so states with a request pending and a timer armed are common.
    fc.array(fc.tuple(fc.constantFrom('request', 'request', 'request', 'timer', 'finished'), fc.integer({ min: 0, max: 4000 })), { maxLength: 30 }),
  )
  .map(([intervalUs, steps]) => {
    let s: LimiterState = initialLimiterState;
    let now = 0;
    for (const [kind, dt] of steps) {
      now += dt;
      // Only what the runtime would do: a timer fires only when armed, a reload ends only when running.
      if (kind === 'timer' && s.timerAtUs !== null) now = Math.max(now, s.timerAtUs);
      if (kind === 'timer' && s.timerAtUs === null) continue;
      if (kind === 'finished' && !s.running) continue;
      s = (kind === 'request' ? limiterRequest : kind === 'timer' ? limiterTimer : limiterFinished)(s, now, intervalUs)[0];
    }
    return { s, now, intervalUs };
  });

describe('limiterAbsorbs', () => {
  test.prop([reachable, fc.integer({ min: 0, max: 20_000 }), fc.constantFrom(-1, 0, 1)], { numRuns: 1000 })(
    'says a request changes nothing only when limiterRequest returns the same state and no action',
    ({ s, now, intervalUs }, later, aroundDeadline) => {
      // Half the requests land next to an armed deadline (just before, at, just after), where it matters.
      const at = s.timerAtUs !== null && later % 2 === 0 ? Math.max(now, s.timerAtUs + aroundDeadline) : now + later;
      const [next, action] = limiterRequest(s, at, intervalUs);
      if (limiterAbsorbs(s, at, intervalUs)) {
        expect(next).toBe(s);
        expect(action.kind).toBe('none');
      }
    },
  );

  test('a request at the very deadline is not absorbed: it starts the reload at once', () => {
    // Interval 5000 µs, a reload started at 0 and finished, a request at 1000 arms the timer for 0 + 5000.
    const intervalUs = 5000;
    let s = limiterRequest(initialLimiterState, 0, intervalUs)[0];
    s = limiterFinished(s, 500, intervalUs)[0];
    const [armed, arm] = limiterRequest(s, 1000, intervalUs);
    expect(arm).toEqual({ kind: 'arm', atUs: 5000 });
    expect(limiterAbsorbs(armed, 4999, intervalUs)).toBe(true);
    // At 5000 itself input comes before the timer, and check() starts the reload there and then.
    expect(limiterAbsorbs(armed, 5000, intervalUs)).toBe(false);
    expect(limiterRequest(armed, 5000, intervalUs)[1]).toEqual({ kind: 'start' });
  });
});
