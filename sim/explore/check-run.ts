import type { InputEvent } from '../../core/events.ts';
import { InputError } from '../eventlog/input-error.ts';
import { runOne, type RunOptions } from '../run.ts';
import type { RunInput } from '../run-input.ts';
import { PropertyMonitor, type Violation } from './properties.ts';

/** One run of `input` (with `events` instead of its own, if given) judged by the explore properties. */
export function checkRun(input: RunInput, options: Pick<RunOptions, 'createStrategy'> = {}, events?: readonly InputEvent[]): Violation[] {
  const monitor = new PropertyMonitor(input);
  // Every input as a line: the liveness properties time the last heal from the last input applied.
  runOne(events === undefined ? input : { ...input, events: () => events }, undefined, [monitor], { ...options, trace: ['inputs'] });
  return monitor.result();
}

/**
 * What "fails the same way" means for a finding (sim/shrink/shrink-log.ts `failureOf`): the log still
 * violates `property`; other properties may come and go. A log the run refuses (an event for what the cut
 * removed) fails nothing.
 */
export function violatesProperty(input: RunInput, property: string, options: Pick<RunOptions, 'createStrategy'> = {}): (events: readonly InputEvent[]) => string[] {
  return (events) => {
    try {
      return checkRun(input, options, events).some((v) => v.property === property) ? [`property ${property}`] : [];
    } catch (err) {
      if (err instanceof InputError) return [];
      throw err;
    }
  };
}
