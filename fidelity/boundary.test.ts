import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';

/**
 * fidelity/ runs real keepalived (and reads the wall clock, real timers and process ids to do so): it lives
 * outside core/ and sim/, which never read the wall clock or global randomness, and nothing there may
 * import it. Its users are the fidelity tests, bench/, and the mocks' conformance tests beside them
 * (sim/haproxy/*.test.ts start a real HAProxy through fidelity/real-haproxy.ts to compare byte for byte):
 * a test file is never on the simulation path.
 */
const ROOT = join(import.meta.dirname, '..');
const IMPORTS_FIDELITY = /from ['"][^'"]*\/fidelity\//;

function* tsFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) continue;
    if (statSync(p).isDirectory()) yield* tsFiles(p);
    else if (name.endsWith('.ts')) yield p;
  }
}

test('nothing on the simulation path imports the real-world fidelity harness', () => {
  const offenders: string[] = [];
  for (const top of ['core', 'reports', 'sim'])
    for (const file of tsFiles(join(ROOT, top))) {
      if (file.endsWith('.test.ts')) continue;
      if (IMPORTS_FIDELITY.test(readFileSync(file, 'utf8'))) offenders.push(relative(ROOT, file));
    }
  expect(offenders).toEqual([]);
});
