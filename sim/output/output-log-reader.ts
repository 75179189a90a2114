import { InputError } from '../eventlog/input-error.ts';
import { fileLines } from '../eventlog/line-source.ts';
import type { OutputHeader, OutputRecord } from './records.ts';

/** Reads a run's output log back: the header, then the records, lazily. */
export function readOutputLog(path: string): { header: OutputHeader; records: Iterable<OutputRecord> } {
  const lines = fileLines(path);
  const first = lines.next();
  lines.return(undefined);
  if (first.done) throw new InputError(path, 'empty file; not a routerbench output log', 1);
  const header = parseJson(first.value.text, path, 1) as OutputHeader;
  if (header?.routerbench !== 'outputlog' || header.version !== 1) {
    throw new InputError(path, 'line 1 is not an output log v1 header {"routerbench":"outputlog","version":1,...}', 1, 'routerbench');
  }
  const records: Iterable<OutputRecord> = {
    *[Symbol.iterator]() {
      let skip = true;
      for (const { no, text } of fileLines(path)) {
        if (skip) {
          skip = false;
          continue;
        }
        const record = parseJson(text, path, no);
        // Records are folded by their `type`; a line without one is not a record a run wrote.
        if (typeof record !== 'object' || record === null || typeof (record as { type?: unknown }).type !== 'string') {
          throw new InputError(path, 'not an output log record (an object with a "type")', no, 'type');
        }
        yield record as OutputRecord;
      }
    },
  };
  return { header, records };
}

function parseJson(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(file, `not valid JSON (${(err as Error).message})`, line);
  }
}
