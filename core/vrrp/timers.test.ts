import { describe, expect, test } from 'vitest';
import { effectiveAdvertIntervalUs, masterDownUs, skewUs } from './timers.ts';

describe('VRRP timers', () => {
  test('v2: Skew = (256 − p)/256 s whatever the interval; Master_Down = 3·A + Skew', () => {
    // priority 100: 156/256 s = 609,375 µs; A = 1 s → 3.609375 s (the reference's 3.609 s example)
    expect(skewUs(2, 100, 1_000_000)).toBe(609_375);
    expect(masterDownUs(2, 100, 1_000_000, 3)).toBe(3_609_375);
    // the interval does not scale the v2 skew: A = 2 s → 6 s + 0.609375 s
    expect(masterDownUs(2, 100, 2_000_000, 3)).toBe(6_609_375);
    // priority 254: 2/256 s = 7,812.5 µs, floored
    expect(skewUs(2, 254, 1_000_000)).toBe(7_812);
  });

  test('v3: Skew = (256 − p)·A/256 with A in centiseconds', () => {
    // A = 100 cs, p = 100: 156·100/256 cs = 60.9375 cs = 609,375 µs (same as v2 at 1 s)
    expect(skewUs(3, 100, 1_000_000)).toBe(609_375);
    // A = 50 cs: half of it
    expect(skewUs(3, 100, 500_000)).toBe(304_687);
    expect(masterDownUs(3, 100, 500_000, 3)).toBe(1_500_000 + 304_687);
  });

  test('down_timer_adverts replaces the 3', () => {
    expect(masterDownUs(2, 100, 1_000_000, 5)).toBe(5_609_375);
  });

  test('v2 carries whole seconds (rounded half up, never below 1 nor above 255), v3 centiseconds', () => {
    // keepalived's vrrp_complete_instance adds half a second, then drops the fraction: 1.5 s → 2 s, 1.4 s → 1 s.
    expect(effectiveAdvertIntervalUs(2, 1500)).toBe(2_000_000);
    expect(effectiveAdvertIntervalUs(2, 1400)).toBe(1_000_000);
    expect(effectiveAdvertIntervalUs(2, 300)).toBe(1_000_000);
    expect(effectiveAdvertIntervalUs(2, 300_000)).toBe(255_000_000);
    expect(effectiveAdvertIntervalUs(3, 300)).toBe(300_000);
    expect(effectiveAdvertIntervalUs(3, 1234)).toBe(1_230_000);
  });
});
