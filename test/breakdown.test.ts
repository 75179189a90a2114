import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Breakdown } from '../bench/lib/breakdown.ts';
import { MockHaproxy } from '../sim/haproxy/mock-haproxy.ts';
import { loadRunInput } from '../sim/load-input.ts';
import { MemorySink } from '../sim/output/output-sink.ts';
import { RouterProcess } from '../sim/router-process.ts';
import { runOne } from '../sim/run.ts';

const SCENARIO = join(import.meta.dirname, '..', 'scenarios', 'dcm-steady-endpoint-churn.yaml');

/** A clock that reads the given instants in turn. */
function scripted(...instants: number[]): () => number {
  let i = 0;
  return () => instants[i++]!;
}

describe('Breakdown', () => {
  it('takes a callee\'s time out of its caller\'s', () => {
    // outer starts at 0, inner runs from 10 to 30, outer ends at 100: outer's self time is 100 - 20 = 80.
    const b = new Breakdown(scripted(0, 10, 30, 100));
    b.time('outer', () => b.time('inner', () => undefined));
    const rows = b.table(100);
    expect(rows.find((r) => r.label === 'outer')).toMatchObject({ calls: 1, ms: 0, share: 80 });
    expect(rows.find((r) => r.label === 'inner')).toMatchObject({ calls: 1, share: 20 });
    // Everything was timed: nothing is left over.
    expect(rows.find((r) => r.label.startsWith('other'))!.share).toBe(0);
  });

  it('counts a call that throws, and rethrows', () => {
    const b = new Breakdown(scripted(0, 5));
    expect(() => b.time('x', () => { throw new Error('boom'); })).toThrow('boom');
    // 5 of a total of 10: half, and the other half is left over.
    expect(b.table(10).map((r) => [r.label, r.calls, r.share])).toEqual([
      ['x', 1, 50],
      ['other (engine, timers, invariants, start-up)', 0, 50],
    ]);
  });

  it('sees every event, read and command of a replay, and puts the methods back', () => {
    const before = [RouterProcess.prototype.onChurn, MockHaproxy.prototype.send, MockHaproxy.prototype.load];
    const loaded = loadRunInput(SCENARIO);
    const events = [...loaded.events()];
    const b = new Breakdown();
    b.install();
    const sink = new MemorySink();
    let report;
    try {
      ({ report } = runOne(b.reading(loaded), b.writing(sink)));
    } finally {
      b.uninstall();
    }
    expect([RouterProcess.prototype.onChurn, MockHaproxy.prototype.send, MockHaproxy.prototype.load]).toEqual(before);
    const calls = new Map(b.table(1).map((r) => [r.label, r.calls]));
    // One read per event and the one that finds the end.
    expect(calls.get('read the event log')).toBe(events.length + 1);
    for (const type of new Set(events.map((e) => e.type))) {
      expect(calls.get(`event ${type}`)).toBe(events.filter((e) => e.type === type).length);
    }
    // No faults in this scenario: every command is one send to the mock.
    const sent = [...calls].filter(([label]) => label.startsWith('command ')).reduce((a, [, n]) => a + n, 0);
    expect(sent).toBe(report.runtimeApi.commands);
    expect(calls.get('reload: render the config')).toBe(report.reloads.total);
    expect(calls.get('write the output log')).toBe(sink.records.length);
  });
});
