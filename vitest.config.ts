import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{core,sim,reports,scenarios,fidelity,test}/**/*.test.ts'],
    // Simulations are CPU-bound; two workers match the 2-core machines CI runs on.
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});
