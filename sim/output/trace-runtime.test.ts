import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectReport } from '../../reports/project-report.ts';
import { projectTimeline } from '../../reports/timeline.ts';
import { loadRunInput, type InputOverrides } from '../load-input.ts';
import { headerOf, judge, runOne, type RunOptions } from '../run.ts';
import { readOutputLog } from './output-log-reader.ts';
import { JsonlFileSink } from './output-sink.ts';
import type { OutputRecord } from './records.ts';

const SCENARIOS = join(import.meta.dirname, '..', '..', 'scenarios');
const dir = mkdtempSync(join(tmpdir(), 'rb-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** dcm-steady-endpoint-churn with a `haproxy:` section: every kind of socket fault, often. */
const faulty = join(dir, 'dcm-steady-endpoint-churn-faults.yaml');
writeFileSync(
  faulty,
  readFileSync(join(SCENARIOS, 'dcm-steady-endpoint-churn.yaml'), 'utf8') + '\nhaproxy:\n  refusedRate: 0.05\n  resetRate: 0.05\n  restartRate: 0.01\n  slowRate: 0.02\n',
);

const CASES: Array<[string, string, InputOverrides]> = [
  ['route-burst', join(SCENARIOS, 'route-burst.yaml'), {}],
  ['dcm-scale-storm', join(SCENARIOS, 'dcm-scale-storm.yaml'), {}],
  ['dcm-multi-port-routes under dcm-add-del', join(SCENARIOS, 'dcm-multi-port-routes.yaml'), { set: { 'router.strategy': 'dcm-add-del' } }],
  ['churn-with-failover (a keepalived cluster)', join(SCENARIOS, 'churn-with-failover.yaml'), {}],
  ['dcm-steady-endpoint-churn with socket faults (haproxy: section)', faulty, {}],
  ['dcm-steady-endpoint-churn with socket faults under dcm-add-del', faulty, { set: { 'router.strategy': 'dcm-add-del' } }],
];

let n = 0;
/** One run written as `run --out` writes it: its report, and its log read back. */
function written(file: string, overrides: InputOverrides, options: RunOptions) {
  const path = join(dir, `output-${n++}.jsonl`);
  const input = loadRunInput(file, overrides);
  const sink = new JsonlFileSink(path, headerOf(input, options));
  const { report } = runOne(input, sink, [], options);
  sink.commit();
  const { header, records } = readOutputLog(path);
  const rs: OutputRecord[] = [...records];
  return { path, report: JSON.stringify(report, null, 2), rebuilt: JSON.stringify(judge(projectReport(header, rs), header.budgets), null, 2), header, records: rs };
}

describe('--trace runtime', () => {
  it.each(CASES)('%s: the same report.json with and without it, rebuilt from either log', (_name, file, overrides) => {
    const compact = written(file, overrides, {});
    const traced = written(file, overrides, { trace: ['runtime'] });
    expect(traced.report).toBe(compact.report);
    expect(compact.rebuilt).toBe(compact.report);
    expect(traced.rebuilt).toBe(traced.report);
    const commands = (JSON.parse(compact.report) as { runtimeApi: { commands: number } }).runtimeApi.commands;
    // Traced: every attempt is a line, as in version 1. Compact: only the failed ones; the rest are counted.
    expect(traced.header.trace).toEqual(['runtime']);
    expect(compact.header.trace).toBeUndefined();
    expect(traced.records.filter((r) => r.type === 'runtime.command')).toHaveLength(commands);
    expect(traced.records.some((r) => r.type === 'runtime.counts')).toBe(false);
    // Compact: the attempts the socket did not deliver and the replies HAProxy refused, in full, in order.
    const failed = traced.records.filter((r) => r.type === 'runtime.command' && r.outcome !== 'ok');
    const inFull = compact.records.filter((r) => r.type === 'runtime.command');
    expect(inFull.filter((r) => r.outcome !== 'ok')).toEqual(failed);
    const refusals = inFull.filter((r) => r.outcome === 'ok');
    expect(refusals.every((r) => r.reply !== undefined && r.reply.trim() !== '')).toBe(true);
    let at = 0;
    const tracedCommands = traced.records.filter((r) => r.type === 'runtime.command');
    for (const r of inFull) {
      at = tracedCommands.findIndex((t, i) => i >= at && JSON.stringify(t) === JSON.stringify(r));
      expect(at).toBeGreaterThanOrEqual(0);
      at++;
    }
    // Everything else is the same, record for record and in the same order.
    const others = (rs: OutputRecord[]) => rs.filter((r) => r.type !== 'runtime.command' && r.type !== 'runtime.counts');
    expect(others(compact.records)).toEqual(others(traced.records));
    if (commands > failed.length) expect(statSync(compact.path).size).toBeLessThan(statSync(traced.path).size);
  });

  it('writes failed attempts in full (a faulty socket), and refusals with HAProxy\'s reply', () => {
    const faults = written(faulty, {}, {}).records.filter((r) => r.type === 'runtime.command');
    expect(faults.some((r) => r.outcome !== 'ok')).toBe(true);
    expect(faults.every((r) => r.line.length > 0)).toBe(true);
    // dcm-multi-port-routes.yaml: dcm-add-del deletes every port's servers from the first route's backend; HAProxy refuses the other port's.
    const refusals = written(join(SCENARIOS, 'dcm-multi-port-routes.yaml'), { set: { 'router.strategy': 'dcm-add-del' } }, {}).records.filter(
      (r) => r.type === 'runtime.command' && r.outcome === 'ok',
    );
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.every((r) => r.type === 'runtime.command' && r.reply !== undefined && r.reply.trim() !== '')).toBe(true);
  });
});

describe('--trace inputs', () => {
  const endpointInputs = (rs: readonly OutputRecord[]) => rs.filter((r) => r.type === 'input' && (r.event === 'endpoints.set' || r.event === 'endpoints.delete'));
  /** Endpoint events per simulated second and type, from input lines or from input.counts. */
  const perSecond = (rs: readonly OutputRecord[]) => {
    const m: Record<string, number> = {};
    const add = (atUs: number, event: string, n: number) => (m[`${Math.floor(atUs / 1_000_000)} ${event}`] = (m[`${Math.floor(atUs / 1_000_000)} ${event}`] ?? 0) + n);
    for (const r of rs) {
      if (r.type === 'input.counts') for (const [event, n] of Object.entries(r.events)) add(r.atUs, event, n);
      else if (r.type === 'input' && r.event.startsWith('endpoints.')) add(r.atUs, r.event, 1);
    }
    return m;
  };

  it.each(CASES)('%s: the same report.json and timeline with and without it, the endpoint events counted per second', (_name, file, overrides) => {
    const compact = written(file, overrides, {});
    const traced = written(file, overrides, { trace: ['inputs'] });
    expect(traced.header.trace).toEqual(['inputs']);
    expect(traced.report).toBe(compact.report);
    expect(compact.rebuilt).toBe(compact.report);
    expect(traced.rebuilt).toBe(traced.report);
    expect(JSON.stringify(projectTimeline(compact.records))).toBe(JSON.stringify(projectTimeline(traced.records)));
    // Traced: every endpoint event a line; compact: none, and as many counted in the same seconds.
    expect(endpointInputs(traced.records).length).toBeGreaterThan(0);
    expect(endpointInputs(compact.records)).toEqual([]);
    expect(traced.records.some((r) => r.type === 'input.counts')).toBe(false);
    expect(perSecond(compact.records)).toEqual(perSecond(traced.records));
    // Everything else is the same, record for record and in the same order.
    const others = (rs: OutputRecord[]) => rs.filter((r) => r.type !== 'input.counts' && !endpointInputs([r]).length);
    expect(others(compact.records)).toEqual(others(traced.records));
    expect(statSync(compact.path).size).toBeLessThan(statSync(traced.path).size);
  });
});
