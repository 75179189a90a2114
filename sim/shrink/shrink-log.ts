import type { InputEvent } from '../../core/events.ts';
import { InputError } from '../eventlog/input-error.ts';
import { runOne } from '../run.ts';
import type { RunInput } from '../run-input.ts';
import { cutEndpoints } from './cut-endpoints.ts';
import { ddmin } from './ddmin.ts';
import { dropPairs } from './drop-pairs.ts';
import { mergeSpans } from './merge-spans.ts';
import { failureOf, sameFailure, type BaselineCheck } from './failure.ts';
import type { PassResult, Probe } from './probe.ts';
import { pullTimesTogether } from './pull-times.ts';
import { simplifyEvents } from './simplify-events.ts';

export interface ShrinkOptions {
  baseline?: BaselineCheck;
  /**
   * After every run: runs so far, the events and endpoints of the smallest failing log known, and the events
   * of the log just run (`tried`).
   */
  onProgress?: (p: { runs: number; events: number; endpoints: number; tried: number }) => void;
  /** Asked before each run; true stops with the smallest failing log found so far. */
  shouldStop?: () => boolean | Promise<boolean>;
  /**
   * How a log fails, in place of `failureWith(input, events, baseline)`: `routerbench explore` judges its
   * own properties (sim/explore/properties.ts). Must be deterministic; [] means the log passes.
   */
  failureOf?: (events: readonly InputEvent[]) => string[];
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
 * same metrics regressed (settings, seed, budgets and cluster as given). Rounds of: whole events by ddmin,
 * then pairs of events that undo each other (sim/shrink/drop-pairs.ts), then two spans of one fault merged
 * into one (sim/shrink/merge-spans.ts), then what is inside them (each
 * service's pods and each `endpoints.set`'s endpoints by ddmin, the optional parts of each event,
 * sim/shrink/simpler-forms.ts), then the gaps between its instants pulled together; until a round changes
 * nothing after its ddmin, so the result is 1-minimal in its events and in each event's endpoints, and no
 * pair, optional part of an event nor millisecond of a gap can go. A log the run refuses as input (an
 * event for what the cut removed, where that is an error) counts as not failing.
 */
export async function shrinkLog(input: RunInput, options: ShrinkOptions = {}): Promise<ShrinkResult> {
  const all = [...input.events()];
  const failureOfLog = options.failureOf ?? ((events: readonly InputEvent[]) => failureWith(input, events, options.baseline));
  const failure = failureOfLog(all);
  if (failure.length === 0) return { failed: false, events: all.length };
  let runs = 1;
  let best = all;
  const fails = (events: InputEvent[]): boolean => {
    runs++;
    let same: boolean;
    try {
      same = sameFailure(failureOfLog(events), failure);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      same = false;
    }
    if (same && (events.length < best.length || (events.length === best.length && endpointCount(events) < endpointCount(best)))) best = events;
    options.onProgress?.({ runs, events: best.length, endpoints: endpointCount(best), tried: events.length });
    return same;
  };
  const probe: Probe = { fails, shouldStop: () => options.shouldStop?.() ?? false };
  const stop = options.shouldStop === undefined ? {} : { shouldStop: options.shouldStop };
  let current = all;
  let stopped = false;
  rounds: for (;;) {
    const whole = await ddmin(current, fails, stop);
    current = whole.items;
    if (whole.stopped) {
      stopped = true;
      break;
    }
    let changed = false;
    for (const pass of INNER_PASSES) {
      const r = await pass(current, probe);
      current = r.events;
      changed ||= r.changed;
      if (r.stopped) {
        stopped = true;
        break rounds;
      }
    }
    // Less inside the events can make whole events removable that were not. The rounds end: each one that
    // changed something dropped a pair, an endpoint or an optional part, shortened a stall or a gap, and
    // none adds (a merge leaves one event fewer).
    if (!changed) break;
  }
  return { failed: true, failure, before: all.length, endpointsBefore: endpointCount(all), events: current, runs, stopped };
}

/** After whole events, in this order: pairs of events (a fault and its recovery), two spans of a fault merged, endpoints, optional parts, times. */
const INNER_PASSES: ReadonlyArray<(events: InputEvent[], probe: Probe) => Promise<PassResult>> = [dropPairs, mergeSpans, cutEndpoints, simplifyEvents, pullTimesTogether];
