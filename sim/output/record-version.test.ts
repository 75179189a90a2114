import { describe, expect, it } from 'vitest';
import { headerTraceProblem, recordVersionProblem } from './record-version.ts';
import { OUTPUT_LOG_VERSION, type OutputHeader, type OutputRecord, type TraceName } from './records.ts';

type Rules = Pick<OutputHeader, 'version' | 'trace'>;
const header = (version: number, trace?: TraceName[]): Rules => ({ version: version as OutputHeader['version'], ...(trace !== undefined && { trace }) });

const runtimeCounts: OutputRecord = { atUs: 1, type: 'runtime.counts', ok: { 'set server': 2 } };
const reloadCounts: OutputRecord = { atUs: 1, type: 'reload.counts', requests: { 'endpoints-change': 2 } };
const inputCounts: OutputRecord = { atUs: 1, type: 'input.counts', events: { 'endpoints.set': 2 } };
const endpointLine: OutputRecord = { atUs: 1, type: 'input', event: 'endpoints.set', subject: 'ns/svc' };
const deleteLine: OutputRecord = { atUs: 1, type: 'input', event: 'endpoints.delete', subject: 'ns/svc' };
const routeLine: OutputRecord = { atUs: 1, type: 'input', event: 'route.upsert', subject: 'ns/r' };
const okCommand: OutputRecord = { atUs: 1, type: 'runtime.command', line: 'set server be/s state ready', outcome: 'ok', reply: 'No such server.\n' };

/** Whether the record may follow the header, as the writers of each version write logs (records.ts). */
const allowed = (h: Rules, r: OutputRecord) => recordVersionProblem(h, r) === undefined;

describe('recordVersionProblem', () => {
  it('takes what the current writer writes, traced or not', () => {
    expect(OUTPUT_LOG_VERSION).toBe(4);
    for (const r of [runtimeCounts, reloadCounts, inputCounts, routeLine, okCommand]) expect(allowed(header(4), r)).toBe(true);
    for (const r of [reloadCounts, endpointLine, deleteLine, routeLine, okCommand]) expect(allowed(header(4, ['runtime', 'inputs']), r)).toBe(true);
  });

  it('refuses each count record in a version older than the one that added it', () => {
    // runtime.counts since 2, reload.counts since 3, input.counts since 4.
    expect([1, 2, 3, 4].map((v) => allowed(header(v), runtimeCounts))).toEqual([false, true, true, true]);
    expect([1, 2, 3, 4].map((v) => allowed(header(v), reloadCounts))).toEqual([false, false, true, true]);
    expect([1, 2, 3, 4].map((v) => allowed(header(v), inputCounts))).toEqual([false, false, false, true]);
  });

  it('refuses the counts of what the header traces, which such a run writes line by line', () => {
    expect(recordVersionProblem(header(4, ['runtime']), runtimeCounts)?.[1]).toMatch(/traces runtime commands/);
    expect(recordVersionProblem(header(4, ['inputs']), inputCounts)?.[1]).toMatch(/traces inputs/);
    // Requests are folded whatever the trace.
    expect(allowed(header(4, ['runtime', 'inputs']), reloadCounts)).toBe(true);
  });

  it('refuses an endpoint input line only in a version 4 log that counts them', () => {
    expect(recordVersionProblem(header(4), endpointLine)).toEqual(['event', expect.stringContaining('endpoints.set input line')]);
    expect(allowed(header(4), deleteLine)).toBe(false);
    for (const v of [1, 2, 3]) expect(allowed(header(v), endpointLine)).toBe(true);
    expect(allowed(header(4, ['inputs']), endpointLine)).toBe(true);
    // Route and cluster inputs are lines in every version.
    for (const v of [1, 2, 3, 4]) expect(allowed(header(v), routeLine)).toBe(true);
  });

  it('takes a successful command line in any log: a refusal is written in full with outcome ok', () => {
    for (const v of [1, 2, 3, 4]) expect(allowed(header(v), okCommand)).toBe(true);
  });
});

describe('headerTraceProblem', () => {
  it('refuses a trace name in a version older than the one that added it', () => {
    // runtime since 2, inputs since 4.
    expect(headerTraceProblem(header(1, ['runtime']))).toEqual(['trace[0]', expect.stringContaining('since version 2')]);
    expect(headerTraceProblem(header(2, ['runtime']))).toBeUndefined();
    expect(headerTraceProblem(header(3, ['runtime', 'inputs']))).toEqual(['trace[1]', expect.stringContaining('since version 4')]);
    expect(headerTraceProblem(header(4, ['runtime', 'inputs']))).toBeUndefined();
    expect(headerTraceProblem(header(1))).toBeUndefined();
  });
});
