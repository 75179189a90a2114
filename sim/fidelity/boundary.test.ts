import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';

/**
 * sim/fidelity/netns-harness.ts and keepalived-real.ts do real I/O in real time. Only the fidelity tests and
 * bench/ may use them: nothing under core/, reports/ or sim/ outside sim/fidelity/ may import them, directly
 * or through another sim/fidelity module that does (keepalived-conf, keepalived-fidelity, keepalived-table
 * are pure and may be imported).
 */
const ROOT = join(import.meta.dirname, '..', '..');
const REAL_IO = /fidelity\/(netns-harness|keepalived-real)(\.ts)?['"]/;

function* tsFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) continue;
    if (statSync(p).isDirectory()) yield* tsFiles(p);
    else if (name.endsWith('.ts')) yield p;
  }
}

test('no module on the simulation path imports the real-I/O fidelity harness', () => {
  const offenders: string[] = [];
  for (const top of ['core', 'reports', 'sim'])
    for (const file of tsFiles(join(ROOT, top))) {
      const rel = relative(ROOT, file);
      if (rel.startsWith('sim/fidelity/') && (rel.endsWith('.test.ts') || /netns-harness|keepalived-real/.test(rel))) continue;
      if (REAL_IO.test(readFileSync(file, 'utf8')) || (rel.startsWith('sim/fidelity/') && /from '\.\/(netns-harness|keepalived-real)/.test(readFileSync(file, 'utf8'))))
        offenders.push(rel);
    }
  expect(offenders).toEqual([]);
});
