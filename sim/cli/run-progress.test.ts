import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunInput } from '../load-input.ts';
import { nullSink } from '../output/output-sink.ts';
import { runOne } from '../run.ts';
import type { OutputRecord } from '../output/records.ts';
import type { RunInput } from '../run-input.ts';
import { parseScenario } from '../scenario/load-scenario.ts';
import { formatSeconds, progressFraction, RunProgress, type ProgressStream } from './run-progress.ts';

/** Feeds `n` input records, one per simulated millisecond, advancing a fake clock by `msEach` per record. */
function feed(p: RunProgress, clock: { t: number }, n: number, msEach: number, fromUs = 0): void {
  for (let i = 0; i < n; i++) {
    clock.t += msEach;
    p.add({ atUs: fromUs + i * 1000, type: 'input', event: 'endpoints.set', subject: 'ns/svc' } as OutputRecord);
  }
}

/** A stream that keeps what is written; a terminal of 120 columns or a log. */
function stream(isTTY: boolean): ProgressStream & { out: string[] } {
  const out: string[] = [];
  return { isTTY, columns: 120, out, write: (s: string) => out.push(s) };
}

/** What progress reads of an input: its settings' run length, and a log's bytes when there is one. */
function inputOf(durationMs: number | undefined): RunInput {
  return { settings: { sim: { durationMs, settleMs: 0 } } } as unknown as RunInput;
}

const dir = mkdtempSync(join(tmpdir(), 'rb-progress-'));

describe('RunProgress', () => {
  it('says nothing for a run shorter than its interval', () => {
    const s = stream(false);
    const clock = { t: 0 };
    const p = new RunProgress('short', { now: () => clock.t, stream: s });
    p.begin(inputOf(1_000_000));
    // 100,000 records at 0.05 ms each: 5 s of wall time, under the 10 s a log waits for.
    feed(p, clock, 100_000, 0.05);
    p.done();
    expect(s.out).toEqual([]);
  });

  it('writes a plain line every 10 s to a log: percent done, ETA, events, simulated time, events/s', () => {
    const s = stream(false);
    const clock = { t: 0 };
    const p = new RunProgress('churn', { now: () => clock.t, stream: s });
    p.begin(inputOf(1_000_000));
    // 0.1 ms per record: the clock is read every 16,384 records (1,638.4 ms apart), so the first line comes at
    // the 7th reading, record 7 × 16,384 = 114,688, when 11,468.8 ms have passed (the first reading ≥ 10 s).
    // Events/s = 114,688 / 11.4688 s = 10,000; simulated time = record 114,687 × 1 ms = 114.687 s → "114.7s",
    // of sim.durationMs 1,000 s: 11.4687% → "11%". ETA: 11.4688 s × (1 − 0.114687) / 0.114687 = 88.53 s → 1m29s.
    feed(p, clock, 120_000, 0.1);
    expect(s.out).toEqual(['churn: 11% done, ETA 1m29s, 114,688 events, 114.7s simulated, 10,000 events/s\n']);
    p.done();
    expect(s.out).toHaveLength(1);
  });

  it('with no known length: counts alone', () => {
    const s = stream(false);
    const clock = { t: 0 };
    const p = new RunProgress('x', { now: () => clock.t, stream: s });
    p.begin(inputOf(undefined));
    // Half the records are runtime commands: 16,384 records hold 8,192 events; one reading at 10 s shows it.
    for (let i = 0; i < 16_384; i++) {
      clock.t = i === 16_383 ? 10_000 : 0;
      const r = i % 2 === 0 ? { atUs: 0, type: 'input', event: 'endpoints.set', subject: 'a/b' } : { atUs: 0, type: 'runtime.command', line: 'show backend', outcome: 'ok' };
      p.add(r as OutputRecord);
    }
    expect(s.out).toEqual(['x: 8,192 events, 0ms simulated, 819 events/s\n']);
  });

  it('reads the clock as often when endpoint events come counted per second (input.counts)', () => {
    const s = stream(false);
    const clock = { t: 0 };
    const p = new RunProgress('x', { now: () => clock.t, stream: s });
    p.begin(inputOf(undefined));
    // 100 events per record, 1 ms of wall time per record: the 16,384 events a reading waits for are 164
    // records (16,400 events), so the clock is read every 164 records, 164 ms apart. A log waits 10 s: the
    // first reading past it is the 61st (⌈10,000 / 164⌉), at record 61 × 164 = 10,004 (10.004 s), with
    // 1,000,400 events: 100,000 events/s.
    for (let i = 0; i < 10_200; i++) {
      clock.t += 1;
      p.add({ atUs: 0, type: 'input.counts', events: { 'endpoints.set': 60, 'endpoints.delete': 40 } } as OutputRecord);
    }
    expect(s.out).toEqual(['x: 1,000,400 events, 0ms simulated, 100,000 events/s\n']);
  });

  it("draws cli-progress's bar on a terminal, redrawn in place, and clears it at the end", () => {
    const s = stream(true);
    const clock = { t: 0 };
    const p = new RunProgress('churn', { now: () => clock.t, stream: s });
    p.begin(inputOf(100_000));
    // 0.05 ms per record: readings every 819.2 ms, each past the terminal's 500 ms, so every reading shows:
    // 50,000 records give three, at records 16,384, 32,768 and 49,152 (simulated 16.383 s, 32.767 s and
    // 49.151 s of 100 s: 16%, 32%, 49%).
    feed(p, clock, 50_000, 0.05);
    const text = s.out.join('');
    expect(text.match(/churn \S+ (\d+)% \| ETA/g)?.map((m) => /(\d+)%/.exec(m)![1])).toEqual(['16', '32', '49']);
    // The first at 819.2 ms for 16.383%: 0.8192 × 0.83617 / 0.16383 = 4.18 s left → 4s.
    expect(text).toContain('16% | ETA 4s | 16,384 events, 16.4s simulated, 20,000 events/s');
    // Each redraw starts at the line's first column, never on a new line.
    expect(text).not.toContain('\n');
    // The terminal's settings are left alone (no hidden cursor, no line wrapping turned off): a run stopped
    // by Ctrl-C could not turn them back.
    expect(text).not.toMatch(/\x1b\[\?(25l|7l)/);
    const shown = s.out.length;
    p.done();
    // Cleared: the saved cursor position restored (ESC 8), back to column 1 (CSI 1 G), the line erased (CSI 2 K).
    expect(s.out.slice(shown).join('')).toBe('\x1b8\x1b[1G\x1b[2K');
  });

  it('cuts a long label, then the counts, so that the line fits the terminal and never wraps', () => {
    const s = { ...stream(true), columns: 100 };
    const clock = { t: 0 };
    const label = `big-scenario (about ${'9'.repeat(60)} events expected)`;
    const p = new RunProgress(label, { now: () => clock.t, stream: s });
    p.begin(inputOf(100_000));
    feed(p, clock, 16_384, 0.05);
    const line = s.out.find((w) => w.includes('ETA'))!;
    // 99 characters, the terminal's 100 less one. The bar and " 16% | ETA 4s" take 44; the label keeps its
    // least, 24 (23 and an ellipsis); " | " and 28 of the counts (27 and an ellipsis) fill the rest.
    expect(line).toHaveLength(99);
    expect(line).toBe(`big-scenario (about 999… ${'='.repeat(5)}${'-'.repeat(25)} 16% | ETA 4s | 16,384 events, 16.4s simula…`);
  });
});

describe('how far a run is', () => {
  it('a bare event log: bytes read against its size, from 0 before the run to 1 at its end', () => {
    const log = join(dir, 'churn.jsonl');
    const lines = ['{"routerbench":"eventlog","version":1}', ...Array.from({ length: 200 }, (_, i) => JSON.stringify({ at: i, type: 'network.heal' }))];
    writeFileSync(log, lines.join('\n') + '\n');
    const input = loadRunInput(log);
    const f = progressFraction(input)!;
    expect(f(0)).toBe(0);
    let n = 0;
    for (const _ of input.events()) n++;
    expect(n).toBe(200);
    expect(input.readProgress!()).toEqual({ done: statSync(log).size, total: statSync(log).size });
    expect(f(0)).toBe(1);
  });

  it('a run of a log larger than a read: the percent is the bytes read so far, a chunk (1 MiB) at a time', () => {
    // 40,000 events of 45 to 49 bytes a line: about 1.9 MB, two chunks.
    const log = join(dir, 'big.jsonl');
    const lines = ['{"routerbench":"eventlog","version":1}', ...Array.from({ length: 40_000 }, (_, i) => JSON.stringify({ at: i, type: 'network.heal' }))];
    writeFileSync(log, lines.join('\n') + '\n');
    const size = statSync(log).size;
    const s = stream(false);
    let t = 0;
    // Each reading of the clock 10 s later: the first reading, at record 16,384, shows a line.
    const p = new RunProgress('big', { now: () => (t += 10_000), stream: s });
    runOne(loadRunInput(log), nullSink, [p]);
    // By then the reader has parsed at most 16,384 + 64 lines ahead (under 0.8 MB), all within the first
    // chunk of 1,048,576 bytes: that chunk, of the file's size.
    expect(s.out[0]).toMatch(new RegExp(`^big: ${Math.floor((100 * 1_048_576) / size)}% done, ETA `));
  });

  it('sim.durationMs: simulated time against it, whatever the input', () => {
    const f = progressFraction(parseScenario('sim: { durationMs: 60000 }\nevents: []\n', join(dir, 'd.yaml')))!;
    // 15 s of 60 s.
    expect(f(15_000_000)).toBe(0.25);
    expect(f(90_000_000)).toBe(1);
  });

  it("generators: their window's end and the settle time after it", () => {
    const input = parseScenario('sim: { settleMs: 10000 }\ngenerate:\n  startMs: 5000\n  durationMs: 85000\n  routes: { createPerHour: 60 }\n', join(dir, 'g.yaml'));
    // 5 s + 85 s + 10 s settle = 100 s: 50 s simulated is half.
    expect(progressFraction(input)!(50_000_000)).toBe(0.5);
  });

  it('inline events alone (few, by nature): no fraction', () => {
    expect(progressFraction(parseScenario('events:\n  - { at: 0, type: network.heal }\n', join(dir, 'i.yaml')))).toBeUndefined();
  });
});

it('formatSeconds: seconds, minutes and seconds, hours and minutes', () => {
  expect([0.4, 59.4, 60, 187, 3599.4, 3600, 3 * 3600 + 5 * 60 + 59, Infinity].map(formatSeconds)).toEqual(['0s', '59s', '1m00s', '3m07s', '59m59s', '1h00m', '3h05m', '?']);
});
