import { lstatSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../eventlog/input-error.ts';

/** The files a run writes in its directory (`--out` itself for one input, `--out/<name>/` for several). */
export const RUN_FILES = ['output.jsonl', 'report.json', 'report.html'] as const;

/**
 * Every name `run` and `live` write directly in `--out`: a run's files, the suite's, live's own. A directory
 * reused from an earlier `run` or `live` holds only these (and, for several inputs, run directories).
 */
const OUT_FILES: ReadonlySet<string> = new Set([...RUN_FILES, 'summary.md', 'junit.xml', 'index.html', 'live.json']);
const IN_RUN_DIR: ReadonlySet<string> = new Set(RUN_FILES);

/** Files are written through `NAME.partial` and renamed; a SIGKILL can leave one behind (docs/limits.md). */
const PARTIAL = '.partial';

/**
 * What an earlier run left in an `--out` directory: the entries it wrote there (relative names), to be
 * replaced or removed once this run's outputs are written.
 */
export interface EarlierOutputs {
  dir: string;
  entries: string[];
}

/**
 * Checks a reused `--out` directory before anything runs: every entry must be one an earlier `run` or `live`
 * wrote (a known output name, a `.partial` one left by a kill, or a run directory holding only those), or
 * an empty directory. Anything else is refused (exit 2), naming the directory and the first such entry: the
 * command will remove what is stale, and must never remove what the user put there.
 *
 * The rule goes by names, not by a marker file: the outputs' names are documented and fixed, and a marker
 * would have to be written before the outputs and could itself go stale.
 */
export function earlierOutputs(dir: string): EarlierOutputs {
  const entries: string[] = [];
  for (const name of entryNames(dir)) {
    const path = join(dir, name);
    const st = lstatSync(path);
    if (st.isFile() && isOwn(name, OUT_FILES)) {
      entries.push(name);
      continue;
    }
    if (st.isDirectory()) {
      const inside = entryNames(path);
      // An empty directory holds nothing stale and nothing of the user's: left alone.
      if (inside.length === 0) continue;
      const foreign = inside.find((f) => !isOwn(f, IN_RUN_DIR) || !lstatSync(join(path, f)).isFile());
      if (foreign === undefined) {
        entries.push(name);
        continue;
      }
      throw refused(dir, join(name, foreign));
    }
    throw refused(dir, name);
  }
  return { dir, entries };
}

/**
 * After this run's outputs are written: removes what the earlier run wrote and this one did not (`written`:
 * the entries written directly in the directory), and leftover `.partial` files inside the run directories
 * this run wrote. Only entries `earlierOutputs` found to be ours are touched.
 */
export function removeStale(earlier: EarlierOutputs, written: ReadonlySet<string>): void {
  for (const name of earlier.entries) {
    const path = join(earlier.dir, name);
    if (!written.has(name)) {
      removeOwn(path);
      continue;
    }
    // A run directory this run wrote again: its files were replaced; a `.partial` left by a kill was not.
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st?.isDirectory()) for (const f of entryNames(path)) if (f.endsWith(PARTIAL) && isOwn(f, IN_RUN_DIR)) rmSync(join(path, f), { force: true });
  }
}

function removeOwn(path: string): void {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined) return;
  if (!st.isDirectory()) {
    rmSync(path, { force: true });
    return;
  }
  // Only the run files: anything that appeared since the check stays, and so does the directory then.
  for (const f of entryNames(path)) if (isOwn(f, IN_RUN_DIR)) rmSync(join(path, f), { force: true });
  if (entryNames(path).length === 0) rmdirSync(path);
}

function isOwn(name: string, names: ReadonlySet<string>): boolean {
  return names.has(name.endsWith(PARTIAL) ? name.slice(0, -PARTIAL.length) : name);
}

function entryNames(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

function refused(dir: string, entry: string): InputError {
  return new InputError(
    dir,
    `holds '${entry}', which routerbench did not write: a reused --out directory may hold only an earlier run's outputs (${[...OUT_FILES].join(', ')}, run directories of ${RUN_FILES.join(', ')}), which this run replaces; give a new or empty directory, or move that entry away (--out)`,
  );
}
