/**
 * The router's coalescing, serialising reload rate limiter (RELOAD_INTERVAL), as a pure state machine.
 * - A change request runs the reload at once if at least `interval` has passed since the last START;
 *   otherwise one timer is armed for the remainder (lastStart + interval). More requests fold into it.
 * - Requests while a reload runs are remembered; when it finishes the limiter is re-checked, so they fold
 *   into one more run, again no sooner than lastStart + interval.
 * The runtime executes the returned action (start a reload now, or arm a timer at a time) and reports back.
 */
export interface LimiterState {
  readonly lastStartUs: number | null;
  readonly running: boolean;
  readonly pending: boolean;
  /** The one armed callback, if any. */
  readonly timerAtUs: number | null;
}

export type LimiterAction = { kind: 'none' } | { kind: 'start' } | { kind: 'arm'; atUs: number };

export const initialLimiterState: LimiterState = { lastStartUs: null, running: false, pending: false, timerAtUs: null };

const NONE: LimiterAction = { kind: 'none' };
const START: LimiterAction = { kind: 'start' };

/** A change was registered. */
export function limiterRequest(s: LimiterState, nowUs: number, intervalUs: number): [LimiterState, LimiterAction] {
  return check(s.pending ? s : { ...s, pending: true }, nowUs, intervalUs);
}

/**
 * Whether a request at `nowUs` would change nothing: one is already pending, and either a reload is running
 * (it re-checks when it finishes) or the timer is armed for the one deadline there can be, still ahead.
 * Under churn nearly every request is such a repeat, and the caller can then skip `limiterRequest` and the
 * result it makes.
 */
export function limiterAbsorbs(s: LimiterState, nowUs: number, intervalUs: number): boolean {
  if (!s.pending) return false;
  if (s.running) return true;
  return s.lastStartUs !== null && s.timerAtUs === s.lastStartUs + intervalUs && s.timerAtUs > nowUs;
}

/** The armed timer fired. */
export function limiterTimer(s: LimiterState, nowUs: number, intervalUs: number): [LimiterState, LimiterAction] {
  return check({ ...s, timerAtUs: null }, nowUs, intervalUs);
}

/** The running reload finished. */
export function limiterFinished(s: LimiterState, nowUs: number, intervalUs: number): [LimiterState, LimiterAction] {
  return check({ ...s, running: false }, nowUs, intervalUs);
}

function check(s: LimiterState, nowUs: number, intervalUs: number): [LimiterState, LimiterAction] {
  if (s.running || !s.pending) return [s, NONE];
  const dueUs = s.lastStartUs === null ? nowUs : s.lastStartUs + intervalUs;
  if (dueUs > nowUs) {
    // One timer only: re-arming computes the same deadline, since it depends on lastStart alone.
    if (s.timerAtUs === dueUs) return [s, NONE];
    return [{ ...s, timerAtUs: dueUs }, { kind: 'arm', atUs: dueUs }];
  }
  return [{ lastStartUs: nowUs, running: true, pending: false, timerAtUs: s.timerAtUs }, START];
}
