import { COUNTED_INPUTS, type OutputHeader, type OutputRecord, type TraceName } from './records.ts';

/** The version that first wrote each trace name in a header. */
const TRACE_SINCE: Record<TraceName, number> = { runtime: 2, inputs: 4 };

/**
 * What is wrong with a header's `trace` for its version (the field and why), or undefined. A trace a
 * version did not know was never written with it: the header was edited, or comes from something else.
 */
export function headerTraceProblem(header: Pick<OutputHeader, 'version' | 'trace'>): [field: string, message: string] | undefined {
  const trace = header.trace ?? [];
  for (let i = 0; i < trace.length; i++) {
    const since = TRACE_SINCE[trace[i]!];
    if (header.version < since) return [`trace[${i}]`, `trace "${trace[i]}" in a version ${header.version} output log: it is written since version ${since}`];
  }
  return undefined;
}

/**
 * What is wrong with a record for the header it follows (the field and why), or undefined. Each version
 * added a record that the runs writing it use in place of lines (sim/output/records.ts), and a trace puts
 * the lines back: so a count record in an older log, or in a log whose header traces what it counts, was
 * not written by a run, and neither was an endpoint `input` line in a version 4 log that counts them. The
 * report would fold such a log into a run that never happened (inputs counted twice, or commands of the
 * wrong version's rules), so the reader refuses it.
 *
 * A successful `runtime.command` line is no sign of a trace: a refusal is written in full with outcome `ok`.
 */
export function recordVersionProblem(header: Pick<OutputHeader, 'version' | 'trace'>, record: OutputRecord): [field: string, message: string] | undefined {
  const v = header.version;
  switch (record.type) {
    case 'runtime.counts':
      if (v < 2) return ['type', `a runtime.counts record in a version 1 output log: it is written since version 2`];
      if (traces(header, 'runtime')) return ['type', 'a runtime.counts record in a log whose header traces runtime commands: such a run writes every command as a runtime.command line'];
      return undefined;
    case 'reload.counts':
      return v < 3 ? ['type', `a reload.counts record in a version ${v} output log: it is written since version 3`] : undefined;
    case 'input.counts':
      if (v < 4) return ['type', `an input.counts record in a version ${v} output log: it is written since version 4`];
      if (traces(header, 'inputs')) return ['type', 'an input.counts record in a log whose header traces inputs: such a run writes every input as an input line'];
      return undefined;
    case 'input':
      if (v >= 4 && !traces(header, 'inputs') && (COUNTED_INPUTS as readonly string[]).includes(record.event)) {
        return ['event', `an ${record.event} input line in a version 4 output log that does not trace inputs: such a run counts endpoint events in input.counts records`];
      }
      return undefined;
    default:
      return undefined;
  }
}

function traces(header: Pick<OutputHeader, 'trace'>, name: TraceName): boolean {
  return header.trace?.includes(name) === true;
}
