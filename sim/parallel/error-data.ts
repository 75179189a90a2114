import { InputError, InputErrors } from '../eventlog/input-error.ts';

/**
 * Errors as data, for crossing a thread boundary: a class does not survive it, its fields do. The kinds
 * are those the CLI tells apart (README.md, "Exit codes"): the user's input (exit 2), a path the user's
 * environment refused (ENOENT, EACCES, ENOSPC, …; exit 2, naming the path), and anything else (a bug).
 */
export type InputErrorData = { ok: false; kind: 'input'; file: string; detail: string; line?: number; field?: string; column?: number; problems?: InputErrorData[] };
export type PathErrorData = { ok: false; kind: 'path'; message: string; code: string; path: string; syscall?: string };
export type InternalErrorData = { ok: false; kind: 'internal'; message: string };
export type ErrorData = InputErrorData | PathErrorData | InternalErrorData;

export function inputErrorData(err: InputError): InputErrorData {
  const { file, detail, line, field, column } = err;
  const data: InputErrorData = { ok: false, kind: 'input', file, detail, line, field, column };
  // Several problems at once (InputErrors): each crosses as data too.
  if (err instanceof InputErrors) data.problems = err.problems.map(inputErrorData);
  return data;
}

/** Any thrown value as data; `shownPath` names an errno error's path as the user knows it. */
export function errorData(err: unknown, shownPath: (path: string) => string = (p) => p): ErrorData {
  if (err instanceof InputError) return inputErrorData(err);
  const e = err as NodeJS.ErrnoException;
  if (err instanceof Error && typeof e.code === 'string' && typeof e.path === 'string') {
    return { ok: false, kind: 'path', message: e.message, code: e.code, path: shownPath(e.path), ...(e.syscall !== undefined && { syscall: e.syscall }) };
  }
  return { ok: false, kind: 'internal', message: err instanceof Error ? (err.stack ?? err.message) : String(err) };
}

/** The error `data` stands for, rebuilt on this side of the thread boundary. */
export function errorFrom(data: ErrorData): Error {
  if (data.kind === 'input') return inputErrorFrom(data);
  // An errno error again, so that the CLI reports it as the user's (exit 2), naming the path.
  if (data.kind === 'path') return Object.assign(new Error(data.message), { code: data.code, path: data.path, ...(data.syscall !== undefined && { syscall: data.syscall }) });
  return new Error(data.message);
}

function inputErrorFrom(r: InputErrorData): InputError {
  if (r.problems !== undefined) return new InputErrors(r.problems.map(inputErrorFrom));
  return new InputError(r.file, r.detail, r.line, r.field, r.column);
}
