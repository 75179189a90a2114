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
  /**
   * The running step's place among the steps due at `nowUs`: -1 for an input (inputs come first), else the
   * timer's place in the scheduling order. With `reserve`, a component that keeps an arrival to itself
   * (a fast-path advert) can tell whether it would already have fired.
   */
  readonly nowSeq: number;
  /** Take a place in the scheduling order now, for a timer that `atReserved` may schedule later. */
  reserve(): number;
  /** `at`, firing among same-time timers in the place `reserve` took. */
  atReserved(atUs: number, seq: number, fn: () => Step): TimerHandle;
}

export const US_PER_MS = 1000;

export function msToUs(ms: number): number {
  return Math.round(ms * US_PER_MS);
}

export function usToMs(us: number): number {
  return us / US_PER_MS;
}
