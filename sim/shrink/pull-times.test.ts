import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../../core/events.ts';
import { pullTimesTogether } from './pull-times.ts';

const heal = (at: number): InputEvent => ({ at, type: 'network.heal' });
const times = (events: readonly InputEvent[]): number[] => events.map((e) => e.at);

describe('pullTimesTogether', () => {
  it('makes each gap, first to last, the smallest that still fails, and keeps the times non-decreasing', async () => {
    const tried: number[][] = [];
    // Fails while the second instant is at least 700 ms after the first and the last at least 40 ms after it.
    const fails = (events: InputEvent[]): boolean => {
      const t = times(events);
      tried.push(t);
      return t[2]! - t[0]! >= 700 && t[3]! - t[2]! >= 40;
    };
    const r = await pullTimesTogether([heal(5000), heal(5000), heal(9000), heal(20_000)], { fails, shouldStop: () => false });
    // The first instant goes to 0 (the gap before it can go); the second's gap bisects down to 700, the last's to 40.
    expect(times(r.events)).toEqual([0, 0, 700, 740]);
    expect(r).toMatchObject({ changed: true, stopped: false });
    // Each gap: 0 tried first, then a bisection of (0, gap]: 1 run for the first gap (0 fails), for 4000 ms
    // 1 + ceil(log2 4000) = 13 at most, for 11,000 ms 1 + 14 at most.
    expect(tried.length).toBeLessThanOrEqual(1 + 13 + 15);
    for (const t of tried) for (let i = 1; i < t.length; i++) expect(t[i]).toBeGreaterThanOrEqual(t[i - 1]!);
  });

  it('changes nothing when no gap can shrink, and stops when asked with a failing log', async () => {
    const events = [heal(0), heal(10), heal(30)];
    const fails = (e: InputEvent[]): boolean => e[1]!.at >= 10 && e[2]!.at - e[1]!.at >= 20;
    expect(await pullTimesTogether(events, { fails, shouldStop: () => false })).toEqual({ events, changed: false, stopped: false });
    let runs = 0;
    const loose = (e: InputEvent[]): boolean => (runs++, e[2]!.at >= 5);
    const r = await pullTimesTogether([heal(100), heal(200), heal(300)], { fails: loose, shouldStop: () => runs >= 2 });
    expect(r.stopped).toBe(true);
    expect(loose(r.events)).toBe(true);
  });
});
