import type { InputEvent } from '../../core/events.ts';

/** What a shrink pass asks of the search: whether a log fails the same way (one run each), and whether to stop. */
export interface Probe {
  fails(events: InputEvent[]): boolean;
  /** Asked before each run; true stops the pass with the log it has (which still fails the same way). */
  shouldStop(): boolean | Promise<boolean>;
}

/** A pass's log (failing the same way as the one it was given), whether it differs from that one, and whether it was stopped. */
export interface PassResult {
  events: InputEvent[];
  changed: boolean;
  stopped: boolean;
}
