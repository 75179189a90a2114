import { z } from 'zod';
import { ClusterSchema } from '../cluster/cluster-schema.ts';
import { INPUT_EVENT_TYPES } from '../../core/events.ts';
import { RELOAD_REASONS } from '../../core/reload-reason.ts';
import { BudgetSyntaxError, parseBudget } from '../../reports/budgets.ts';
import { fieldName } from '../eventlog/field-name.ts';
import { InputError } from '../eventlog/input-error.ts';
import { fileLines } from '../eventlog/line-source.ts';
import { looksValidRecord } from './fast-record-check.ts';
import { RecordOrder } from './record-order.ts';
import { headerTraceProblem, recordVersionProblem } from './record-version.ts';
import { COUNTED_INPUTS, OUTPUT_LOG_VERSION, TRACE_NAMES, type OutputHeader, type OutputRecord } from './records.ts';

/**
 * The output log (versions 1 to 4) as a schema, record by record as sim/output/records.ts declares them. `routerbench report`
 * trusts what it folds (a string where a number belongs would print `NaN` and still exit 0), so every line
 * is checked here, strictly: a field routerbench never writes is as wrong as a missing one, because the log
 * was edited or comes from something else, and the report rebuilt from it would not be the run's. So is a
 * record the header's version and trace rule out (record-version.ts).
 */
const time = z.number().int().nonnegative();
const count = z.number().int().nonnegative();
const vrrpState = z.enum(['INIT', 'BACKUP', 'MASTER', 'FAULT']);

export const RecordSchema = z.discriminatedUnion('type', [
  z.strictObject({ atUs: time, type: z.literal('input'), event: z.enum(INPUT_EVENT_TYPES as [string, ...string[]]), subject: z.string() }),
  z.strictObject({ atUs: time, type: z.literal('input.counts'), events: z.partialRecord(z.enum(COUNTED_INPUTS), count) }),
  z.strictObject({ atUs: time, type: z.literal('reload.request'), reason: z.enum(RELOAD_REASONS), detail: z.string().optional() }),
  z.strictObject({ atUs: time, type: z.literal('reload.start'), n: count }),
  z.strictObject({ atUs: time, type: z.literal('reload.end'), n: count }),
  z.strictObject({
    atUs: time,
    type: z.literal('runtime.command'),
    line: z.string(),
    outcome: z.enum(['ok', 'refused', 'reset', 'timeout', 'unavailable', 'broken-pipe']),
    reply: z.string().optional(),
  }),
  z.strictObject({ atUs: time, type: z.literal('runtime.counts'), ok: z.record(z.string(), count) }),
  z.strictObject({ atUs: time, type: z.literal('reload.counts'), requests: z.partialRecord(z.enum(RELOAD_REASONS), count) }),
  z.strictObject({ atUs: time, type: z.literal('runtime.error'), detail: z.string() }),
  z.strictObject({ atUs: time, type: z.literal('note'), message: z.string() }),
  z.strictObject({ atUs: time, type: z.literal('warning'), message: z.string() }),
  z.strictObject({ atUs: time, type: z.literal('invariant'), name: z.string(), violations: z.array(z.string()) }),
  z.strictObject({
    atUs: time,
    type: z.literal('vrrp.state'),
    node: z.string(),
    vrid: count,
    vip: z.string(),
    from: vrrpState,
    to: vrrpState,
    priority: z.number().int(),
    cause: z.string().optional(),
  }),
  z.strictObject({
    atUs: time,
    type: z.literal('vrrp.garp'),
    node: z.string(),
    vrid: count,
    vip: z.string(),
    reason: z.enum(['master', 'repeat', 'lower-prio', 'reload']).optional(),
  }),
  z.strictObject({ atUs: time, type: z.literal('vrrp.node'), node: z.string(), live: z.boolean(), cause: z.string() }),
  z.strictObject({ atUs: time, type: z.literal('vrrp.address'), node: z.string(), vrid: count, vip: z.string(), change: z.enum(['added', 'removed', 'stale']), cause: z.string() }),
  z.strictObject({
    atUs: time,
    type: z.literal('vrrp.membership'),
    node: z.string(),
    change: z.enum(['join', 'leave', 'peers-updated']),
    ip: z.string().optional(),
    priority: z.number().int().min(1).max(255).optional(),
    preempt: z.boolean().optional(),
    preemptDelayMs: z.number().int().min(0).optional(),
  }),
  z.strictObject({ atUs: time, type: z.literal('vrrp.exposure'), node: z.string(), open: z.boolean(), vips: count }),
  z.strictObject({
    atUs: time,
    type: z.literal('vrrp.stats'),
    advertsSent: count,
    packetsSent: count,
    deliveries: count,
    dropped: count,
    mode: z.enum(['multicast', 'unicast']).optional(),
    nodes: count.optional(),
    instances: count.optional(),
    intervalDrops: count.optional(),
  }),
  z.strictObject({ atUs: time, type: z.literal('run.end'), events: count, simulatedMs: z.number().nonnegative() }),
]);

/** Record types by name, for the message about one that is not among them. */
const RECORD_TYPES: readonly string[] = RecordSchema.options.map((o) => o.shape.type.value);

const HeaderSchema = z.strictObject({
  routerbench: z.literal('outputlog'),
  version: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]),
  scenario: z.string(),
  seed: z.number().int().nonnegative(),
  strategy: z.string(),
  settings: z.record(z.string(), z.unknown()),
  settingSources: z.record(z.string(), z.string()).optional(),
  budgets: z.array(z.string()),
  reproduce: z.string(),
  // The run's cluster definition: the failover projection's windows come from its timers.
  cluster: ClusterSchema.optional(),
  trace: z.array(z.enum(TRACE_NAMES)).optional(),
});

/**
 * Reads a run's output log back: the header (checked now), then the records, checked lazily as they are
 * pulled. Every problem is an InputError naming the file, the line and the field. The records end with
 * exactly one `run.end`, the last line: a log without one is a run cut short, and anything after it was
 * not written by that run. The records must also come in the order a run writes them (RecordOrder).
 */
export function readOutputLog(path: string): { header: OutputHeader; records: Iterable<OutputRecord> } {
  const lines = fileLines(path);
  const first = lines.next();
  lines.return(undefined);
  if (first.done) throw new InputError(path, 'empty file; not a routerbench output log', 1);
  const header = parseHeader(parseJson(first.value.text, path, 1), path);
  const records: Iterable<OutputRecord> = {
    *[Symbol.iterator]() {
      let skip = true;
      let endedAt = 0;
      const order = new RecordOrder();
      for (const { no, text } of fileLines(path)) {
        if (skip) {
          skip = false;
          continue;
        }
        const record = parseRecord(parseJson(text, path, no), path, no);
        const foreign = recordVersionProblem(header, record);
        if (foreign !== undefined) throw new InputError(path, foreign[1], no, foreign[0]);
        if (endedAt !== 0) throw new InputError(path, `a ${record.type} record after the run.end record of line ${endedAt}; run.end is the last record of a run`, no, 'type');
        const wrong = order.check(record, no);
        if (wrong !== undefined) throw new InputError(path, wrong[1], no, wrong[0]);
        if (record.type === 'run.end') endedAt = no;
        yield record;
      }
      if (endedAt === 0) throw new InputError(path, 'the output log has no run.end record: the run did not complete (a log cut short?)');
    },
  };
  return { header, records };
}

function parseHeader(raw: unknown, path: string): OutputHeader {
  if (typeof raw !== 'object' || raw === null || (raw as { routerbench?: unknown }).routerbench !== 'outputlog') {
    throw new InputError(path, `line 1 is not an output log header {"routerbench":"outputlog","version":${OUTPUT_LOG_VERSION},...}`, 1, 'routerbench');
  }
  const parsed = HeaderSchema.safeParse(raw);
  if (!parsed.success) {
    const { field, message } = describeIssue(parsed.error.issues[0]!);
    throw new InputError(path, `not an output log header: ${message}`, 1, field);
  }
  const trace = headerTraceProblem(parsed.data);
  if (trace !== undefined) throw new InputError(path, `not an output log header: ${trace[1]}`, 1, trace[0]);
  // The report judges the run by these; one that cannot be read is the log's fault, found before folding.
  parsed.data.budgets.forEach((text, i) => {
    try {
      parseBudget(text);
    } catch (err) {
      if (err instanceof BudgetSyntaxError) throw new InputError(path, err.message, 1, `budgets[${i}]`);
      throw err;
    }
  });
  return parsed.data as OutputHeader;
}

/** A JSON value as a record: the fast check first (see fast-record-check.ts), the schema (and its wording of the error) otherwise. */
function parseRecord(raw: unknown, path: string, no: number): OutputRecord {
  if (looksValidRecord(raw)) return raw;
  const parsed = RecordSchema.safeParse(raw);
  if (parsed.success) return parsed.data as OutputRecord;
  const issue = parsed.error.issues[0]!;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new InputError(path, 'not an output log record (an object with a "type")', no, 'type');
  }
  if (issue.code === 'invalid_union' && issue.path.length === 1 && issue.path[0] === 'type') {
    const type = (raw as { type?: unknown }).type;
    const message = type === undefined ? "missing 'type'" : `unknown record type ${JSON.stringify(type)} (an output log has ${RECORD_TYPES.join(', ')})`;
    throw new InputError(path, message, no, 'type');
  }
  const { field, message } = describeIssue(issue);
  throw new InputError(path, `${(raw as { type: string }).type} record: ${message}`, no, field);
}

/**
 * A zod issue as the field it is about and words for a person: a missing field and an unknown one are
 * named as such (zod says "expected number, received undefined" and "Unrecognized key"). Shared with the
 * sweep directory reader, so both files word the same mistake the same way.
 */
export function describeIssue(issue: z.core.$ZodIssue, prefix = ''): { field: string; message: string } {
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `'${k}'`).join(', ');
    return { field: fieldName([...issue.path, issue.keys[0]!], prefix), message: `unknown field${issue.keys.length === 1 ? '' : 's'} ${keys}` };
  }
  const field = fieldName(issue.path, prefix);
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) return { field, message: `missing (expected ${issue.expected})` };
  return { field, message: issue.message };
}

function parseJson(text: string, file: string, line: number): unknown {
  // Only a line that does not open an object can be blank; the check stays off the common path.
  if (text.charCodeAt(0) !== 123 && text.trim() === '') throw new InputError(file, 'empty line; every line of an output log is one JSON object', line);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(file, `not valid JSON (${(err as Error).message})`, line);
  }
}
