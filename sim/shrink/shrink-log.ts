import type { InputEvent } from '../../core/events.ts';
import { InputError } from '../eventlog/input-error.ts';
import { runOne } from '../run.ts';
import type { RunInput } from '../run-input.ts';
import { ddmin } from './ddmin.ts';
import { failureOf, sameFailure, type BaselineCheck } from './failure.ts';

export interface ShrinkOptions {
  baseline?: BaselineCheck;
  /** After every run: runs so far, and the events and endpoints of the smallest failing log known. */
  onProgress?: (p: { runs: number; events: number; endpoints: number }) => void;
  /** Asked before each run; true stops with the smallest failing log found so far. */
  shouldStop?: () => boolean | Promise<boolean>;
}

export type ShrinkResult =
  | { failed: false; events: number }
  | {
      failed: true;
      /** The failure's lines (sim/shrink/failure.ts), the same for the input and the result. */
      failure: string[];
      before: number;
      /** Endpoints over every `endpoints.set` of the input. */
      endpointsBefore: number;
      events: InputEvent[];
      /** Every run, the input's first one included. */
      runs: number;
      /** Stopped before the result was 1-minimal (Ctrl-C): it still fails the same way. */
      stopped: boolean;
    };

/** The failure of one run of the input with these events instead of its own. */
export function failureWith(input: RunInput, events: readonly InputEvent[], baseline?: BaselineCheck): string[] {
  return failureOf(runOne({ ...input, events: () => events }).report, baseline);
}

/** Endpoints over every `endpoints.set` of a log. */
export function endpointCount(events: readonly InputEvent[]): number {
  let n = 0;
  for (const e of events) if (e.type === 'endpoints.set') n += e.endpoints.length;
  return n;
}

/**
 * The input's events cut to a log that fails the same way: same budgets failed, same invariants violated,
 * same metrics regressed (settings, seed, budgets and cluster as given). First whole events by ddmin, then
 * the endpoints of each `endpoints.set` by ddmin in turn, again until neither removes anything: the result
 * is 1-minimal in its events and in each event's endpoints. A log the run refuses as input (an event for
 * what the cut removed, where that is an error) counts as not failing.
 */
export async function shrinkLog(input: RunInput, options: ShrinkOptions = {}): Promise<ShrinkResult> {
  const all = [...input.events()];
  const failure = failureWith(input, all, options.baseline);
  if (failure.length === 0) return { failed: false, events: all.length };
  let runs = 1;
  let best = all;
  const fails = (events: InputEvent[]): boolean => {
    runs++;
    let same: boolean;
    try {
      same = sameFailure(failureWith(input, events, options.baseline), failure);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      same = false;
    }
    if (same && (events.length < best.length || (events.length === best.length && endpointCount(events) < endpointCount(best)))) best = events;
    options.onProgress?.({ runs, events: best.length, endpoints: endpointCount(best) });
    return same;
  };
  const stop = options.shouldStop === undefined ? {} : { shouldStop: options.shouldStop };
  let current = all;
  let stopped = false;
  for (;;) {
    const whole = await ddmin(current, fails, stop);
    current = whole.items;
    if (whole.stopped) {
      stopped = true;
      break;
    }
    const inner = await shrinkEndpoints(current, fails, stop);
    current = inner.events;
    if (inner.stopped) {
      stopped = true;
      break;
    }
    // Fewer endpoints can make whole events removable that were not: the loop ends, since each round that
    // changed something removed at least one endpoint.
    if (!inner.changed) break;
  }
  return { failed: true, failure, before: all.length, endpointsBefore: endpointCount(all), events: current, runs, stopped };
}

/** Each `endpoints.set` in turn, its endpoints cut by ddmin with the rest of the log as it stands. */
async function shrinkEndpoints(
  events: InputEvent[],
  fails: (events: InputEvent[]) => boolean,
  stop: { shouldStop?: () => boolean | Promise<boolean> },
): Promise<{ events: InputEvent[]; changed: boolean; stopped: boolean }> {
  let current = events;
  let changed = false;
  for (let i = 0; i < current.length; i++) {
    const e = current[i]!;
    if (e.type !== 'endpoints.set' || e.endpoints.length === 0) continue;
    const base = current;
    const withEndpoints = (endpoints: typeof e.endpoints): InputEvent[] => base.map((x, j) => (j === i ? { ...e, endpoints } : x));
    const r = await ddmin(e.endpoints, (endpoints) => fails(withEndpoints(endpoints)), stop);
    if (r.items.length < e.endpoints.length) {
      current = withEndpoints(r.items);
      changed = true;
    }
    if (r.stopped) return { events: current, changed, stopped: true };
  }
  return { events: current, changed, stopped: false };
}
