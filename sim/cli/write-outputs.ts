import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes a file whole or not at all: to a temporary name first, renamed into place. */
export function writeFileAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.partial`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}
