import type { Scheduler, TimerHandle } from '../scheduler.ts';

/**
 * Lazy, grouped down timers: one queue entry per VIP, no later than the earliest deadline among its backups.
 * When it fires, the owner runs DOWN_TIMER for every backup whose deadline has come and re-arms at the new
 * earliest deadline; the rest are untouched, exactly as if each had its own timer re-armed to its deadline.
 * A steady VIP costs one queue operation per ~(down − interval).
 */
export class GroupedDownTimers {
  private readonly timers: (TimerHandle | null)[];
  private readonly timerAt: number[];
  private readonly handlers: (() => void)[];

  constructor(
    private readonly sched: Scheduler,
    vips: number,
    onDue: (vipIndex: number) => void,
  ) {
    this.timers = Array.from({ length: vips }, () => null);
    this.timerAt = Array.from({ length: vips }, () => 0);
    // One handler per VIP, made once: the timer is re-armed for the whole run.
    this.handlers = Array.from({ length: vips }, (_, vi) => () => {
      this.timers[vi] = null;
      onDue(vi);
    });
  }

  /** Make sure the VIP's entry fires no later than `atUs`. */
  arm(vi: number, atUs: number): void {
    const t = this.timers[vi];
    if (t && !t.cancelled && this.timerAt[vi]! <= atUs) return;
    if (t) this.sched.cancel(t);
    this.timerAt[vi] = atUs;
    this.timers[vi] = this.sched.at(atUs, this.handlers[vi]!);
  }
}
