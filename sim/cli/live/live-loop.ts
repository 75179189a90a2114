/**
 * CLI-only file: reads the wall clock and waits on real timers (allowed under sim/cli/ only).
 *
 * The live twin of sim/engine.ts. It keeps the engine's virtual schedule exactly (input events and timers
 * merged by time, inputs first at equal times, timers in scheduling order, the same end rule), so a live
 * run performs the same steps in the same order as the simulation of the same log; what it adds is that
 * every step may be asynchronous (a real socket, a real reload) and is awaited before the next one, and
 * that steps are paced against the wall clock:
 *
 * - `speed` N > 0: virtual time t is due at wall time start + t / N. A step that comes due while the
 *   previous one is still running (a slow socket, a long reload) starts late; the largest such lag is
 *   reported. Virtual time never follows the wall clock, so the order of steps never depends on it.
 * - `speed` 0 (max): no waiting at all; the run goes as fast as HAProxy answers.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { InputEvent } from '../../../core/events.ts';
import { EventQueue } from '../../event-queue.ts';
import { msToUs, type TimerHandle } from '../../scheduler.ts';

/** A step: synchronous, or a promise the loop awaits before anything else runs. */
export type LiveTask = () => void | Promise<void>;

export interface LiveScheduler {
  readonly nowUs: number;
  at(atUs: number, fn: LiveTask): TimerHandle;
  after(delayUs: number, fn: LiveTask): TimerHandle;
  cancel(handle: TimerHandle): void;
}

export interface LiveRunOptions {
  settleUs: number;
  durationUs?: number;
  /** Stops the run between two steps (Ctrl-C); `run` then rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface LiveRunResult {
  endUs: number;
  events: number;
  /** Wall time of the whole run. */
  wallMs: number;
  /** The longest a step started after its paced wall time (0 at speed max, where nothing is paced). */
  maxLagMs: number;
}

export class LiveLoop implements LiveScheduler {
  private now = 0;
  private readonly queue = new EventQueue();
  private startWallMs = 0;
  private maxLagMs = 0;
  private events = 0;

  /** @param speed virtual ms per wall ms; 0 = as fast as the steps complete. */
  constructor(private readonly speed: number) {
    if (!(speed >= 0) || !Number.isFinite(speed)) throw new Error(`speed must be a finite number >= 0, got ${speed}`);
  }

  get nowUs(): number {
    return this.now;
  }

  at(atUs: number, fn: LiveTask): TimerHandle {
    if (!(atUs >= this.now)) throw new Error(`timer scheduled in the past: ${atUs} µs < now ${this.now} µs`);
    // EventQueue stores `() => void`; the loop awaits what a task returns (see fire below).
    return this.queue.push(atUs, fn as () => void);
  }

  after(delayUs: number, fn: LiveTask): TimerHandle {
    return this.at(this.now + delayUs, fn);
  }

  cancel(handle: TimerHandle): void {
    handle.cancelled = true;
  }

  /** The engine's loop (sim/engine.ts `run`), step for step, with every step awaited and paced. */
  async run(input: Iterable<InputEvent>, onInput: (e: InputEvent) => void | Promise<void>, opts: LiveRunOptions): Promise<LiveRunResult> {
    this.startWallMs = performance.now();
    const it = input[Symbol.iterator]();
    const fixedEnd = opts.durationUs;
    let pending = it.next();
    this.events = 0;
    let lastInputUs = 0;
    const signal = opts.signal;
    for (;;) {
      signal?.throwIfAborted();
      let inputUs = pending.done ? Infinity : msToUs(pending.value.at);
      if (fixedEnd !== undefined && inputUs !== Infinity && inputUs > fixedEnd) {
        pending = { done: true, value: undefined };
        inputUs = Infinity;
      }
      const timerUs = this.queue.peekTime();
      if (inputUs !== Infinity && (timerUs === undefined || inputUs <= timerUs)) {
        await this.pace(inputUs, signal);
        this.now = inputUs;
        lastInputUs = inputUs;
        this.events++;
        await onInput(pending.value as InputEvent);
        pending = it.next();
        continue;
      }
      if (timerUs === undefined) break;
      const endUs = pending.done ? (fixedEnd ?? lastInputUs + opts.settleUs) : Infinity;
      if (timerUs > endUs) break;
      const entry = this.queue.pop()!;
      await this.pace(entry.atUs, signal);
      this.now = entry.atUs;
      await (entry.fire as LiveTask)();
    }
    const endUs = fixedEnd ?? lastInputUs + opts.settleUs;
    this.now = Math.max(this.now, endUs);
    return this.progress();
  }

  /** Where the run is now; after a step rejected, where it stopped (a run may end on a verdict, not an error). */
  progress(): LiveRunResult {
    return { endUs: this.now, events: this.events, wallMs: performance.now() - this.startWallMs, maxLagMs: this.maxLagMs };
  }

  /** Waits until virtual time `atUs` is due on the wall clock. */
  private async pace(atUs: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.speed === 0) return;
    const dueWallMs = this.startWallMs + atUs / 1000 / this.speed;
    let waitMs = dueWallMs - performance.now();
    if (waitMs <= 0) {
      this.maxLagMs = Math.max(this.maxLagMs, -waitMs);
      return;
    }
    // A timer may fire up to a millisecond early by performance.now() (libuv keeps whole-millisecond loop
    // time), so sleep again until the step is really due.
    while (waitMs > 0) {
      await sleep(waitMs, undefined, signal === undefined ? {} : { signal });
      waitMs = dueWallMs - performance.now();
    }
  }
}
