import { describe, expect, test } from 'vitest';
import { RandomStreams } from '../random-streams.ts';
import { DROPPED, Network } from './network.ts';

function net(params = { delayUs: 200, jitterUs: 100, loss: 0 }) {
  const n = new Network(params, new RandomStreams(1));
  for (const name of ['a', 'b', 'c']) n.addNode(name);
  return n;
}

describe('simulated network', () => {
  test('delay plus uniform jitter in [0, jitter)', () => {
    const n = net();
    for (let i = 0; i < 1000; i++) {
      const d = n.route(0, 1, 0);
      expect(d).toBeGreaterThanOrEqual(200);
      expect(d).toBeLessThan(300);
    }
  });

  test('loss drops about the given share, drawn from the link’s own stream', () => {
    const n = net({ delayUs: 200, jitterUs: 0, loss: 0.25 });
    let dropped = 0;
    for (let i = 0; i < 20_000; i++) if (n.route(0, 1, 0) === DROPPED) dropped++;
    // binomial(20000, 0.25): sd = √(20000 · 0.25 · 0.75) ≈ 61; 5 sd
    expect(Math.abs(dropped - 5000)).toBeLessThan(310);
    // draws on a→b do not shift b→a: a fresh network gives b→a the same sequence whatever a→b did
    const fresh = net({ delayUs: 200, jitterUs: 0, loss: 0.25 });
    const seq = (x: Network) => Array.from({ length: 50 }, () => x.route(1, 0, 0));
    expect(seq(n)).toEqual(seq(fresh));
  });

  test('partition: groups cannot reach each other; unlisted nodes form one more group; heal restores', () => {
    const n = net();
    n.partition([[0]], false);
    expect(n.isBlocked(0, 1)).toBe(true);
    expect(n.isBlocked(1, 0)).toBe(true);
    expect(n.isBlocked(1, 2)).toBe(false);
    expect(n.route(0, 2, 0)).toBe(DROPPED);
    n.heal();
    expect(n.isBlocked(0, 1)).toBe(false);
  });

  test('one-way partition blocks only earlier groups towards later ones', () => {
    const n = net();
    n.partition([[0], [1, 2]], true);
    expect(n.isBlocked(0, 1)).toBe(true);
    expect(n.isBlocked(1, 0)).toBe(false);
    expect(n.link(0, 2).state).toEqual({ kind: 'blocked', by: 'one-way-partition' });
  });

  test('fault rules: the first non-pass verdict wins; a blocked link still drops', () => {
    const n = net();
    n.rules.push((from) => (from === 0 ? { kind: 'deliver', delayUs: 5000 } : { kind: 'pass' }));
    n.rules.push((_, to) => (to === 2 ? { kind: 'drop', reason: 'test' } : { kind: 'pass' }));
    expect(n.route(0, 2, 0)).toBe(5000);
    expect(n.route(1, 2, 0)).toBe(DROPPED);
    n.partition([[0]], false);
    expect(n.route(0, 1, 0)).toBe(DROPPED);
  });
});
