/**
 * CLI-only test (the loop under test reads the wall clock and sleeps on real timers).
 *
 * The live loop must take exactly the engine's steps in the engine's order, whatever the speed and however
 * long each step takes, so a live run is the simulation's schedule played against a real HAProxy.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../../../core/events.ts';
import { Engine } from '../../engine.ts';
import { LiveLoop } from './live-loop.ts';

const ev = (at: number, name: string): InputEvent => ({ at, type: 'route.delete', namespace: 'ns', name });
const INPUT = [ev(0, 'a'), ev(0, 'b'), ev(5, 'c'), ev(10, 'd'), ev(10, 'e'), ev(40, 'f')];

/**
 * Each input schedules timers: one at its own time (fires after the inputs of that time), one 5 ms later
 * (ties with the next input at 5 and 10 ms: the input first), and a chain that re-arms itself 30 ms later,
 * past the end for the last input (40 + settle 20 = 60 ms).
 */
function script(sched: { nowUs: number; after(d: number, fn: () => void): unknown }, trace: string[]) {
  return (e: InputEvent): void => {
    const name = (e as { name: string }).name;
    trace.push(`${sched.nowUs} in ${name}`);
    sched.after(0, () => trace.push(`${sched.nowUs} t0 ${name}`));
    sched.after(5000, () => trace.push(`${sched.nowUs} t5 ${name}`));
    sched.after(30_000, () => {
      trace.push(`${sched.nowUs} t30 ${name}`);
      sched.after(30_000, () => trace.push(`${sched.nowUs} t60 ${name}`));
    });
  };
}

describe('LiveLoop', () => {
  const engineTrace: string[] = [];
  const engine = new Engine();
  const engineEnd = engine.run(INPUT, script(engine, engineTrace), { settleUs: 20_000 });

  it('takes the engine’s steps in the engine’s order at full speed, awaiting slow steps', async () => {
    const trace: string[] = [];
    const loop = new LiveLoop(0);
    const steps = script(loop, trace);
    // Every input step is slow (a socket round trip): nothing may run in between.
    const r = await loop.run(INPUT, async (e) => {
      await sleep(2);
      steps(e);
    }, { settleUs: 20_000 });
    expect(trace).toEqual(engineTrace);
    expect(trace.length).toBeGreaterThan(20);
    expect(r).toMatchObject({ endUs: engineEnd.endUs, events: engineEnd.events, maxLagMs: 0 });
  });

  it('paces virtual time against the wall clock at speed N', async () => {
    const trace: string[] = [];
    const loop = new LiveLoop(1);
    const r = await loop.run(INPUT, script(loop, trace), { settleUs: 20_000 });
    expect(trace).toEqual(engineTrace);
    // The end is 40 + 20 = 60 ms. The last step is a's and b's t60 timer at 0 + 30 + 30 = 60 ms (a timer due
    // exactly at the end still fires; c's at 65 and d's, e's, f's at 70 do not): due 60 ms after the start.
    expect(trace.at(-1)).toBe('60000 t60 b');
    expect(r.wallMs).toBeGreaterThanOrEqual(60);
  });

  it('refuses a negative or infinite speed', () => {
    expect(() => new LiveLoop(-1)).toThrow(/speed/);
    expect(() => new LiveLoop(Infinity)).toThrow(/speed/);
  });
});
