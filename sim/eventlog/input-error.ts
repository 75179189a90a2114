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
