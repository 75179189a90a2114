import type { z } from 'zod';
import type { InputEvent } from '../../core/events.ts';
import { EventLogHeaderSchema, InputEventSchema } from './event-schema.ts';
import { looksValid } from './fast-event-check.ts';
import { InputError } from './input-error.ts';
import { fileLines, textLines, type Line } from './line-source.ts';

export interface EventLogHeader {
  routerbench: 'eventlog';
  version: 1;
  [extra: string]: unknown;
}

/** Reads event log v1 from a file, lazily: events are validated as they are pulled. */
export function readEventLogFile(path: string): Iterable<InputEvent> {
  return { [Symbol.iterator]: () => parseEventLog(fileLines(path), path) };
}

/** The same reader over text already in memory (scenario-embedded logs, tests). */
export function readEventLogText(text: string, file: string): Iterable<InputEvent> {
  return { [Symbol.iterator]: () => parseEventLog(textLines(text), file) };
}

/** Reads only the header line (first line) of an event log file. */
export function readEventLogHeader(path: string): EventLogHeader {
  const lines = fileLines(path);
  const first = lines.next();
  lines.return(undefined);
  return parseHeader(first.done ? undefined : first.value, path);
}

function* parseEventLog(lines: Iterator<Line>, file: string): Generator<InputEvent> {
  const first = lines.next();
  parseHeader(first.done ? undefined : first.value, file);
  let lastAt = 0;
  for (let next = lines.next(); !next.done; next = lines.next()) {
    const { no, text } = next.value;
    if (text.trim() === '') throw new InputError(file, 'empty line; every line after the header must be one JSON event', no);
    const event = parseEventLine(text, file, no);
    if (event.at < lastAt) {
      throw new InputError(file, `time goes backwards: ${event.at} ms after ${lastAt} ms`, no, 'at');
    }
    lastAt = event.at;
    yield event;
  }
}

export function parseEventLine(text: string, file: string, no: number): InputEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError(file, `not valid JSON (${(err as Error).message})`, no);
  }
  if (looksValid(raw)) return raw;
  const parsed = InputEventSchema.safeParse(raw);
  if (!parsed.success) throw fromZod(parsed.error, file, no, raw);
  return parsed.data as InputEvent;
}

function parseHeader(line: Line | undefined, file: string): EventLogHeader {
  if (line === undefined) throw new InputError(file, 'empty file; line 1 must be the header {"routerbench":"eventlog","version":1}', 1);
  let raw: unknown;
  try {
    raw = JSON.parse(line.text);
  } catch {
    throw new InputError(file, 'line 1 must be the header {"routerbench":"eventlog","version":1}', 1);
  }
  const parsed = EventLogHeaderSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(file, `not an event log v1 header: ${issue.message}`, 1, issue.path.join('.'));
  }
  return parsed.data as EventLogHeader;
}

/** Turns the first zod issue into one readable message naming the field. */
export function fromZod(error: z.ZodError, file: string, line: number | undefined, raw: unknown): InputError {
  const issue = error.issues[0]!;
  const field = issue.path.map(String).join('.');
  const type = typeof raw === 'object' && raw !== null ? (raw as { type?: unknown }).type : undefined;
  let message = issue.message;
  if (issue.code === 'invalid_union' && field === 'type') {
    message = type === undefined ? "missing 'type'" : `unknown event type ${JSON.stringify(type)}`;
  }
  if (issue.code === 'unrecognized_keys') message = `unknown field(s) ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  const where = issue.code === 'unrecognized_keys' && issue.keys.length > 0 ? [field, issue.keys[0]].filter(Boolean).join('.') : field;
  return new InputError(file, message, line, where || undefined);
}
