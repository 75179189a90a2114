import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../../core/events.ts';
import { dropPairs } from './drop-pairs.ts';

describe('dropPairs', () => {
  it('drops a fault with its recovery and a partition with its heal, two at a time, keeping the pair a failure needs', async () => {
    const events: InputEvent[] = [
      { at: 0, type: 'node.fail', node: 'n1' },
      { at: 1, type: 'link.down', node: 'n2' },
      { at: 2, type: 'network.partition', groups: [['n1'], ['n2']] },
      { at: 3, type: 'script.fail', node: 'n1', script: 'chk' },
      { at: 4, type: 'script.recover', node: 'n1', script: 'other' },
      { at: 5, type: 'node.recover', node: 'n1' },
      { at: 6, type: 'link.up', node: 'n2' },
      { at: 7, type: 'network.heal' },
    ];
    const tried: string[] = [];
    // Fails while n2's link goes down, and not with a recovery whose failure is gone (as a warning might).
    const fails = (log: InputEvent[]): boolean => {
      tried.push(log.map((e) => e.at).join(''));
      return log.some((e) => e.type === 'link.down') && !log.some((e) => e.type === 'node.recover' && !log.some((f) => f.type === 'node.fail'));
    };
    const r = await dropPairs(events, { fails, shouldStop: () => false });
    expect(r.events.map((e) => e.at)).toEqual([1, 3, 4, 6]);
    expect(r).toMatchObject({ changed: true, stopped: false });
    // Pairs tried in order: n1's fail and recover (dropped), n2's link (needed, kept), the partition and heal
    // (dropped); the script.fail has no recovery of the same script, so it is no pair.
    expect(tried).toEqual(['123467', '2347', '1346']);
  });

  it('drops a keepalived crash with the restart of the same node, not of another', async () => {
    const events: InputEvent[] = [
      { at: 0, type: 'keepalived.crash', node: 'n1' },
      { at: 1, type: 'keepalived.restart', node: 'n2' },
      { at: 2, type: 'keepalived.restart', node: 'n1' },
    ];
    const r = await dropPairs(events, { fails: () => true, shouldStop: () => false });
    expect(r.events).toEqual([events[1]]);
  });

  it('pairs an upsert with the delete of the same route, not of another', async () => {
    const route = (name: string, at: number): InputEvent => ({ at, type: 'route.upsert', route: { namespace: 'shop', name, host: `${name}.example.com`, service: 's' } });
    const events: InputEvent[] = [route('a', 0), route('b', 0), { at: 1, type: 'route.delete', namespace: 'shop', name: 'b' }];
    const r = await dropPairs(events, { fails: () => true, shouldStop: () => false });
    expect(r.events).toEqual([route('a', 0)]);
  });
});
