import type { InputEvent } from '../../core/events.ts';
import type { PassResult, Probe } from './probe.ts';

/**
 * Times pulled together: each gap between two successive instants of the log (and the one before its first
 * event, from time 0), first to last, made as small as still fails the same way by moving that instant and
 * every later event earlier together. Zero is tried first (the events then share an instant, in file order);
 * else the gap is bisected down to the millisecond, keeping the smallest that failed. Order is kept and times
 * only decrease, so the log stays non-decreasing and within its run's duration.
 */
export async function pullTimesTogether(events: InputEvent[], probe: Probe): Promise<PassResult> {
  let current = events;
  let changed = false;
  let i = 0;
  while (i < current.length) {
    const gap = current[i]!.at - (i === 0 ? 0 : current[i - 1]!.at);
    if (gap > 0) {
      const base = current;
      const from = i;
      const pulled = (by: number): InputEvent[] => base.map((e, j) => (j >= from ? { ...e, at: e.at - by } : e));
      // The gap as it is fails; `lo` is the largest gap known to pass.
      let hi = gap;
      let lo = -1;
      while (hi - lo > 1) {
        if (await probe.shouldStop()) return { events: hi < gap ? pulled(gap - hi) : base, changed: changed || hi < gap, stopped: true };
        const mid = lo < 0 ? 0 : lo + Math.floor((hi - lo) / 2);
        if (probe.fails(pulled(gap - mid))) hi = mid;
        else lo = mid;
      }
      if (hi < gap) {
        current = pulled(gap - hi);
        changed = true;
      }
    }
    const at = current[i]!.at;
    while (i < current.length && current[i]!.at === at) i++;
  }
  return { events: current, changed, stopped: false };
}
