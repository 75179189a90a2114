import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../../core/events.ts';
import { mergeSpans } from './merge-spans.ts';

const never = { shouldStop: () => false };

/** Whether `node` is down (failed, not yet recovered) at `t` in a log. */
function downAt(log: InputEvent[], node: string, t: number): boolean {
  let down = false;
  for (const e of log) {
    if (e.at > t) break;
    if (e.type === 'node.fail' && e.node === node) down = true;
    if (e.type === 'node.recover' && e.node === node) down = false;
  }
  return down;
}

describe('mergeSpans', () => {
  it('two outages of one node become one when the failure needs it down at both times, not up between', async () => {
    const events: InputEvent[] = [
      { at: 10, type: 'node.fail', node: 'n1' },
      { at: 20, type: 'node.recover', node: 'n1' },
      { at: 30, type: 'node.fail', node: 'n1' },
      { at: 40, type: 'node.recover', node: 'n1' },
    ];
    // Every single event and both fail/recover pairs are needed for "down at 15 and at 35"; only the merge
    // (dropping the recovery at 20 and the fail at 30) keeps it with fewer events.
    const fails = (log: InputEvent[]): boolean => downAt(log, 'n1', 15) && downAt(log, 'n1', 35);
    const r = await mergeSpans(events, { fails, ...never });
    expect(r.events).toEqual([events[0], events[3]]);
    expect(r).toMatchObject({ changed: true, stopped: false });
  });

  it('merges two keepalived crashes of one node into one', async () => {
    const events: InputEvent[] = [
      { at: 10, type: 'keepalived.crash', node: 'n1' },
      { at: 20, type: 'keepalived.restart', node: 'n1' },
      { at: 30, type: 'keepalived.crash', node: 'n1' },
      { at: 40, type: 'keepalived.restart', node: 'n1' },
    ];
    const r = await mergeSpans(events, { fails: () => true, ...never });
    expect(r.events).toEqual([events[0], events[3]]);
  });

  it('keeps both spans when the failure needs the node up in between, and leaves other subjects alone', async () => {
    const events: InputEvent[] = [
      { at: 10, type: 'node.fail', node: 'n1' },
      { at: 20, type: 'node.recover', node: 'n1' },
      { at: 25, type: 'node.fail', node: 'n2' },
      { at: 30, type: 'node.fail', node: 'n1' },
    ];
    const fails = (log: InputEvent[]): boolean => downAt(log, 'n1', 15) && !downAt(log, 'n1', 22) && downAt(log, 'n1', 35);
    const r = await mergeSpans(events, { fails, ...never });
    expect(r.events).toEqual(events);
    expect(r.changed).toBe(false);
  });

  it('two partitions with the same groups merge; different groups do not', async () => {
    const a: InputEvent = { at: 0, type: 'network.partition', groups: [['n1'], ['n2']] };
    const b: InputEvent = { at: 5, type: 'network.partition', groups: [['n1', 'n2'], ['n3']] };
    const heal = (at: number): InputEvent => ({ at, type: 'network.heal' });
    const same = await mergeSpans([a, heal(1), { ...a, at: 2 }, heal(3)], { fails: () => true, ...never });
    expect(same.events).toEqual([a, heal(3)]);
    const other = await mergeSpans([a, heal(1), b, heal(6)], { fails: () => true, ...never });
    expect(other.changed).toBe(false);
  });

  it('two stalls of one node become one from the first start to the later end', async () => {
    const events: InputEvent[] = [
      { at: 100, type: 'node.stall', node: 'n1', durationMs: 50 },
      { at: 120, type: 'node.stall', node: 'n2', durationMs: 10 },
      { at: 300, type: 'node.stall', node: 'n1', durationMs: 40 },
    ];
    const r = await mergeSpans(events, { fails: () => true, ...never });
    // n1: 100 + 50 = 150 ends first, 300 + 40 = 340 ends later: one stall of 340 - 100 = 240 ms at 100.
    expect(r.events).toEqual([{ at: 100, type: 'node.stall', node: 'n1', durationMs: 240 }, events[1]]);
  });
});
