import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../eventlog/input-error.ts';
import { earlierOutputs, removeStale } from './reused-out-dir.ts';

const root = mkdtempSync(join(tmpdir(), 'rb-reused-out-'));
let n = 0;

/** A directory holding `files` (paths relative to it; a trailing '/' makes an empty directory). */
function outDir(files: string[]): string {
  const dir = join(root, `out-${n++}`);
  mkdirSync(dir);
  for (const f of files) {
    if (f.endsWith('/')) mkdirSync(join(dir, f), { recursive: true });
    else {
      mkdirSync(join(dir, f, '..'), { recursive: true });
      writeFileSync(join(dir, f), 'x');
    }
  }
  return dir;
}

function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('a reused --out directory', () => {
  it('a new or empty directory has no earlier outputs', () => {
    expect(earlierOutputs(join(root, 'not-there')).entries).toEqual([]);
    expect(earlierOutputs(outDir([])).entries).toEqual([]);
  });

  it("an earlier run's files, run directories and .partial leftovers are ours; an empty directory is left alone", () => {
    const dir = outDir(['summary.md', 'junit.xml', 'index.html', 'web/report.json', 'web/output.jsonl.partial', 'db/report.html', 'report.json.partial', 'live.json', 'empty/']);
    expect(earlierOutputs(dir).entries).toEqual(['db', 'index.html', 'junit.xml', 'live.json', 'report.json.partial', 'summary.md', 'web']);
  });

  it.each([
    ['a file of the user', ['report.json', 'notes.txt'], 'notes.txt'],
    ['a run directory holding a foreign file', ['web/report.json', 'web/notes.txt'], join('web', 'notes.txt')],
    ['a run-file name nested one level deeper', ['web/deeper/report.json'], join('web', 'deeper')],
    ["another command's output (sweep)", ['sweep.json'], 'sweep.json'],
  ])('refuses %s, naming the directory and the entry', (_, files, entry) => {
    const dir = outDir(files);
    let err: unknown;
    try {
      earlierOutputs(dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).file).toBe(dir);
    expect((err as InputError).message).toContain(`${dir}: holds '${entry}', which routerbench did not write`);
  });

  it('a symbolic link named like an output is not ours: replacing it would not write where it points', () => {
    const dir = outDir([]);
    symlinkSync('/etc/hostname', join(dir, 'report.json'));
    expect(() => earlierOutputs(dir)).toThrow(/holds 'report\.json', which routerbench did not write/);
  });

  it('after the run: what was not written again is removed, written run directories lose their .partial leftovers', () => {
    // An earlier run of two inputs (web, db), then one of web and api.
    const dir = outDir(['summary.md', 'junit.xml', 'index.html', 'web/report.json', 'web/output.jsonl.partial', 'db/report.json', 'db/report.html', 'report.json', 'empty/']);
    const earlier = earlierOutputs(dir);
    mkdirSync(join(dir, 'api'));
    writeFileSync(join(dir, 'api', 'report.json'), 'new');
    removeStale(earlier, new Set(['summary.md', 'junit.xml', 'index.html', 'web', 'api']));
    expect(tree(dir)).toEqual(['api', join('api', 'report.json'), 'empty', 'index.html', 'junit.xml', 'summary.md', 'web', join('web', 'report.json')]);
  });

  it('a file that appeared in a stale run directory during the run keeps it', () => {
    const dir = outDir(['db/report.json']);
    const earlier = earlierOutputs(dir);
    writeFileSync(join(dir, 'db', 'mine.txt'), 'x');
    removeStale(earlier, new Set());
    expect(tree(dir)).toEqual(['db', join('db', 'mine.txt')]);
  });
});
