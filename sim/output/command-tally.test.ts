import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { CompactTally, commandVerb } from './command-tally.ts';
import { CompactSink } from './compact-sink.ts';
import { MemorySink } from './output-sink.ts';
import type { OutputRecord } from './records.ts';

function tallied(steps: ReadonlyArray<{ atUs: number; verb?: string }>): OutputRecord[] {
  const out: OutputRecord[] = [];
  const tally = new CompactTally((r) => out.push(r));
  for (const s of steps) {
    if (s.verb !== undefined) tally.count(s.atUs, s.verb);
    else {
      const r: OutputRecord = { atUs: s.atUs, type: 'note', message: 'n' };
      tally.pass(r);
      out.push(r);
    }
  }
  const end: OutputRecord = { atUs: steps.at(-1)?.atUs ?? 0, type: 'run.end', events: 0, simulatedMs: 0 };
  tally.pass(end);
  out.push(end);
  return out;
}

describe('the command tally', () => {
  it('writes one record per simulated second with commands, per verb, before the first record of a later second', () => {
    const out = tallied([
      { atUs: 100, verb: 'set server' },
      { atUs: 200, verb: 'set server' },
      { atUs: 300, verb: 'show servers' },
      { atUs: 400 },
      { atUs: 999_999, verb: 'set server' },
      { atUs: 1_000_000 },
      { atUs: 2_500_000, verb: 'add map' },
    ]);
    expect(out).toEqual([
      { atUs: 400, type: 'note', message: 'n' },
      { atUs: 999_999, type: 'runtime.counts', ok: { 'set server': 3, 'show servers': 1 } },
      { atUs: 1_000_000, type: 'note', message: 'n' },
      // The last second's counts go out before run.end, which closes the log.
      { atUs: 2_500_000, type: 'runtime.counts', ok: { 'add map': 1 } },
      { atUs: 2_500_000, type: 'run.end', events: 0, simulatedMs: 0 },
    ]);
  });

  // What the report needs of the commands: how many. And a log whose times go backwards is not one a run writes.
  test.prop([fc.array(fc.record({ dt: fc.nat({ max: 3_000_000 }), verb: fc.option(fc.constantFrom('set server', 'add map'), { nil: undefined }) }), { maxLength: 60 })])(
    'counts every command once, in non-decreasing time order',
    (steps) => {
      let atUs = 0;
      const timed = steps.map((s) => ({ atUs: (atUs += s.dt), ...(s.verb !== undefined && { verb: s.verb }) }));
      const out = tallied(timed);
      const counted = out.reduce((n, r) => n + (r.type === 'runtime.counts' ? Object.values(r.ok).reduce((a, b) => a + b, 0) : 0), 0);
      expect(counted).toBe(timed.filter((s) => s.verb !== undefined).length);
      for (let i = 1; i < out.length; i++) expect(out[i]!.atUs).toBeGreaterThanOrEqual(out[i - 1]!.atUs);
      // At most one counts record per second of commands.
      const seconds = new Set(out.filter((r) => r.type === 'runtime.counts').map((r) => Math.floor(r.atUs / 1_000_000)));
      expect(seconds.size).toBe(out.filter((r) => r.type === 'runtime.counts').length);
    },
  );
});

describe('a command verb', () => {
  it.each([
    ['set server be_http:ns:r/pod-1 state ready', 'set server'],
    ['show servers state', 'show servers'],
    ['add map /var/lib/haproxy/conf/os_http_be.map ^a$ be', 'add map'],
    ['help', 'help'],
    ['show info', 'show info'],
  ])('of %s is %s', (line, verb) => expect(commandVerb(line)).toBe(verb));
});

describe('the compact sink', () => {
  it('writes what the router writes when it counts: failed attempts in full, successful ones counted', () => {
    const inner = new MemorySink();
    const sink = new CompactSink(inner);
    const records: OutputRecord[] = [
      { atUs: 0, type: 'input', event: 'endpoints.set', subject: 'ns/s' },
      { atUs: 10, type: 'runtime.command', line: 'set server be/s1 addr 10.0.0.1 port 8080', outcome: 'ok', reply: 'IP changed from 1.1.1.1 to 10.0.0.1' },
      { atUs: 11, type: 'runtime.command', line: 'set server be/s1 state ready', outcome: 'refused' },
      { atUs: 12, type: 'runtime.command', line: 'set server be/s1 state ready', outcome: 'ok' },
      { atUs: 1_000_000, type: 'run.end', events: 1, simulatedMs: 1000 },
    ];
    for (const r of records) sink.record(r);
    expect(inner.records).toEqual([
      records[2],
      // The second's counts take its last time, inputs first.
      { atUs: 12, type: 'input.counts', events: { 'endpoints.set': 1 } },
      { atUs: 12, type: 'runtime.counts', ok: { 'set server': 2 } },
      records[4],
    ]);
    const traced = new MemorySink();
    const tracing = new CompactSink(traced, 'counted', 'traced');
    for (const r of records) tracing.record(r);
    expect(traced.records[0]).toEqual(records[0]);
  });
});

describe('endpoint inputs in the compact log', () => {
  function through(records: readonly OutputRecord[], inputs: 'counted' | 'traced' = 'counted'): OutputRecord[] {
    const out: OutputRecord[] = [];
    const tally = new CompactTally((r) => out.push(r), inputs);
    for (const r of records) if (!tally.pass(r)) out.push(r);
    return out;
  }
  const set = (atUs: number, subject = 'ns/s'): OutputRecord => ({ atUs, type: 'input', event: 'endpoints.set', subject });

  it('counts endpoint events per simulated second and writes every other input', () => {
    const route: OutputRecord = { atUs: 300, type: 'input', event: 'route.upsert', subject: 'ns/r' };
    const fail: OutputRecord = { atUs: 2_000_000, type: 'input', event: 'node.fail', subject: 'n1' };
    const out = through([
      set(100),
      { atUs: 200, type: 'input', event: 'endpoints.delete', subject: 'ns/t' },
      route,
      set(999_999, 'ns/u'),
      set(1_000_000),
      fail,
      { atUs: 2_000_001, type: 'run.end', events: 6, simulatedMs: 2000 },
    ]);
    expect(out).toEqual([
      route,
      // Three endpoint events in [0 s, 1 s), one in [1 s, 2 s), each second's out before a later second's first record.
      { atUs: 999_999, type: 'input.counts', events: { 'endpoints.delete': 1, 'endpoints.set': 2 } },
      { atUs: 1_000_000, type: 'input.counts', events: { 'endpoints.set': 1 } },
      fail,
      { atUs: 2_000_001, type: 'run.end', events: 6, simulatedMs: 2000 },
    ]);
  });

  it('writes every input as a line when inputs are traced', () => {
    const records = [set(1), set(2), { atUs: 3, type: 'run.end', events: 2, simulatedMs: 0 } as const];
    expect(through(records, 'traced')).toEqual(records);
  });

  // report.html's buckets need each second's number of endpoint events, and a reader needs time never to go back.
  const step = fc.record({
    dt: fc.nat({ max: 1_500_000 }),
    event: fc.constantFrom('endpoints.set', 'endpoints.delete', 'route.upsert', 'route.delete'),
  });
  test.prop([fc.array(step, { maxLength: 80 })])('counts every endpoint event once, in the second it was applied', (steps) => {
    let atUs = 0;
    const records: OutputRecord[] = steps.map((s) => ({ atUs: (atUs += s.dt), type: 'input', event: s.event, subject: 'ns/x' }));
    const out = through([...records, { atUs, type: 'run.end', events: records.length, simulatedMs: 0 }]);
    const perSecond = (rs: readonly OutputRecord[]): Map<number, number> => {
      const m = new Map<number, number>();
      for (const r of rs) {
        const n = r.type === 'input.counts' ? Object.values(r.events).reduce((a, b) => a + b, 0) : r.type === 'input' && r.event.startsWith('endpoints.') ? 1 : 0;
        if (n > 0) m.set(Math.floor(r.atUs / 1_000_000), (m.get(Math.floor(r.atUs / 1_000_000)) ?? 0) + n);
      }
      return m;
    };
    expect(perSecond(out)).toEqual(perSecond(records));
    expect(out.filter((r) => r.type === 'input')).toEqual(records.filter((r) => r.type === 'input' && r.event.startsWith('route.')));
    for (let i = 1; i < out.length; i++) expect(out[i]!.atUs).toBeGreaterThanOrEqual(out[i - 1]!.atUs);
  });
});

describe('reload requests in the compact log', () => {
  /** Records through the tally as run.ts writes them: each either counted or written. */
  function through(records: readonly OutputRecord[]): OutputRecord[] {
    const out: OutputRecord[] = [];
    const tally = new CompactTally((r) => out.push(r));
    for (const r of records) if (!tally.pass(r)) out.push(r);
    return out;
  }

  it('writes the first request after each reload start and every request with a detail; the rest are counted per second', () => {
    const out = through([
      { atUs: 0, type: 'reload.request', reason: 'initial' },
      { atUs: 0, type: 'reload.start', n: 1 },
      { atUs: 10, type: 'reload.request', reason: 'endpoints-change' },
      { atUs: 20, type: 'reload.request', reason: 'endpoints-change' },
      { atUs: 30, type: 'reload.request', reason: 'route-change' },
      { atUs: 40, type: 'reload.request', reason: 'reload-in-progress', detail: 'reload in progress, cannot dynamically delete endpoints of ns/s' },
      { atUs: 50, type: 'reload.request', reason: 'endpoints-change' },
      { atUs: 1_000_000, type: 'reload.end', n: 1 },
      { atUs: 5_000_000, type: 'reload.start', n: 2 },
      { atUs: 5_000_010, type: 'reload.request', reason: 'endpoints-change' },
      { atUs: 5_000_020, type: 'run.end', events: 0, simulatedMs: 5000 },
    ]);
    expect(out).toEqual([
      { atUs: 0, type: 'reload.request', reason: 'initial' },
      { atUs: 0, type: 'reload.start', n: 1 },
      { atUs: 10, type: 'reload.request', reason: 'endpoints-change' },
      { atUs: 40, type: 'reload.request', reason: 'reload-in-progress', detail: 'reload in progress, cannot dynamically delete endpoints of ns/s' },
      // Requests at 20, 30 and 50 µs folded into the reload asked for at 10 µs, out before the next second's first record.
      { atUs: 50, type: 'reload.counts', requests: { 'endpoints-change': 2, 'route-change': 1 } },
      { atUs: 1_000_000, type: 'reload.end', n: 1 },
      { atUs: 5_000_000, type: 'reload.start', n: 2 },
      { atUs: 5_000_010, type: 'reload.request', reason: 'endpoints-change' },
      { atUs: 5_000_020, type: 'run.end', events: 0, simulatedMs: 5000 },
    ]);
  });

  it('writes the commands counted in a second before its folded requests', () => {
    const out: OutputRecord[] = [];
    const tally = new CompactTally((r) => out.push(r));
    for (const r of [{ atUs: 1, type: 'reload.request', reason: 'route-change' }, { atUs: 2, type: 'reload.request', reason: 'route-change' }] as const) {
      if (!tally.pass(r)) out.push(r);
    }
    tally.count(3, 'set server');
    tally.pass({ atUs: 1_000_000, type: 'run.end', events: 0, simulatedMs: 1000 });
    expect(out.map((r) => r.type)).toEqual(['reload.request', 'runtime.counts', 'reload.counts']);
  });

  // The report needs the number of requests per reason; a reader needs time never to go backwards.
  const step = fc.oneof(
    fc.record({ dt: fc.nat({ max: 2_000_000 }), kind: fc.constant('request' as const), reason: fc.constantFrom('route-change', 'endpoints-change'), detail: fc.boolean() }),
    fc.record({ dt: fc.nat({ max: 2_000_000 }), kind: fc.constant('start' as const) }),
    fc.record({ dt: fc.nat({ max: 2_000_000 }), kind: fc.constant('command' as const) }),
  );
  test.prop([fc.array(step, { maxLength: 80 })])('every request is written or counted once, per reason, in non-decreasing time order', (steps) => {
    const out: OutputRecord[] = [];
    const tally = new CompactTally((r) => out.push(r));
    const made: Record<string, number> = {};
    let atUs = 0;
    let n = 0;
    for (const s of steps) {
      atUs += s.dt;
      if (s.kind === 'command') {
        tally.count(atUs, 'set server');
        continue;
      }
      const r: OutputRecord =
        s.kind === 'start' ? { atUs, type: 'reload.start', n: ++n } : { atUs, type: 'reload.request', reason: s.reason, ...(s.detail && { detail: 'd' }) };
      if (r.type === 'reload.request') made[r.reason] = (made[r.reason] ?? 0) + 1;
      if (!tally.pass(r)) out.push(r);
    }
    const end: OutputRecord = { atUs, type: 'run.end', events: 0, simulatedMs: 0 };
    if (!tally.pass(end)) out.push(end);
    const seen: Record<string, number> = {};
    for (const r of out) {
      if (r.type === 'reload.request') seen[r.reason] = (seen[r.reason] ?? 0) + 1;
      if (r.type === 'reload.counts') for (const [k, v] of Object.entries(r.requests)) seen[k] = (seen[k] ?? 0) + v;
    }
    expect(seen).toEqual(made);
    for (let i = 1; i < out.length; i++) expect(out[i]!.atUs).toBeGreaterThanOrEqual(out[i - 1]!.atUs);
    expect(out.at(-1)!.type).toBe('run.end');
  });
});
