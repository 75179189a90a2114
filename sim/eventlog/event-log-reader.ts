import { statSync } from 'node:fs';
import type { z } from 'zod';
import type { InputEvent } from '../../core/events.ts';
import { EventLogHeaderSchema, InputEventSchema } from './event-schema.ts';
import { scanEndpointsSet } from './endpoints-line.ts';
import { looksValid } from './fast-event-check.ts';
import { fieldName } from './field-name.ts';
import { InputError } from './input-error.ts';
import { FileLineCursor, TextLineCursor, type LineCursor, type ReadPosition } from './line-source.ts';

export interface EventLogHeader {
  routerbench: 'eventlog';
  version: 1;
  [extra: string]: unknown;
}

/**
 * Reads event log v1 from a file, lazily: lines are read and validated a batch of EVENT_BATCH at a time as
 * events are pulled, and an error in a batch is thrown only when its line's turn comes, so the events before
 * it are all handed out first. `chunkBytes` (how much is read at a time) is there for tests of lines that
 * straddle or outgrow a chunk; `position`, if given, counts the bytes read (from 0 at each iteration).
 */
export function readEventLogFile(path: string, options: { chunkBytes?: number; maxLineBytes?: number; position?: ReadPosition } = {}): Iterable<InputEvent> {
  return {
    [Symbol.iterator]: () => {
      if (options.position !== undefined) options.position.bytes = 0;
      return new EventLogIterator(new FileLineCursor(path, options.chunkBytes, options.maxLineBytes, undefined, options.position), path);
    },
  };
}

/** What reading an event log file has got to, for progress: bytes read against the file's size. */
export function logReadProgress(path: string, position: ReadPosition): () => { done: number; total: number } {
  let total: number | undefined;
  return () => {
    total ??= statSync(path).size;
    return { done: position.bytes, total };
  };
}

/** The same reader over text already in memory (scenario-embedded logs, tests). */
export function readEventLogText(text: string, file: string): Iterable<InputEvent> {
  return { [Symbol.iterator]: () => new EventLogIterator(new TextLineCursor(text), file) };
}

/** Reads only the header line (first line) of an event log file. */
export function readEventLogHeader(path: string, options: { maxLineBytes?: number } = {}): EventLogHeader {
  const lines = new FileLineCursor(path, undefined, options.maxLineBytes);
  try {
    return parseHeader(lines.next(), path);
  } finally {
    lines.close();
  }
}

/**
 * A hand-written iterator because a generator here measured 2-3% slower on the benchmark log. It behaves
 * as the generator did: nothing is read before the first `next()`, the header is checked then, the file is
 * closed at the end, on an error and on an early `return()`, and after any of those it only reports done.
 */
class EventLogIterator implements IterableIterator<InputEvent> {
  private lastAt = 0;
  /**
   * One result object for every event, refilled: every consumer (the engine, for-of, the stream merger)
   * reads `value` before it asks for the next, and a million events then make a million fewer objects.
   */
  private readonly result: IteratorYieldResult<InputEvent> = { done: false, value: undefined as unknown as InputEvent };
  private started = false;
  private finished = false;
  /**
   * Events parsed ahead, handed out in order. Parsing a batch of lines in a row, then simulating them in a
   * row, keeps each phase's machine code in the instruction cache: one event's path through JSON.parse and
   * the whole simulation is larger than the cache, and alternating them line by line evicts both.
   */
  private readonly batch: InputEvent[] = [];
  private batchSize = 0;
  private batchPos = 0;
  /** JSON values of the batch's lines, before validation, or (`checked` 1) events the scanner read whole. */
  private readonly raws: unknown[] = [];
  private readonly checked = new Uint8Array(EVENT_BATCH);
  /** An error met while parsing ahead, thrown when the consumer reaches its line. */
  private pendingError: unknown = undefined;

  /** The cursor again when it reads a file: its lines' bytes go to the endpoints.set scanner undecoded. */
  private readonly fileLines: FileLineCursor | undefined;

  constructor(
    private readonly lines: LineCursor,
    private readonly file: string,
  ) {
    this.fileLines = lines instanceof FileLineCursor ? lines : undefined;
  }

  [Symbol.iterator](): this {
    return this;
  }

  next(): IteratorResult<InputEvent> {
    if (this.batchPos < this.batchSize) {
      this.result.value = this.batch[this.batchPos++]!;
      return this.result;
    }
    // An error comes before the end: the batch may have read to the end of the file past a bad line.
    if (this.pendingError !== undefined) {
      const err = this.pendingError;
      this.pendingError = undefined;
      this.return();
      throw err;
    }
    if (this.finished) return { done: true, value: undefined };
    try {
      if (!this.started) {
        this.started = true;
        parseHeader(this.lines.next(), this.file);
      }
    } catch (err) {
      this.return();
      throw err;
    }
    this.fill();
    return this.next();
  }

  /**
   * Parses up to EVENT_BATCH events ahead, in two passes for the same reason as the batch: all the lines
   * through the endpoints.set scanner (a file's lines) or else JSON.parse, then all the values through the
   * validator, but those the scanner read, which it checked as it read them. An error waits for its turn;
   * a line the validator rejects comes before any later line that is not JSON at all.
   */
  private fill(): void {
    const raws = this.raws;
    const checked = this.checked;
    const fileLines = this.fileLines;
    const firstNo = this.lines.no + 1;
    let parsed = 0;
    let parseError: unknown = undefined;
    try {
      for (; parsed < EVENT_BATCH; parsed++) {
        if (fileLines !== undefined) {
          if (!fileLines.advance()) {
            this.finished = true;
            break;
          }
          const scanned = scanEndpointsSet(fileLines.bytes, fileLines.lineFrom, fileLines.lineTo);
          if (scanned !== undefined) {
            raws[parsed] = scanned;
            checked[parsed] = 1;
            continue;
          }
          raws[parsed] = parseJsonLine(fileLines.lineText(), this.file, fileLines.no);
        } else {
          const text = this.lines.next();
          if (text === undefined) {
            this.finished = true;
            break;
          }
          raws[parsed] = parseJsonLine(text, this.file, this.lines.no);
        }
        checked[parsed] = 0;
      }
    } catch (err) {
      parseError = err;
    }
    const batch = this.batch;
    let n = 0;
    try {
      for (; n < parsed; n++) {
        const no = firstNo + n;
        const event = checked[n] === 1 ? (raws[n] as InputEvent) : validateEvent(raws[n], this.file, no);
        raws[n] = undefined;
        if (event.at < this.lastAt) {
          throw new InputError(this.file, `time goes backwards: ${event.at} ms after ${this.lastAt} ms`, no, 'at');
        }
        this.lastAt = event.at;
        batch[n] = event;
      }
      if (parseError !== undefined) throw parseError;
    } catch (err) {
      this.pendingError = err;
    }
    // Events handed out are not kept alive by the batch beyond the next fill.
    for (let i = n; i < this.batchSize; i++) batch[i] = undefined as unknown as InputEvent;
    this.batchSize = n;
    this.batchPos = 0;
    if (this.finished) this.lines.close();
  }

  return(): IteratorResult<InputEvent> {
    this.finished = true;
    this.pendingError = undefined;
    this.batchSize = 0;
    this.batchPos = 0;
    this.batch.length = 0;
    this.lines.close();
    return { done: true, value: undefined };
  }
}

/**
 * Events parsed ahead at a time. Alternating runs of the 300,000-event head of the bench log, reload-always,
 * best of eight: 1 (no batching) 1412 ms, 32: 1273 ms, 64: 1288 ms, 128: 1313 ms. Under cachegrind's cache
 * model, instruction cache misses over 100,000 events fell from 118 to 70 million.
 */
export const EVENT_BATCH = 64;

/** One line the general way, JSON.parse and the validator, never the scanner: the scanner's tests hold it to this. */
export function parseEventLine(text: string, file: string, no: number): InputEvent {
  return validateEvent(parseJsonLine(text, file, no), file, no);
}

/** One line's JSON value; a blank line or malformed JSON is an input error naming the line. */
function parseJsonLine(text: string, file: string, no: number): unknown {
  // Only a line that does not open an object can be blank; the check stays off the common path.
  if (text.charCodeAt(0) !== 123 && text.trim() === '') {
    throw new InputError(file, 'empty line; every line after the header must be one JSON event', no);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(file, `not valid JSON (${(err as Error).message})`, no);
  }
}

/** A JSON value as an event: the fast check first, the schema (and its wording of the error) otherwise. */
function validateEvent(raw: unknown, file: string, no: number): InputEvent {
  if (looksValid(raw)) return raw;
  const parsed = InputEventSchema.safeParse(raw);
  if (!parsed.success) throw fromZod(parsed.error, file, no, raw);
  return parsed.data as InputEvent;
}

function parseHeader(text: string | undefined, file: string): EventLogHeader {
  if (text === undefined) throw new InputError(file, 'empty file; line 1 must be the header {"routerbench":"eventlog","version":1}', 1);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // Editors on Windows save UTF-8 with a byte order mark; say so rather than call the header missing.
    const bom = text.charCodeAt(0) === 0xfeff ? ' (the file starts with a byte order mark, U+FEFF: save it as UTF-8 without BOM)' : '';
    throw new InputError(file, `line 1 must be the header {"routerbench":"eventlog","version":1}${bom}`, 1);
  }
  const parsed = EventLogHeaderSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(file, `not an event log v1 header: ${issue.message}`, 1, fieldName(issue.path));
  }
  return parsed.data as EventLogHeader;
}

/** Turns the first zod issue into one readable message naming the field. */
export function fromZod(error: z.ZodError, file: string, line: number | undefined, raw: unknown): InputError {
  const issue = error.issues[0]!;
  const field = fieldName(issue.path);
  const type = typeof raw === 'object' && raw !== null ? (raw as { type?: unknown }).type : undefined;
  let message = issue.message;
  if (issue.code === 'invalid_union' && field === 'type') {
    message = type === undefined ? "missing 'type'" : `unknown event type ${JSON.stringify(type)}`;
  }
  if (issue.code === 'unrecognized_keys') message = `unknown field(s) ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  const where = issue.code === 'unrecognized_keys' && issue.keys.length > 0 ? fieldName([...issue.path, issue.keys[0]!]) : field;
  return new InputError(file, message, line, where || undefined);
}
