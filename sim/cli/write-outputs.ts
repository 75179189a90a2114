import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes a file whole or not at all: to a temporary name first, renamed into place. */
export function writeFileAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.partial`;
  writeFileSync(tmp, text);
  try {
    renameSync(tmp, path);
  } catch (err) {
    // A directory where the file should go, say: leave nothing behind.
    rmSync(tmp, { force: true });
    throw err;
  }
}
