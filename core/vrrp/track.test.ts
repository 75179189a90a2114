import { describe, expect, test } from 'vitest';
import { applyCheckResult, effectivePriority, initialTrackStatus, type TrackSpec } from './track.ts';

const spec = (over: Partial<TrackSpec> = {}): TrackSpec => ({ script: 's', weight: 0, rise: 1, fall: 1, intervalMs: 1000, ...over });

describe('tracked scripts', () => {
  test('fall consecutive failures go KO, rise consecutive successes come back', () => {
    const s = spec({ fall: 3, rise: 2 });
    let st = initialTrackStatus();
    for (const r of [false, false]) st = applyCheckResult(s, st, r);
    expect(st.ok).toBe(true);
    st = applyCheckResult(s, st, true); // a success breaks the streak
    for (const r of [false, false, false]) st = applyCheckResult(s, st, r);
    expect(st.ok).toBe(false);
    st = applyCheckResult(s, st, true);
    expect(st.ok).toBe(false);
    st = applyCheckResult(s, st, true);
    expect(st.ok).toBe(true);
  });

  test('weight 0 KO means FAULT; weights move the priority, clamped to 1..254; an owner stays 255', () => {
    const specs = [spec({ weight: 0 }), spec({ weight: 20 }), spec({ weight: -50 })];
    const ok = { ok: true, streak: 0 };
    const ko = { ok: false, streak: 0 };
    expect(effectivePriority(100, specs, [ok, ok, ok])).toEqual({ priority: 120, fault: false });
    expect(effectivePriority(100, specs, [ko, ko, ko])).toEqual({ priority: 50, fault: true });
    expect(effectivePriority(250, specs, [ok, ok, ok])).toEqual({ priority: 254, fault: false });
    expect(effectivePriority(30, specs, [ok, ko, ko])).toEqual({ priority: 1, fault: false });
    expect(effectivePriority(255, specs, [ok, ok, ko]).priority).toBe(255);
  });
});
