/**
 * CLI-only file: reads the wall clock and waits on real timers (allowed under sim/cli/ only).
 *
 * What makes the engine's run a live one: before each step, the wait until the step is due on the wall
 * clock. The engine (sim/engine.ts `runAsync`) keeps its virtual schedule exactly (input events and timers
 * merged by time, inputs first at equal times, timers in scheduling order, the same end rule) and awaits a
 * step that answers later (a real socket, a real reload); the pacer only decides when each step may start:
 *
 * - `speed` N > 0: virtual time t is due at wall time start + t / N. A step that comes due while the
 *   previous one is still running (a slow socket, a long reload) starts late; the largest such lag is
 *   reported. Virtual time never follows the wall clock, so the order of steps never depends on it.
 * - `speed` 0 (max): no waiting at all; the run goes as fast as HAProxy answers.
 *
 * An abort signal (Ctrl-C) stops the run between two steps.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export class Pacer {
  private startWallMs = performance.now();
  private maxLag = 0;

  /** @param speed virtual ms per wall ms; 0 = as fast as the steps complete. */
  constructor(
    private readonly speed: number,
    private readonly signal?: AbortSignal,
  ) {
    if (!(speed >= 0) || !Number.isFinite(speed)) throw new Error(`speed must be a finite number >= 0, got ${speed}`);
  }

  /** The wall clock starts now (call it as the run starts). */
  start(): void {
    this.startWallMs = performance.now();
    this.maxLag = 0;
  }

  /** Wall time since the start. */
  get wallMs(): number {
    return performance.now() - this.startWallMs;
  }

  /** The longest a step started after its paced wall time (0 at speed max, where nothing is paced). */
  get maxLagMs(): number {
    return this.maxLag;
  }

  /** Before the step at virtual time `atUs`: nothing when it is due (or at speed max), else the wait. */
  readonly pace = (atUs: number): void | Promise<void> => {
    this.signal?.throwIfAborted();
    if (this.speed === 0) return;
    const dueWallMs = this.startWallMs + atUs / 1000 / this.speed;
    const waitMs = dueWallMs - performance.now();
    if (waitMs <= 0) {
      this.maxLag = Math.max(this.maxLag, -waitMs);
      return;
    }
    return this.waitUntil(dueWallMs);
  };

  private async waitUntil(dueWallMs: number): Promise<void> {
    // A timer may fire up to a millisecond early by performance.now() (libuv keeps whole-millisecond loop
    // time), so sleep again until the step is really due.
    let waitMs = dueWallMs - performance.now();
    while (waitMs > 0) {
      await sleep(waitMs, undefined, this.signal === undefined ? {} : { signal: this.signal });
      waitMs = dueWallMs - performance.now();
    }
  }
}
