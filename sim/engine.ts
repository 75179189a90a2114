import type { InputEvent } from '../core/events.ts';
import { EventQueue } from './event-queue.ts';
import { msToUs, type Scheduler, type Step, type TimerHandle } from './scheduler.ts';

export interface EngineRunOptions {
  /** Simulated time after the last input event before the run stops. */
  settleUs: number;
  /** A fixed end instead of last event + settle. */
  durationUs?: number;
}

export interface EngineAsyncRunOptions extends EngineRunOptions {
  /**
   * Called before each step with its virtual time: nothing when the step may run now, or a promise of the
   * moment it may (live mode waits for the wall clock here, and stops on Ctrl-C).
   */
  pace?: (atUs: number) => Step;
}

export interface EngineRunResult {
  endUs: number;
  events: number;
}

/** Where a run is: the input cursor and what it has counted. */
interface Cursor {
  readonly it: Iterator<InputEvent>;
  pending: IteratorResult<InputEvent>;
  readonly fixedEnd: number | undefined;
  readonly settleUs: number;
  events: number;
  lastInputUs: number;
}

const INPUT = 0;
const TIMER = 1;
const END = 2;

/**
 * The discrete-event loop. Input events stream in lazily and merge with the timer queue; at equal times
 * input events come first (they are what happened "at" that millisecond; timers react to the world as it
 * then is), and timers among themselves fire in scheduling order. The clock jumps from one to the next.
 *
 * One schedule (`next`), two ways to take its steps: `run` takes them one after the other, each done when
 * it returns (the simulation: every port answers at once); `runAsync` awaits a step that answers later (a
 * real HAProxy's socket or reload) and lets a pacer hold each step back (live mode's wall clock), so a live
 * run takes the very steps of the simulation of the same input, in the same order.
 */
export class Engine implements Scheduler {
  private now = 0;
  private seqNow = -1;
  private readonly queue = new EventQueue();
  private cursor: Cursor | undefined;

  get nowUs(): number {
    return this.now;
  }

  at(atUs: number, fn: () => Step): TimerHandle {
    if (!(atUs >= this.now)) throw new Error(`timer scheduled in the past: ${atUs} µs < now ${this.now} µs`);
    return this.queue.push(atUs, fn);
  }

  get nowSeq(): number {
    return this.seqNow;
  }

  reserve(): number {
    return this.queue.reserve();
  }

  atReserved(atUs: number, seq: number, fn: () => Step): TimerHandle {
    if (!(atUs >= this.now)) throw new Error(`timer scheduled in the past: ${atUs} µs < now ${this.now} µs`);
    return this.queue.push(atUs, fn, seq);
  }

  after(delayUs: number, fn: () => Step): TimerHandle {
    return this.at(this.now + delayUs, fn);
  }

  cancel(handle: TimerHandle): void {
    handle.cancelled = true;
  }

  run(input: Iterable<InputEvent>, onInput: (e: InputEvent) => void, opts: EngineRunOptions): EngineRunResult {
    const c = this.begin(input, opts);
    for (;;) {
      const kind = this.next(c);
      let step: Step;
      if (kind === INPUT) {
        step = this.applyInput(c, onInput);
        c.pending = c.it.next();
      } else if (kind === TIMER) {
        step = this.fireTimer();
      } else {
        return this.end(c);
      }
      if (step instanceof Promise) throw new Error('a step answered later: a simulation needs ports that answer at once (runAsync awaits them)');
    }
  }

  async runAsync(input: Iterable<InputEvent>, onInput: (e: InputEvent) => Step, opts: EngineAsyncRunOptions): Promise<EngineRunResult> {
    const c = this.begin(input, opts);
    const pace = opts.pace;
    for (;;) {
      const kind = this.next(c);
      if (kind === END) return this.end(c);
      if (pace !== undefined) {
        const wait = pace(kind === INPUT ? msToUs(c.pending.value!.at) : this.queue.peekTime()!);
        if (wait instanceof Promise) await wait;
      }
      if (kind === INPUT) {
        const step = this.applyInput(c, onInput);
        if (step instanceof Promise) await step;
        c.pending = c.it.next();
      } else {
        const step = this.fireTimer();
        if (step instanceof Promise) await step;
      }
    }
  }

  /** Where the run stands (after a step threw, where it stopped: a run may end on a verdict, not an error). */
  progress(): EngineRunResult {
    return { endUs: this.now, events: this.cursor?.events ?? 0 };
  }

  private begin(input: Iterable<InputEvent>, opts: EngineRunOptions): Cursor {
    const it = input[Symbol.iterator]();
    const c: Cursor = { it, pending: it.next(), fixedEnd: opts.durationUs, settleUs: opts.settleUs, events: 0, lastInputUs: 0 };
    this.cursor = c;
    return c;
  }

  /** The next step: the pending input, the earliest timer, or the end. */
  private next(c: Cursor): typeof INPUT | typeof TIMER | typeof END {
    let inputUs = c.pending.done ? Infinity : msToUs(c.pending.value.at);
    if (c.fixedEnd !== undefined && inputUs !== Infinity && inputUs > c.fixedEnd) {
      // Input past a fixed end is never applied; stop pulling it.
      c.pending = { done: true, value: undefined };
      inputUs = Infinity;
    }
    const timerUs = this.queue.peekTime();
    if (inputUs !== Infinity && (timerUs === undefined || inputUs <= timerUs)) return INPUT;
    if (timerUs === undefined) return END;
    // Input is exhausted or later than the next timer; past the end only the end matters.
    const endUs = c.pending.done ? (c.fixedEnd ?? c.lastInputUs + c.settleUs) : Infinity;
    return timerUs > endUs ? END : TIMER;
  }

  private applyInput(c: Cursor, onInput: (e: InputEvent) => Step): Step {
    const e = c.pending.value as InputEvent;
    const atUs = msToUs(e.at);
    this.now = atUs;
    this.seqNow = -1;
    c.lastInputUs = atUs;
    c.events++;
    return onInput(e);
  }

  private fireTimer(): Step {
    const entry = this.queue.pop()!;
    this.now = entry.atUs;
    this.seqNow = entry.seq;
    return entry.fire();
  }

  private end(c: Cursor): EngineRunResult {
    const endUs = c.fixedEnd ?? c.lastInputUs + c.settleUs;
    this.now = Math.max(this.now, endUs);
    return { endUs: this.now, events: c.events };
  }
}
