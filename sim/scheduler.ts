/**
 * The engine's face to the components it drives: read the virtual clock, schedule and cancel timers.
 * Time is an integer count of microseconds; event logs speak milliseconds, VRRP skews need finer grain.
 */
export interface TimerHandle {
  cancelled: boolean;
}

/**
 * What a step (an input's handling, a timer) returns: nothing when it is done, or a promise of its end when
 * it waits on a real HAProxy (live mode); the simulation's steps are always done when they return.
 */
export type Step = void | Promise<void>;

export interface Scheduler {
  readonly nowUs: number;
  /** Fire `fn` at absolute time `atUs` (not before now). */
  at(atUs: number, fn: () => Step): TimerHandle;
  /** Fire `fn` after `delayUs` microseconds. */
  after(delayUs: number, fn: () => Step): TimerHandle;
  cancel(handle: TimerHandle): void;
}

export const US_PER_MS = 1000;

export function msToUs(ms: number): number {
  return Math.round(ms * US_PER_MS);
}

export function usToMs(us: number): number {
  return us / US_PER_MS;
}
