import { excerpt } from './excerpt.ts';

/**
 * Bad input: a file the user gave us is wrong. Always names the file, and where known the line, column and
 * field, so the message alone is enough to fix it. The CLI maps it to exit code 2. The message quotes at most
 * a bounded excerpt of anything, control characters escaped: what it names came from the input.
 */
export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
    readonly line?: number,
    readonly field?: string,
    readonly column?: number,
  ) {
    super(formatLocation(excerpt(file, 300), line, column, field === undefined ? undefined : excerpt(field, 200)) + excerpt(detail));
    this.name = 'InputError';
  }
}

function formatLocation(file: string, line?: number, column?: number, field?: string): string {
  let where = file;
  if (line !== undefined) where += `:${line}`;
  if (line !== undefined && column !== undefined) where += `:${column}`;
  return field ? `${where}: field '${field}': ` : `${where}: `;
}

/** How many problems one message lists; past that, a count of the rest. */
export const MAX_REPORTED_PROBLEMS = 20;

/**
 * Several mistakes in one input, reported together so that one edit fixes them all: each on its own line,
 * located as a single InputError is, in file order, at most MAX_REPORTED_PROBLEMS of them and then how many
 * more there are. It is an InputError (exit 2), whose own fields are the first problem's.
 */
export class InputErrors extends InputError {
  readonly problems: readonly InputError[];

  constructor(problems: readonly InputError[], limit = MAX_REPORTED_PROBLEMS) {
    if (problems.length === 0) throw new RangeError('InputErrors needs at least one problem');
    const first = problems[0]!;
    super(first.file, first.detail, first.line, first.field, first.column);
    this.name = 'InputErrors';
    this.problems = problems;
    const shown = problems.slice(0, limit).map((p) => p.message);
    const rest = problems.length - shown.length;
    if (rest > 0) shown.push(`${excerpt(first.file, 300)}: and ${rest} more problem${rest === 1 ? '' : 's'} (the first ${limit} are shown)`);
    this.message = shown.join('\n');
  }
}

/**
 * One error for a list of problems: the problem itself when there is one, else InputErrors, the problems
 * in file order (line, then column; those with no line first) and each told once.
 */
export function inputErrorOf(problems: readonly InputError[]): InputError {
  const seen = new Set<string>();
  const unique = problems.filter((p) => !seen.has(p.message) && seen.add(p.message) !== undefined);
  const sorted = unique
    .map((p, i) => ({ p, i }))
    .sort((a, b) => (a.p.line ?? 0) - (b.p.line ?? 0) || (a.p.column ?? 0) - (b.p.column ?? 0) || a.i - b.i)
    .map(({ p }) => p);
  return sorted.length === 1 ? sorted[0]! : new InputErrors(sorted);
}
