import type { InputEvent } from '../core/events.ts';
import { EventQueue } from './event-queue.ts';
import { msToUs, type Scheduler, type TimerHandle } from './scheduler.ts';

export interface EngineRunOptions {
  /** Simulated time after the last input event before the run stops. */
  settleUs: number;
  /** A fixed end instead of last event + settle. */
  durationUs?: number;
}

export interface EngineRunResult {
  endUs: number;
  events: number;
}

/**
 * The discrete-event loop. Input events stream in lazily and merge with the timer queue; at equal times
 * input events come first (they are what happened "at" that millisecond; timers react to the world as it
 * then is), and timers among themselves fire in scheduling order. The clock jumps from one to the next.
 */
export class Engine implements Scheduler {
  private now = 0;
  private readonly queue = new EventQueue();

  get nowUs(): number {
    return this.now;
  }

  at(atUs: number, fn: () => void): TimerHandle {
    if (!(atUs >= this.now)) throw new Error(`timer scheduled in the past: ${atUs} µs < now ${this.now} µs`);
    return this.queue.push(atUs, fn);
  }

  after(delayUs: number, fn: () => void): TimerHandle {
    return this.at(this.now + delayUs, fn);
  }

  cancel(handle: TimerHandle): void {
    handle.cancelled = true;
  }

  run(input: Iterable<InputEvent>, onInput: (e: InputEvent) => void, opts: EngineRunOptions): EngineRunResult {
    const it = input[Symbol.iterator]();
    const fixedEnd = opts.durationUs;
    let pending = it.next();
    let events = 0;
    let lastInputUs = 0;
    for (;;) {
      let inputUs = pending.done ? Infinity : msToUs(pending.value.at);
      if (fixedEnd !== undefined && inputUs !== Infinity && inputUs > fixedEnd) {
        // Input past a fixed end is never applied; stop pulling it.
        pending = { done: true, value: undefined };
        inputUs = Infinity;
      }
      const timerUs = this.queue.peekTime();
      if (inputUs !== Infinity && (timerUs === undefined || inputUs <= timerUs)) {
        this.now = inputUs;
        lastInputUs = inputUs;
        events++;
        onInput(pending.value as InputEvent);
        pending = it.next();
        continue;
      }
      if (timerUs === undefined) break;
      // Input is exhausted or later than the next timer; past the end only the end matters.
      const endUs = pending.done ? (fixedEnd ?? lastInputUs + opts.settleUs) : Infinity;
      if (timerUs > endUs) break;
      const entry = this.queue.pop()!;
      this.now = entry.atUs;
      entry.fire();
    }
    const endUs = fixedEnd ?? lastInputUs + opts.settleUs;
    this.now = Math.max(this.now, endUs);
    return { endUs: this.now, events };
  }
}
