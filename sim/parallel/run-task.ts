import { join } from 'node:path';
import { createTimelineProjection, type Timeline } from '../../reports/timeline.ts';
import type { Report } from '../../reports/report.ts';
import { errorData, errorFrom, type ErrorData } from './error-data.ts';
import { loadRunInput, type InputOverrides } from '../load-input.ts';
import { JsonlFileSink, nullSink } from '../output/output-sink.ts';
import type { TraceName } from '../output/records.ts';
import { headerOf, runOne, type RecordObserver } from '../run.ts';

/** One scenario run as a message: what a worker thread is asked to do and what it answers. */
export interface RunTask {
  file: string;
  overrides: InputOverrides;
  /** Where to write output.jsonl (left as output.jsonl.partial until the command commits). */
  dir?: string;
  /** Progress on stderr for a run alone on its worker thread (label; whether stderr is a terminal, its width). */
  progress?: { label: string; tty: boolean; columns?: number };
  /** What output.jsonl records in full (`--trace`). */
  trace?: TraceName[];
}

/** The output log a task writes until the command commits it; every exit path the command controls removes it. */
export function partialLogOf(task: RunTask): string | undefined {
  return task.dir === undefined ? undefined : `${join(task.dir, 'output.jsonl')}.partial`;
}

export type RunTaskResult =
  | { ok: true; report: Report; timeline: Timeline | null; partialLog: string | null }
  | ErrorData;

/** Never throws: errors cross the thread boundary as data, keeping their kind (input → exit 2). */
export function runTask(task: RunTask, observers: readonly RecordObserver[] = []): RunTaskResult {
  try {
    const input = loadRunInput(task.file, task.overrides);
    const options = task.trace === undefined ? {} : { trace: task.trace };
    if (task.dir === undefined) return { ok: true, report: runOne(input, nullSink, observers, options).report, timeline: null, partialLog: null };
    const sink = new JsonlFileSink(join(task.dir, 'output.jsonl'), headerOf(input, options));
    try {
      const timeline = createTimelineProjection();
      const { report } = runOne(input, sink, [timeline, ...observers], options);
      return { ok: true, report, timeline: timeline.result(), partialLog: sink.close() };
    } catch (err) {
      // The last flush can fail too (a full disk): no partial log is left behind, nor its file handle.
      sink.abort();
      throw err;
    }
  } catch (err) {
    // The log is written through `output.jsonl.partial`: name the file the user knows.
    return errorData(err, (path) => (path.endsWith('.partial') ? path.slice(0, -'.partial'.length) : path));
  }
}

/** The error a failed task stands for, rebuilt on this side of the thread boundary. */
export function taskError(r: Extract<RunTaskResult, { ok: false }>): Error {
  return errorFrom(r);
}
