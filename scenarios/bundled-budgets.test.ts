import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runOne } from '../sim/run.ts';
import { describeScenarios } from '../sim/vitest-scenarios.ts';

// The bundled suite (what `npm start` runs: the scenarios directly in this folder) as part of `npm test`:
// a describe per scenario, a test per budget.
const dir = fileURLToPath(new URL('.', import.meta.url));
describeScenarios({
  paths: readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(dir, f)),
  runScenario: (input) => runOne(input),
});
