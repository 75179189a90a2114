/**
 * CLI-only test (the pacer reads the wall clock and sleeps on real timers).
 *
 * A live run is the engine's run with steps that answer later and a pacer: it must take exactly the steps
 * of the synchronous run in the same order, whatever the speed and however long each step takes, so a live
 * run is the simulation's schedule played against a real HAProxy.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../../../core/events.ts';
import { Engine } from '../../engine.ts';
import { Pacer } from './pacer.ts';

const ev = (at: number, name: string): InputEvent => ({ at, type: 'route.delete', namespace: 'ns', name });
const INPUT = [ev(0, 'a'), ev(0, 'b'), ev(5, 'c'), ev(10, 'd'), ev(10, 'e'), ev(40, 'f')];

/**
 * Each input schedules timers: one at its own time (fires after the inputs of that time), one 5 ms later
 * (ties with the next input at 5 and 10 ms: the input first), and a chain that re-arms itself 30 ms later,
 * past the end for the last input (40 + settle 20 = 60 ms). `slow` makes every timer a step that answers
 * later, as a reload's end does on a real HAProxy.
 */
function script(sched: Engine, trace: string[], slow = false) {
  const step = (what: () => void) => (slow ? () => sleep(1).then(what) : what);
  return (e: InputEvent): void => {
    const name = (e as { name: string }).name;
    trace.push(`${sched.nowUs} in ${name}`);
    sched.after(0, step(() => trace.push(`${sched.nowUs} t0 ${name}`)));
    sched.after(5000, step(() => trace.push(`${sched.nowUs} t5 ${name}`)));
    sched.after(
      30_000,
      step(() => {
        trace.push(`${sched.nowUs} t30 ${name}`);
        sched.after(30_000, step(() => trace.push(`${sched.nowUs} t60 ${name}`)));
      }),
    );
  };
}

describe('Engine.runAsync with a pacer', () => {
  const engineTrace: string[] = [];
  const engine = new Engine();
  const engineEnd = engine.run(INPUT, script(engine, engineTrace), { settleUs: 20_000 });

  it('takes the synchronous run’s steps in its order at full speed, awaiting steps that answer later', async () => {
    const trace: string[] = [];
    const live = new Engine();
    const pacer = new Pacer(0);
    const steps = script(live, trace, true);
    // Every input step is slow too (a socket round trip): nothing may run in between.
    const r = await live.runAsync(INPUT, async (e) => {
      await sleep(2);
      steps(e);
    }, { settleUs: 20_000, pace: pacer.pace });
    expect(trace).toEqual(engineTrace);
    expect(trace.length).toBeGreaterThan(20);
    expect(r).toEqual(engineEnd);
    expect(pacer.maxLagMs).toBe(0);
  });

  it('paces virtual time against the wall clock at speed N', async () => {
    const trace: string[] = [];
    const live = new Engine();
    const pacer = new Pacer(1);
    pacer.start();
    await live.runAsync(INPUT, script(live, trace), { settleUs: 20_000, pace: pacer.pace });
    expect(trace).toEqual(engineTrace);
    // The end is 40 + 20 = 60 ms. The last step is a's and b's t60 timer at 0 + 30 + 30 = 60 ms (a timer due
    // exactly at the end still fires; c's at 65 and d's, e's, f's at 70 do not): due 60 ms after the start.
    expect(trace.at(-1)).toBe('60000 t60 b');
    expect(pacer.wallMs).toBeGreaterThanOrEqual(60);
  });

  it('stops between two steps once aborted', async () => {
    const live = new Engine();
    const abort = new AbortController();
    const pacer = new Pacer(0, abort.signal);
    const seen: string[] = [];
    const run = live.runAsync(INPUT, (e) => {
      seen.push((e as { name: string }).name);
      if (seen.length === 2) abort.abort(new Error('interrupted'));
    }, { settleUs: 20_000, pace: pacer.pace });
    await expect(run).rejects.toThrow('interrupted');
    expect(seen).toEqual(['a', 'b']);
  });

  it('refuses a negative or infinite speed', () => {
    expect(() => new Pacer(-1)).toThrow(/speed/);
    expect(() => new Pacer(Infinity)).toThrow(/speed/);
  });
});
