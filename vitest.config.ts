import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{core,sim,reports,scenarios,fidelity,test}/**/*.test.ts'],
    // Simulations are CPU-bound; two workers match the 2-core machines CI runs on.
    maxWorkers: 2,
    testTimeout: 60_000,
    // The CLI the tests spawn (bin/routerbench.js) runs the sources under test, not a possibly stale dist/.
    env: { ROUTERBENCH_FROM_SOURCES: '1' },
    // ROUTERBENCH_PROPERTY_SEED, when set, seeds the property tests (test/property-seed.ts).
    setupFiles: ['test/property-seed-setup.ts'],
  },
});
