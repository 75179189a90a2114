/**
 * Bad input: a file the user gave us is wrong. Always names the file, and where known the line, column and
 * field, so the message alone is enough to fix it. The CLI maps it to exit code 2.
 */
export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
    readonly line?: number,
    readonly field?: string,
    readonly column?: number,
  ) {
    super(formatLocation(file, line, column, field) + detail);
    this.name = 'InputError';
  }
}

function formatLocation(file: string, line?: number, column?: number, field?: string): string {
  let where = file;
  if (line !== undefined) where += `:${line}`;
  if (line !== undefined && column !== undefined) where += `:${column}`;
  return field ? `${where}: field '${field}': ` : `${where}: `;
}
