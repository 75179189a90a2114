import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectReport } from '../../reports/project-report.ts';
import { InputError } from '../eventlog/input-error.ts';
import { loadRunInput } from '../load-input.ts';
import { headerOf, judge, runOne } from '../run.ts';
import { readOutputLog } from './output-log-reader.ts';
import { JsonlFileSink, nullSink } from './output-sink.ts';
import type { OutputRecord, TraceName } from './records.ts';

const SCENARIO = join(import.meta.dirname, '..', '..', 'scenarios', 'route-burst.yaml');
const dir = mkdtempSync(join(tmpdir(), 'rb-outlog-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** route-burst's own output log, written as `run --out` writes it: the lines every edit below starts from. */
const written = join(dir, 'written.jsonl');
const sink = new JsonlFileSink(written, headerOf(loadRunInput(SCENARIO)));
const { report: runReport } = runOne(loadRunInput(SCENARIO), sink);
sink.commit();
const LINES = readFileSync(written, 'utf8').trimEnd().split('\n');
const HEADER = JSON.parse(LINES[0]!) as Record<string, unknown>;
const END = LINES.length; // run.end is the last line

let n = 0;
function log(lines: readonly string[]): string {
  const file = join(dir, `edited-${n++}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** Reads the whole log as `report` does and returns the input error it meets. */
function errorOf(file: string): InputError {
  try {
    const { header, records } = readOutputLog(file);
    projectReport(header, records);
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error(`${file} was read without an error`);
}

/** The lines of `input`'s output log with `trace`, header first. */
function tracedRun(input: ReturnType<typeof loadRunInput>, trace: TraceName[]): string[] {
  const path = join(dir, `traced-${n++}.jsonl`);
  const sink = new JsonlFileSink(path, headerOf(input, { trace }));
  runOne(input, sink, [], { trace });
  sink.commit();
  return readFileSync(path, 'utf8').trimEnd().split('\n');
}

/** Records as a version before 3 wrote them: each request a `reload.counts` folded, a line of its own at the counts' time. */
function unfolded(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const r = JSON.parse(line) as OutputRecord;
    if (r.type !== 'reload.counts') out.push(line);
    else for (const [reason, count] of Object.entries(r.requests)) for (let i = 0; i < count; i++) out.push(JSON.stringify({ atUs: r.atUs, type: 'reload.request', reason }));
  }
  return out;
}

const at = (e: InputError) => ({ file: e.file, line: e.line, field: e.field });
/** `lines` with line `no` (1-based, as messages count) replaced, or a line inserted before it. */
const replaced = (no: number, text: string) => LINES.map((l, i) => (i === no - 1 ? text : l));
const inserted = (no: number, text: string) => [...LINES.slice(0, no - 1), text, ...LINES.slice(no - 1)];

describe('readOutputLog', () => {
  it('reads the log a run wrote back into the same report', () => {
    const { header, records } = readOutputLog(written);
    expect(JSON.stringify(judge(projectReport(header, records), header.budgets))).toBe(JSON.stringify(runReport));
    // route-burst.test.ts derives it: pool 12 with 2 slots reloads twice (initial, no-blueprint-match).
    expect(runReport.reloads.total).toBe(2);
  });

  it("carries the header's setting sources into the report; a header without them (older logs) gives a report without them", () => {
    const { header } = readOutputLog(written);
    expect(header.settingSources).toEqual(runReport.settingSources);
    // route-burst.yaml writes `strategy: dcm-slots` on the line found here, and no sim.invariants.
    const strategyLine = readFileSync(SCENARIO, 'utf8').split('\n').indexOf('  strategy: dcm-slots') + 1;
    expect(runReport.settingSources?.['router.strategy']).toBe(`${SCENARIO}:${strategyLine}`);
    expect(runReport.settingSources?.['sim.invariants']).toBe('default');

    const { settingSources: _, ...older } = HEADER;
    const old = readOutputLog(log([JSON.stringify(older), ...LINES.slice(1)]));
    const report = projectReport(old.header, old.records);
    expect(Object.hasOwn(report, 'settingSources')).toBe(false);
    const { settingSources: __, ...rest } = judge(report, old.header.budgets);
    expect(JSON.stringify({ ...rest, settingSources: runReport.settingSources })).toBe(JSON.stringify(runReport));
  });

  it('reads every record type of the output log, optional fields included', () => {
    const header = JSON.stringify({ ...HEADER, budgets: ['reloads.total <= 1'] });
    const records: OutputRecord[] = [
      { atUs: 0, type: 'warning', message: 'w' },
      { atUs: 0, type: 'input', event: 'route.upsert', subject: 'ns/a' },
      { atUs: 0, type: 'reload.request', reason: 'initial' },
      { atUs: 5, type: 'reload.request', reason: 'route-change', detail: 'ns/a' },
      { atUs: 10, type: 'reload.start', n: 1 },
      { atUs: 20, type: 'reload.end', n: 1 },
      { atUs: 30, type: 'runtime.command', line: 'show servers state', outcome: 'ok', reply: '1' },
      { atUs: 31, type: 'runtime.command', line: 'set server b/s state ready', outcome: 'timeout' },
      { atUs: 32, type: 'runtime.error', detail: 'gave up' },
      { atUs: 33, type: 'runtime.counts', ok: { 'set server': 4, 'show servers': 1 } },
      { atUs: 33, type: 'reload.counts', requests: { 'endpoints-change': 3, 'route-change': 2 } },
      { atUs: 40, type: 'note', message: 'n' },
      { atUs: 50, type: 'invariant', name: 'haproxy-view', violations: ['v1', 'v2'] },
      { atUs: 60, type: 'vrrp.state', node: 'a', vrid: 51, vip: '10.0.0.1', from: 'INIT', to: 'MASTER', priority: 100 },
      { atUs: 61, type: 'vrrp.state', node: 'a', vrid: 51, vip: '10.0.0.1', from: 'MASTER', to: 'BACKUP', priority: 90, cause: 'x' },
      { atUs: 62, type: 'vrrp.garp', node: 'a', vrid: 51, vip: '10.0.0.1' },
      { atUs: 63, type: 'vrrp.garp', node: 'a', vrid: 51, vip: '10.0.0.1', reason: 'repeat' },
      { atUs: 64, type: 'vrrp.node', node: 'a', live: false, cause: 'node.fail' },
      { atUs: 65, type: 'vrrp.membership', node: 'b', change: 'join', ip: '10.0.0.2' },
      { atUs: 65, type: 'vrrp.membership', node: 'c', change: 'join', ip: '10.0.0.3', priority: 200, preempt: true, preemptDelayMs: 1500 },
      { atUs: 66, type: 'vrrp.membership', node: 'b', change: 'peers-updated' },
      { atUs: 67, type: 'vrrp.exposure', node: 'b', open: true, vips: 1 },
      { atUs: 68, type: 'vrrp.stats', advertsSent: 1, packetsSent: 2, deliveries: 3, dropped: 0 },
      { atUs: 69, type: 'vrrp.stats', advertsSent: 1, packetsSent: 2, deliveries: 3, dropped: 0, mode: 'unicast', nodes: 2, instances: 1, intervalDrops: 0 },
      { atUs: 2_000_000, type: 'run.end', events: 1, simulatedMs: 2000 },
    ];
    const { header: h, records: rs } = readOutputLog(log([header, ...records.map((r) => JSON.stringify(r))]));
    const report = judge(projectReport(h, rs), h.budgets);
    // 1 reload.start; requests: 1 initial, 1 + 2 route-change, 3 endpoints-change (lines and counted);
    // 2 runtime.command lines and 4 + 1 counted, 1 runtime.error; 1 invariant record
    // holding 2 violations; 1 warning; run.end's figures as written.
    expect(report).toMatchObject({
      reloads: { total: 1, requests: { 'endpoints-change': 3, initial: 1, 'route-change': 3 } },
      runtimeApi: { commands: 7, errors: 1 },
      invariants: { checked: 1, violations: [{ name: 'haproxy-view', detail: 'v1' }, { name: 'haproxy-view', detail: 'v2' }] },
      warnings: { total: 1 },
      events: 1,
      simulatedMs: 2000,
    });
    // The two violations fail the built-in invariants budget; reloads.total <= 1 holds.
    expect(report.budgets.map((b) => [b.name, b.limit, b.actual, b.pass])).toEqual([
      ['invariants.violations', '== 0', 2, false],
      ['reloads.total', '<= 1', 1, true],
    ]);
  });

  it('reads a version 1 log (every command, input and reload request a line, no counts) as it always did', () => {
    // The same run traced whole, each folded request put back as a line: what version 1 wrote, header and all.
    const traced = tracedRun(loadRunInput(SCENARIO), ['runtime', 'inputs']);
    const { trace: _, ...untraced } = JSON.parse(traced[0]!) as Record<string, unknown>;
    const lines = unfolded(traced.slice(1));
    expect(lines.some((l) => /"type":"(runtime|reload|input)\.counts"/.test(l))).toBe(false);
    const { header, records } = readOutputLog(log([JSON.stringify({ ...untraced, version: 1 }), ...lines]));
    expect(header.version).toBe(1);
    expect(JSON.stringify(judge(projectReport(header, records), header.budgets))).toBe(JSON.stringify(runReport));
  });

  it('reads a version 2 log (every reload request a line, none folded) into the same report', () => {
    // route-burst under reload-always asks for a reload per route while one is pending: v3 folds those.
    const input = loadRunInput(SCENARIO, { set: { 'router.strategy': 'reload-always' } });
    const { report } = runOne(input, nullSink);
    // The same run as version 2 wrote it: every input a line (no trace said so then), each folded request
    // a line of its own, at the counts' time.
    const traced = tracedRun(input, ['inputs']);
    expect(traced.some((l) => l.includes('"type":"reload.counts"'))).toBe(true);
    const { trace: _, ...untraced } = JSON.parse(traced[0]!) as Record<string, unknown>;
    const v2 = [JSON.stringify({ ...untraced, version: 2 }), ...unfolded(traced.slice(1))];
    const { header, records } = readOutputLog(log(v2));
    expect(header.version).toBe(2);
    expect(JSON.stringify(judge(projectReport(header, records), header.budgets))).toBe(JSON.stringify(report));
  });

  it('reads a version 3 log (every endpoint event an input line) into the same report', () => {
    // churn-with-failover has endpoint churn beside its cluster faults: the failover report reads the latter.
    const scenario = join(import.meta.dirname, '..', '..', 'scenarios', 'churn-with-failover.yaml');
    const input = loadRunInput(scenario);
    const path = join(dir, 'v4.jsonl');
    const v4Sink = new JsonlFileSink(path, headerOf(input));
    const { report } = runOne(input, v4Sink);
    v4Sink.commit();
    const v4 = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(v4.some((l) => l.includes('"type":"input.counts"'))).toBe(true);
    // The same run with every input a line, as version 3 wrote it.
    const tracedPath = join(dir, 'v3.jsonl');
    const v3Sink = new JsonlFileSink(tracedPath, headerOf(input, { trace: ['inputs'] }));
    runOne(input, v3Sink, [], { trace: ['inputs'] });
    v3Sink.commit();
    const traced = readFileSync(tracedPath, 'utf8').trimEnd().split('\n');
    const { trace: _, ...untraced } = JSON.parse(traced[0]!) as Record<string, unknown>;
    expect(traced.some((l) => l.includes('"event":"endpoints.set"'))).toBe(true);
    const { header, records } = readOutputLog(log([JSON.stringify({ ...untraced, version: 3 }), ...traced.slice(1)]));
    expect(header.version).toBe(3);
    expect(JSON.stringify(judge(projectReport(header, records), header.budgets))).toBe(JSON.stringify(report));
    // Counting the endpoint events is all that differs between the two logs.
    const counted = traced.slice(1).filter((l) => !/"event":"endpoints\.(set|delete)"/.test(l));
    expect(v4.slice(1).filter((l) => !l.includes('"type":"input.counts"'))).toEqual(counted);
  });

  describe('is an input error naming the file, line and field', () => {
    it('for a version it does not know, or a trace it does not know', () => {
      const v5 = log([JSON.stringify({ ...HEADER, version: 5 }), ...LINES.slice(1)]);
      expect(at(errorOf(v5))).toEqual({ file: v5, line: 1, field: 'version' });
      const trace = log([JSON.stringify({ ...HEADER, trace: ['everything'] }), ...LINES.slice(1)]);
      expect(at(errorOf(trace))).toEqual({ file: trace, line: 1, field: 'trace[0]' });
    });


    it("for a record the header's version or trace rules out (record-version.ts), or a trace its version did not know", () => {
      // route-burst's own log is version 4 without a trace: its endpoint events are counted, never lines.
      expect(LINES.some((l) => l.includes('"type":"input.counts"'))).toBe(true);
      const counts = LINES.findIndex((l) => l.includes('"type":"input.counts"')) + 1;
      const v3 = log([JSON.stringify({ ...HEADER, version: 3 }), ...LINES.slice(1)]);
      const e = errorOf(v3);
      expect(at(e)).toEqual({ file: v3, line: counts, field: 'type' });
      expect(e.message).toContain('written since version 4');
      // An endpoint event as a line beside the counts: the report would count it twice.
      const line = inserted(counts, JSON.stringify({ atUs: JSON.parse(LINES[counts - 1]!).atUs, type: 'input', event: 'endpoints.set', subject: 'shop/web' }));
      const twice = log(line);
      expect(at(errorOf(twice))).toEqual({ file: twice, line: counts, field: 'event' });
      const inputsInV3 = log([JSON.stringify({ ...HEADER, version: 3, trace: ['inputs'] }), ...LINES.slice(1)]);
      expect(at(errorOf(inputsInV3))).toEqual({ file: inputsInV3, line: 1, field: 'trace[0]' });
    });

    it('for a header whose budgets are no list of strings, or hold one that cannot be read', () => {
      const five = log([JSON.stringify({ ...HEADER, budgets: 5 }), ...LINES.slice(1)]);
      // Thrown by readOutputLog itself, before a record is folded: `report` used to crash folding it.
      expect(() => readOutputLog(five)).toThrow(InputError);
      expect(at(errorOf(five))).toEqual({ file: five, line: 1, field: 'budgets' });
      const typo = log([JSON.stringify({ ...HEADER, budgets: ['reloads.total <= 2', 'reloads.totl <= 2'] }), ...LINES.slice(1)]);
      const e = errorOf(typo);
      expect(at(e)).toEqual({ file: typo, line: 1, field: 'budgets[1]' });
      expect(e.message).toContain("bad budget 'reloads.totl <= 2': unknown metric 'reloads.totl'");
    });

    it('for a header field routerbench does not write, or a missing one', () => {
      const extra = log([JSON.stringify({ ...HEADER, colour: 'blue' }), ...LINES.slice(1)]);
      expect(at(errorOf(extra))).toEqual({ file: extra, line: 1, field: 'colour' });
      const { seed: _seed, ...noSeed } = HEADER;
      const missing = log([JSON.stringify(noSeed), ...LINES.slice(1)]);
      expect(errorOf(missing)).toMatchObject({ line: 1, field: 'seed', detail: expect.stringContaining('missing') });
    });

    it('for a run.end whose atUs is no number and whose events are missing', () => {
      const file = log(replaced(END, '{"atUs":"x","type":"run.end","simulatedMs":660000}'));
      const e = errorOf(file);
      expect(at(e)).toEqual({ file, line: END, field: 'atUs' });
      expect(e.message).toContain('run.end record');
      const noEvents = log(replaced(END, '{"atUs":660000000,"type":"run.end","simulatedMs":660000}'));
      expect(errorOf(noEvents)).toMatchObject({ line: END, field: 'events', detail: 'run.end record: missing (expected number)' });
    });

    it('for a record missing its fields, an unknown record type, a field no record has, a line that is no record', () => {
      // Inserted as line 3: line 1 is the header, line 2 the first record.
      const bare = log(inserted(3, '{"type":"reload.start"}'));
      expect(at(errorOf(bare))).toEqual({ file: bare, line: 3, field: 'atUs' });
      const unknown = log(inserted(3, '{"atUs":0,"type":"reload.frobnicate"}'));
      expect(errorOf(unknown)).toMatchObject({ line: 3, field: 'type', detail: expect.stringMatching(/^unknown record type "reload.frobnicate"/) });
      const untyped = log(inserted(3, '{"atUs":0}'));
      expect(errorOf(untyped)).toMatchObject({ line: 3, field: 'type', detail: "missing 'type'" });
      const extra = log(inserted(3, '{"atUs":0,"type":"reload.start","n":1,"by":"hand"}'));
      expect(errorOf(extra)).toMatchObject({ line: 3, field: 'by', detail: "reload.start record: unknown field 'by'" });
      const reason = log(inserted(3, '{"atUs":0,"type":"reload.request","reason":"because"}'));
      expect(errorOf(reason)).toMatchObject({ line: 3, field: 'reason' });
      const array = log(inserted(3, '[]'));
      expect(errorOf(array)).toMatchObject({ line: 3, field: 'type' });
      const blank = log(inserted(3, ''));
      expect(errorOf(blank)).toMatchObject({ line: 3, detail: expect.stringContaining('empty line') });
    });

    describe('for records out of the order a run writes them', () => {
      const lineOf = (type: string, from = 1): number => LINES.findIndex((l, i) => i >= from && (JSON.parse(l) as { type: string }).type === type) + 1;
      const start1 = lineOf('reload.start');
      const end1 = lineOf('reload.end');
      const start2 = lineOf('reload.start', start1);

      it('a reload.start line duplicated: refused, not counted as one reload too many', () => {
        // route-burst reloads twice (initial, then no-blueprint-match); its first start is reload 1.
        expect(JSON.parse(LINES[start1 - 1]!)).toMatchObject({ type: 'reload.start', n: 1 });
        const twice = log(inserted(start1 + 1, LINES[start1 - 1]!));
        expect(errorOf(twice)).toMatchObject({ line: start1 + 1, field: 'type', detail: `reload 1 starts while reload 1 (started at line ${start1}) has not ended; reloads run one at a time` });
        // Duplicated after its end (at the end's time, so that time still runs forward), a second reload 1.
        const endAt = (JSON.parse(LINES[end1 - 1]!) as { atUs: number }).atUs;
        const again = log(inserted(end1 + 1, JSON.stringify({ atUs: endAt, type: 'reload.start', n: 1 })));
        expect(errorOf(again)).toMatchObject({ line: end1 + 1, field: 'n', detail: 'reload 1 starts after reload 1; reloads are numbered 1, 2, 3 … as they start' });
      });

      it('a reload.end with another number, or with no reload running', () => {
        const other = log(replaced(end1, LINES[end1 - 1]!.replace('"n":1', '"n":2')));
        expect(errorOf(other)).toMatchObject({ line: end1, field: 'n', detail: 'reload 2 ends but reload 1 is the one running' });
        const twice = log(inserted(end1 + 1, LINES[end1 - 1]!));
        expect(errorOf(twice)).toMatchObject({ line: end1 + 1, field: 'n', detail: 'reload 1 ends but reload 1 has already ended' });
      });

      it('a reload skipped: the second start numbered 3', () => {
        expect(start2).toBeGreaterThan(end1);
        const skipped = log(replaced(start2, LINES[start2 - 1]!.replace('"n":2', '"n":3')));
        expect(errorOf(skipped)).toMatchObject({ line: start2, field: 'n', detail: 'reload 3 starts after reload 1; reloads are numbered 1, 2, 3 … as they start' });
      });

      it('a record moved so that time goes backwards', () => {
        // A record 1 µs before the second reload's start, placed right after it.
        const at2 = (JSON.parse(LINES[start2 - 1]!) as { atUs: number }).atUs;
        const moved = log(inserted(start2 + 1, JSON.stringify({ atUs: at2 - 1, type: 'note', message: 'moved' })));
        expect(errorOf(moved)).toMatchObject({ line: start2 + 1, field: 'atUs', detail: `time goes backwards: ${at2 - 1} µs after ${at2} µs at line ${start2}; a run writes its records in time order` });
      });
    });

    it('for a log cut short (no run.end) or one that goes on after its run.end', () => {
      const cut = log(LINES.slice(0, END - 1));
      expect(errorOf(cut)).toMatchObject({ file: cut, detail: expect.stringContaining('no run.end record') });
      // The appended note is line END + 1, after run.end on line END.
      const after = log([...LINES, '{"atUs":0,"type":"note","message":"late"}']);
      expect(errorOf(after)).toMatchObject({ line: END + 1, field: 'type', detail: expect.stringContaining(`after the run.end record of line ${END}`) });
    });
  });
});
