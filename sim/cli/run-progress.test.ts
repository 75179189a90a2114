import { describe, expect, it } from 'vitest';
import type { OutputRecord } from '../output/records.ts';
import { RunProgress } from './run-progress.ts';

/** Feeds `n` input records, one per simulated millisecond, advancing a fake clock by `msEach` per record. */
function feed(p: RunProgress, clock: { t: number }, n: number, msEach: number, fromUs = 0): void {
  for (let i = 0; i < n; i++) {
    clock.t += msEach;
    p.add({ atUs: fromUs + i * 1000, type: 'input', event: 'endpoints.set', subject: 'ns/svc' } as OutputRecord);
  }
}

describe('RunProgress', () => {
  it('says nothing for a run shorter than its interval', () => {
    const out: string[] = [];
    const clock = { t: 0 };
    const p = new RunProgress('short', { now: () => clock.t, write: (s) => out.push(s), tty: false });
    // 100,000 records at 0.05 ms each: 5 s of wall time, under the 10 s a log waits for.
    feed(p, clock, 100_000, 0.05);
    p.done();
    expect(out).toEqual([]);
  });

  it('writes a plain line every 10 s to a log, with events, simulated time and events/s', () => {
    const out: string[] = [];
    const clock = { t: 0 };
    const p = new RunProgress('churn', { now: () => clock.t, write: (s) => out.push(s), tty: false });
    // 0.1 ms per record: the clock is read every 16,384 records (1,638.4 ms apart), so the first line comes at
    // the 7th reading, record 7 × 16,384 = 114,688, when 11,468.8 ms have passed (the first reading ≥ 10 s).
    // Events/s = 114,688 / 11.4688 s = 10,000; simulated time = record 114,687 × 1 ms = 114.687 s → "114.7s".
    feed(p, clock, 120_000, 0.1);
    expect(out).toEqual(['churn: 114,688 events, 114.7s simulated, 10,000 events/s\n']);
    p.done();
    expect(out).toHaveLength(1);
  });

  it('rewrites one terminal line in place and clears it at the end', () => {
    const out: string[] = [];
    const clock = { t: 0 };
    const p = new RunProgress('churn', { now: () => clock.t, write: (s) => out.push(s), tty: true });
    // 0.05 ms per record: readings every 819.2 ms, each past the terminal's 500 ms, so every reading shows:
    // 50,000 records give three readings, at records 16,384, 32,768 and 49,152.
    feed(p, clock, 50_000, 0.05);
    expect(out).toHaveLength(3);
    for (const line of out) expect(line.startsWith('\r\x1b[K') && !line.endsWith('\n')).toBe(true);
    expect(out[0]).toContain('16,384 events');
    p.done();
    expect(out.at(-1)).toBe('\r\x1b[K');
  });

  it('counts only input records as events', () => {
    const out: string[] = [];
    const clock = { t: 0 };
    const p = new RunProgress('x', { now: () => clock.t, write: (s) => out.push(s), tty: false });
    // Half the records are runtime commands: 16,384 records hold 8,192 events; one reading at 10 s shows it.
    for (let i = 0; i < 16_384; i++) {
      clock.t = i === 16_383 ? 10_000 : 0;
      const r = i % 2 === 0 ? { atUs: 0, type: 'input', event: 'endpoints.set', subject: 'a/b' } : { atUs: 0, type: 'runtime.command', line: 'show backend', outcome: 'ok' };
      p.add(r as OutputRecord);
    }
    expect(out).toEqual(['x: 8,192 events, 0ms simulated, 819 events/s\n']);
  });
});
