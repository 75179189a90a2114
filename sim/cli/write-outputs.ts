import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InputError } from '../eventlog/input-error.ts';

/** Writes a file whole or not at all: to a temporary name first, renamed into place. */
export function writeFileAtomic(path: string, text: string): void {
  prepareDestination(path);
  const tmp = `${path}.partial`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw aboutDestination(err, tmp, path);
  }
}

/**
 * Before a file is written through a temporary sibling: its directory is made as needed, and a directory
 * standing where the file should go is refused before anything is written.
 */
export function prepareDestination(path: string): void {
  if (existsSync(path) && statSync(path).isDirectory()) throw new InputError(path, 'is a directory; a file was expected here');
  makeDirs(dirname(path));
}

/** An error about the temporary sibling, retold about the file the user named (the sibling is gone). */
export function aboutDestination(err: unknown, tmp: string, path: string): unknown {
  const e = err as NodeJS.ErrnoException;
  if (e instanceof Error && e.path === tmp) e.path = path;
  return err;
}

/**
 * `--out DIR` checked before the work that fills it: a file in the way, at DIR or above it, or a directory
 * this process may not write in (DIR, or the nearest one above it that exists, where DIR would be made) is
 * bad input now rather than after a long sweep.
 */
export function checkOutDir(dir: string, flag = '--out'): void {
  // An empty path would mean the current directory to some calls and nothing to others: refused, named.
  if (dir.trim() === '') throw new InputError(flag, `the directory is empty (${JSON.stringify(dir)}): give a directory to write to`);
  let at = dir;
  while (!existsSync(at)) {
    const up = dirname(at);
    if (up === at) return;
    at = up;
  }
  if (!statSync(at).isDirectory()) throw new InputError(dir, at === dir ? `exists and is not a directory (${flag})` : `${at} is a file, not a directory (${flag})`);
  try {
    accessSync(at, constants.W_OK | constants.X_OK);
  } catch {
    throw new InputError(dir, at === dir ? `cannot write in this directory: permission denied (${flag})` : `cannot create it: ${at} is not writable (${flag})`);
  }
}

/** Output files a command will write, checked before it starts: a directory standing at one is bad input. */
export function checkOutputFiles(paths: readonly string[]): void {
  for (const p of paths) if (existsSync(p) && statSync(p).isDirectory()) throw new InputError(p, 'is a directory; a file was expected here (--out)');
}

/**
 * `mkdir -p`, one directory at a time, returning the first one it made (as `mkdirSync(…, {recursive})`
 * does). Node 20's recursive mkdir spins forever under /proc; made one by one, each step fails with a
 * plain error instead.
 */
export function makeDirs(dir: string): string | undefined {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at); ) {
    missing.push(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  if (missing.length === 0 && !statSync(dir).isDirectory()) {
    // What `mkdir -p` says of a file in the way.
    throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${dir}'`), { code: 'EEXIST', path: dir, syscall: 'mkdir' });
  }
  missing.reverse();
  for (const d of missing) mkdirSync(d);
  return missing[0];
}
