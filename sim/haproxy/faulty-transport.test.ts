import { describe, expect, it } from 'vitest';
import { setServerState, setServerWeight, showBackend } from '../../core/haproxy/commands.ts';
import type { HaproxyConfig } from '../../core/haproxy/config-model.ts';
import { makeStream } from '../random-streams.ts';
import { createFaultyTransport, type UniformStream } from './faulty-transport.ts';
import { MockHaproxy } from './mock-haproxy.ts';

const CONFIG: HaproxyConfig = {
  backends: [
    {
      name: 'be',
      mode: 'http',
      balance: 'roundrobin',
      servers: [{ name: 's1', address: '10.0.0.1', port: 80, weight: 1, disabled: false, check: false }],
    },
  ],
  maps: {},
};

function loaded(): MockHaproxy {
  const m = new MockHaproxy();
  m.load(CONFIG);
  return m;
}

/** Replays fixed draws and counts how many were taken. */
function scripted(values: number[]): UniformStream & { taken: number } {
  const s = {
    taken: 0,
    next(): number {
      const v = values[s.taken++];
      if (v === undefined) throw new Error('script exhausted');
      return v;
    },
  };
  return s;
}

const MAINT = setServerState('be', 's1', 'maint');
/** A command that changes nothing: weight 1 is the server's weight already. */
const SAME_WEIGHT = setServerWeight('be', 's1', '1');
const OK_REPLY = { kind: 'ok', text: '\n' };
const adminOf = (m: MockHaproxy): number => m.backend('be')!.byName.get('s1')!.adminState;

describe('createFaultyTransport', () => {
  it('passes commands through with the base latency when no fault is configured', () => {
    const m = loaded();
    const t = createFaultyTransport(m, makeStream('t'));
    expect(t.send(SAME_WEIGHT)).toEqual({ ok: true, reply: OK_REPLY, latencyUs: 200 });
    expect(t.counts).toMatchObject({ sent: 1, refused: 0, reset: 0 });
  });

  it('picks the fault from the first draw against cumulative rates and always takes two draws', () => {
    const m = loaded();
    // Thresholds: refused [0, 0.1), reset [0.1, 0.3), restart [0.3, 0.4), slow [0.4, 0.6), ok above.
    const stream = scripted([0.05, 0.99, 0.2, 0.99, 0.2, 0.1, 0.5, 0, 0.7, 0, 0.35, 0]);
    const t = createFaultyTransport(m, stream, {
      rates: { refused: 0.1, reset: 0.2, restart: 0.1, slow: 0.2 },
      resetAfterApplyShare: 0.5,
      slowLatencyUs: 1_000_000,
    });
    expect(t.send(MAINT)).toEqual({ ok: false, error: 'refused', latencyUs: 200 });
    expect(adminOf(m)).toBe(0);
    // Reset with v = 0.99 >= 0.5: before the command ran.
    expect(t.send(MAINT)).toMatchObject({ ok: false, error: 'reset' });
    expect(adminOf(m)).toBe(0);
    // Reset with v = 0.1 < 0.5: after the command ran (forced maint, 0x01).
    expect(t.send(MAINT)).toMatchObject({ ok: false, error: 'reset' });
    expect(adminOf(m)).toBe(1);
    expect(t.send(SAME_WEIGHT)).toEqual({ ok: true, reply: OK_REPLY, latencyUs: 1_000_000 });
    expect(t.send(SAME_WEIGHT)).toEqual({ ok: true, reply: OK_REPLY, latencyUs: 200 });
    // Restart: the runtime maint is lost, and this connection is refused.
    expect(t.send(SAME_WEIGHT)).toMatchObject({ ok: false, error: 'refused' });
    expect(adminOf(m)).toBe(0);
    expect(stream.taken).toBe(12);
    expect(t.counts).toEqual({ sent: 6, refused: 1, reset: 2, resetAfterApply: 1, restarts: 1, slow: 1, timeouts: 0 });
  });

  it('turns a slow reply into a timeout when the client gives up first, the command having run', () => {
    const m = loaded();
    const t = createFaultyTransport(m, scripted([0.1, 0]), { rates: { slow: 1 }, slowLatencyUs: 3_000_000, clientTimeoutUs: 1_000_000 });
    expect(t.send(MAINT)).toEqual({ ok: false, error: 'timeout', latencyUs: 1_000_000 });
    expect(adminOf(m)).toBe(1);
  });

  it('is reproducible from the seed', () => {
    const run = () => {
      const t = createFaultyTransport(loaded(), makeStream('seed-7/haproxy'), { rates: { refused: 0.2, reset: 0.2, slow: 0.2 } });
      return Array.from({ length: 200 }, () => t.send(SAME_WEIGHT));
    };
    expect(run()).toEqual(run());
  });

  it('injects faults at the configured rate', () => {
    const t = createFaultyTransport(loaded(), makeStream('rate'), { rates: { refused: 0.1 } });
    for (let i = 0; i < 10_000; i++) t.send(showBackend());
    // Binomial(10000, 0.1): mean 1000, sd sqrt(10000 * 0.1 * 0.9) = 30; five sd either side.
    expect(t.counts.refused).toBeGreaterThanOrEqual(850);
    expect(t.counts.refused).toBeLessThanOrEqual(1150);
  });

  it('rejects rates outside [0, 1] or summing above 1', () => {
    expect(() => createFaultyTransport(loaded(), makeStream('x'), { rates: { refused: 1.5 } })).toThrow(/refused/);
    expect(() => createFaultyTransport(loaded(), makeStream('x'), { rates: { refused: 0.6, reset: 0.6 } })).toThrow(/sum/);
  });

  it('restarts on demand, losing runtime state', () => {
    const m = loaded();
    let restarts = 0;
    const t = createFaultyTransport(m, makeStream('r'), { onRestart: () => restarts++ });
    t.send(MAINT);
    expect(adminOf(m)).toBe(1);
    t.restart();
    expect(adminOf(m)).toBe(0);
    expect(restarts).toBe(1);
    expect(m.loadCount).toBe(2);
  });
});
