import { contextMasterDownUs, type VrrpContext } from './machine.ts';

/**
 * The hot path of a steady cluster: a BACKUP hears its master's advert and restarts its down timer.
 * `transition()` costs tens of µs; this costs nanoseconds. It handles exactly the adverts for which the
 * machine's BACKUP state takes its `backupAccepts` branch with no side effect but the deadline (and the
 * preempt_delay clock reset), and returns false for everything else, which must go through the machine:
 *
 * - priority > 0 (priority 0 sets the timer to Skew),
 * - the interval is the one already in use (v2: else dropped; v3: else the interval is re-learned),
 * - priority ≥ own, or preemption off (the preempt_delay window needs its clock: machine).
 *
 * Effect, identical to the machine's (checked by fast-path.test.ts on random sequences):
 * downDeadlineUs = now + masterDownUs, downTimerUs = masterDownUs; preemptAtUs = −1 when priority ≥ own. The machine's `armDownTimer`
 * action is a no-op for a simulation whose lazy down timer is already queued no later than the old deadline.
 *
 * `masterDownUs` must equal contextMasterDownUs(c) (callers cache it; it depends on priority and interval).
 */
export function fastBackupAdvert(
  c: VrrpContext,
  nowUs: number,
  priority: number,
  intervalUs: number,
  masterDownUs: number,
): boolean {
  if (!fastPathEligible(c, priority, intervalUs)) return false;
  if (priority >= c.priority) c.preemptAtUs = -1;
  c.downDeadlineUs = nowUs + masterDownUs;
  c.downTimerUs = masterDownUs;
  return true;
}

/** Whether fastBackupAdvert would take this advert, without changing anything. */
export function fastPathEligible(c: VrrpContext, priority: number, intervalUs: number): boolean {
  if (priority === 0 || intervalUs !== c.masterAdverIntervalUs || (intervalUs !== c.advertIntervalUs && c.version === 2)) return false;
  return priority >= c.priority || !c.preempt;
}

/**
 * START without a fault of an instance that is not a quick-starting owner, as the machine does it: INIT → BACKUP with the full down timer
 * (enterBackup). Returns the BACKUP context; the caller builds the snapshot with `machine.resolveState`, which
 * costs a fraction of a transition (10,000 instances start at once on the benchmark). Null when the machine
 * would do something else (owner → MASTER, fault → FAULT).
 */
export function startBackupContext(c: VrrpContext, nowUs: number, fault: boolean): VrrpContext | null {
  if (fault || (c.priority === 255 && c.initialMaster)) return null;
  const next = { ...c, masterAdverIntervalUs: c.advertIntervalUs, preemptAtUs: -1 };
  next.downTimerUs = contextMasterDownUs(next);
  next.downDeadlineUs = nowUs + next.downTimerUs;
  return next;
}
