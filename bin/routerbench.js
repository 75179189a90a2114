#!/usr/bin/env node
// The CLI runs the compiled JavaScript in dist/ (built by `npm run build`, which `npm ci` and `npm pack` run
// through `prepare`). ROUTERBENCH_FROM_SOURCES=1 runs the TypeScript sources through tsx instead: the test
// suite sets it so that what it spawns is always the code under test, never a stale build.
import { existsSync } from 'node:fs';

if (process.env.ROUTERBENCH_FROM_SOURCES === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../sim/cli/main.ts');
} else {
  const main = new URL('../dist/sim/cli/main.js', import.meta.url);
  if (!existsSync(main)) {
    process.stderr.write('routerbench: dist/ is missing: run `npm run build` (npm ci runs it) or set ROUTERBENCH_FROM_SOURCES=1\n');
    process.exit(3);
  }
  await import(main.href);
}
