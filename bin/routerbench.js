#!/usr/bin/env -S node --max-old-space-size=2047
// The heap limit is less about the limit than about how V8 grows the heap: under a limit of 2 GiB or more
// (64-bit) it lets the old generation grow to four times what survives a full collection, below it to about
// twice. A replay's live data is small and flat (about 35 MB for a saturated day of 2,000 routes) while it
// makes much short-lived garbage, so the default sizing let a dcm-slots replay of that day peak at 250-277
// MiB of RSS, and this limit took it to 196 MiB at the same speed (docs/performance.md). 2 GiB is also the
// memory a run may be estimated to need before it is refused without --allow-large (docs/limits.md);
// `node --max-old-space-size=<MiB> <this file>` runs one that needs more.
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
