import type { InputEvent } from '../../core/events.ts';
import { InputError } from '../eventlog/input-error.ts';
import { runOne } from '../run.ts';
import type { RunInput } from '../run-input.ts';
import { ddmin } from './ddmin.ts';
import { failureOf, sameFailure, type BaselineCheck } from './failure.ts';

export interface ShrinkOptions {
  baseline?: BaselineCheck;
  /** After every run: runs so far and the size of the smallest failing log known. */
  onProgress?: (p: { runs: number; events: number }) => void;
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

/**
 * The input's events cut to a 1-minimal log that fails the same way: same budgets failed, same invariants
 * violated, same metrics regressed (settings, seed, budgets and cluster as given). A subset the engine
 * refuses as input (an event for what the cut removed, where that is an error) counts as not failing.
 */
export async function shrinkLog(input: RunInput, options: ShrinkOptions = {}): Promise<ShrinkResult> {
  const all = [...input.events()];
  const failure = failureWith(input, all, options.baseline);
  if (failure.length === 0) return { failed: false, events: all.length };
  const fails = (events: InputEvent[]): boolean => {
    try {
      return sameFailure(failureWith(input, events, options.baseline), failure);
    } catch (err) {
      if (err instanceof InputError) return false;
      throw err;
    }
  };
  const r = await ddmin(all, fails, {
    ...(options.shouldStop !== undefined && { shouldStop: options.shouldStop }),
    ...(options.onProgress !== undefined && { onProgress: (p: { tests: number; size: number }) => options.onProgress!({ runs: p.tests + 1, events: p.size }) }),
  });
  return { failed: true, failure, before: all.length, events: r.items, runs: r.tests + 1, stopped: r.stopped };
}
