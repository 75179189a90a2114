import { join } from 'node:path';
import { createTimelineProjection, type Timeline } from '../../reports/timeline.ts';
import type { Report } from '../../reports/report.ts';
import { InputError, InputErrors } from '../eventlog/input-error.ts';
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

/** The user's input error as data: a class does not survive the thread boundary, its fields do. */
export type InputErrorData = { ok: false; kind: 'input'; file: string; detail: string; line?: number; field?: string; column?: number; problems?: InputErrorData[] };

export function inputErrorData(err: InputError): InputErrorData {
  const { file, detail, line, field, column } = err;
  const data: InputErrorData = { ok: false, kind: 'input', file, detail, line, field, column };
  // Several problems at once (InputErrors): each crosses as data too.
  if (err instanceof InputErrors) data.problems = err.problems.map(inputErrorData);
  return data;
}

function inputErrorFrom(r: InputErrorData): InputError {
  if (r.problems !== undefined) return new InputErrors(r.problems.map(inputErrorFrom));
  return new InputError(r.file, r.detail, r.line, r.field, r.column);
}

/** A file the run could not read or write (ENOENT, EACCES, ENOSPC, …): the user's environment, not a bug. */
export type PathErrorData = { ok: false; kind: 'path'; message: string; code: string; path: string; syscall?: string };

export type RunTaskResult =
  | { ok: true; report: Report; timeline: Timeline | null; partialLog: string | null }
  | InputErrorData
  | PathErrorData
  | { ok: false; kind: 'internal'; message: string };

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
    if (err instanceof InputError) return inputErrorData(err);
    const e = err as NodeJS.ErrnoException;
    if (err instanceof Error && typeof e.code === 'string' && typeof e.path === 'string') {
      // The log is written through `output.jsonl.partial`: name the file the user knows.
      const path = e.path.endsWith('.partial') ? e.path.slice(0, -'.partial'.length) : e.path;
      return { ok: false, kind: 'path', message: e.message, code: e.code, path, ...(e.syscall !== undefined && { syscall: e.syscall }) };
    }
    return { ok: false, kind: 'internal', message: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
}

/** The error a failed task stands for, rebuilt on this side of the thread boundary. */
export function taskError(r: Extract<RunTaskResult, { ok: false }>): Error {
  if (r.kind === 'input') return inputErrorFrom(r);
  // An errno error again, so that the CLI reports it as the user's (exit 2), naming the path.
  if (r.kind === 'path') return Object.assign(new Error(r.message), { code: r.code, path: r.path, ...(r.syscall !== undefined && { syscall: r.syscall }) });
  return new Error(r.message);
}
