import type { InputEvent } from '../../core/events.ts';
import { EventQueue } from '../event-queue.ts';
import type { RandomStream } from '../random-streams.ts';
import type { World } from './world.ts';

/**
 * What generators share while expanding: the world, a queue of pending actions ordered by (time, sequence)
 * and the output buffer. An action runs at its time, may emit events stamped with that time and schedule
 * follow-ups; the expander yields the buffer after each action, so only pending actions stay in memory.
 */
export class ChurnContext {
  private readonly queue = new EventQueue();
  readonly out: InputEvent[] = [];

  constructor(
    readonly world: World,
    /** Generators start nothing new at or after this time (follow-ups of started work still run). */
    readonly endMs: number,
  ) {}

  emit(e: InputEvent): void {
    this.out.push(e);
  }

  /** Runs `action(at)` at simulated time `at` (ms); actions at equal times run in scheduling order. */
  at(at: number, action: (at: number) => void): void {
    // The shared queue counts µs; generators work in whole ms.
    this.queue.push(at * 1000, () => action(at));
  }

  /**
   * A Poisson process of `perHour` arrivals per simulated hour from `startMs` until endMs: exponential gaps
   * drawn from `rng`, rounded to whole ms.
   */
  poisson(rng: RandomStream, perHour: number, startMs: number, action: (at: number) => void): void {
    if (perHour <= 0) return;
    const meanMs = 3_600_000 / perHour;
    const arm = (from: number): void => {
      const t = from + Math.round(rng.exponential(meanMs));
      if (t >= this.endMs) return;
      this.at(t, (now) => {
        action(now);
        arm(now);
      });
    };
    arm(startMs);
  }

  /** Fixed times from a spec's `at` list (kept even past endMs: the user asked for them). */
  fixed(times: readonly number[], action: (at: number) => void): void {
    for (const t of [...times].sort((a, b) => a - b)) this.at(t, action);
  }

  /** Runs the next pending action; false when none is left. */
  step(): boolean {
    const entry = this.queue.pop();
    if (entry === undefined) return false;
    entry.fire();
    return true;
  }
}
