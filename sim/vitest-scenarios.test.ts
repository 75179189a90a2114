import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { sampleReport } from '../reports/report-fixture.ts';
import type { RunInput } from './run-input.ts';
import { loadScenario } from './scenario/load-scenario.ts';
import { BudgetFailure, describeScenarios, scenarioFiles, scenarioTimeoutMs } from './vitest-scenarios.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-vitest-'));
mkdirSync(join(dir, 'nested'));
writeFileSync(join(dir, 'a.yaml'), 'name: alpha\nevents: []\nbudgets:\n  reloads.total: "<= 5"\n  failover.p99: "<= 3000"\n');
writeFileSync(join(dir, 'nested', 'b.yml'), 'name: beta\nevents: []\n');
writeFileSync(join(dir, 'broken.yaml'), 'nme: typo\n');
writeFileSync(join(dir, 'notes.txt'), 'not a scenario');

/** Collects what describeScenarios declares, so the declared tests can be run here by hand. */
function collect(runs: string[]) {
  const tests: Array<{ name: string; fn: () => Promise<void> | void; timeoutMs: number | undefined }> = [];
  let scope = '';
  describeScenarios({
    paths: dir,
    runScenario: (input: RunInput) => {
      runs.push(input.name);
      return { report: sampleReport({ scenario: input.name }) };
    },
    describe: (name, body) => {
      scope = name;
      body();
    },
    test: (name, fn, timeoutMs) => tests.push({ name: `${scope} > ${name}`, fn, timeoutMs }),
  });
  return tests;
}

test('scenarioFiles finds YAML files recursively, sorted', () => {
  expect(scenarioFiles(dir).map((f) => f.slice(dir.length + 1))).toEqual(['a.yaml', 'broken.yaml', 'nested/b.yml']);
});

test('a describe per scenario, a test per budget; each scenario runs once', async () => {
  const runs: string[] = [];
  const tests = collect(runs);
  expect(tests.map((t) => t.name)).toEqual([
    `alpha (${join(dir, 'a.yaml')}) > invariants.violations == 0`,
    `alpha (${join(dir, 'a.yaml')}) > reloads.total <= 5`,
    `alpha (${join(dir, 'a.yaml')}) > failover.latencyMs.p99 <= 3000`,
    `${join(dir, 'broken.yaml')} > loads`,
    `beta (${join(dir, 'nested', 'b.yml')}) > invariants.violations == 0`,
  ]);
  const outcomes = await Promise.all(tests.map(async (t) => {
    try {
      await t.fn();
      return 'pass';
    } catch (err) {
      return err instanceof BudgetFailure ? `fail: ${err.message}` : `error: ${(err as Error).message}`;
    }
  }));
  expect(outcomes[0]).toBe('pass');
  expect(outcomes[1]).toBe('pass');
  // sampleReport's p99 is 3990 ms; a.yaml states that budget (as failover.p99) on its line 5.
  expect(outcomes[2]).toBe(`fail: ${join(dir, 'a.yaml')}:5: failover.latencyMs.p99 = 3990, budget <= 3000\nreproduce: routerbench run ${join(dir, 'a.yaml')} --seed 1`);
  expect(outcomes[3]).toMatch(/^error: .*broken\.yaml:1:1: field 'nme': unknown key 'nme'/);
  expect(outcomes[4]).toBe('pass');
  expect(runs).toEqual(['alpha', 'beta']);
});

test('a failure points at the scenario file, then at the test file that declared it; never at routerbench', async () => {
  const tests = collect([]);
  const err = await Promise.resolve()
    .then(() => tests[2]!.fn())
    .then(() => undefined, (e: unknown) => e as Error);
  const frames = err!.stack!.split('\n').filter((l) => l.startsWith('    at '));
  expect(frames[0]).toBe(`    at ${join(dir, 'a.yaml')}:5:1`);
  expect(frames[1]).toContain('vitest-scenarios.test.ts');
  expect(frames).toHaveLength(2);
});

test('a scenario that does not load: its test fails at the mistake in the scenario file', async () => {
  const tests = collect([]);
  const err = await Promise.resolve()
    .then(() => tests[3]!.fn())
    .then(() => undefined, (e: unknown) => e as Error);
  const frames = err!.stack!.split('\n').filter((l) => l.startsWith('    at '));
  // broken.yaml is `nme: typo`: the unknown key at line 1, column 1.
  expect(frames[0]).toBe(`    at ${join(dir, 'broken.yaml')}:1:1`);
  expect(frames[1]).toContain('vitest-scenarios.test.ts');
});

test("the default timeout follows the scenario's size: 10 s, 1 ms per input event, 1 ms per node-second simulated", () => {
  const tests = collect([]);
  // alpha and beta have no events and no cluster: the 10 s alone.
  expect(tests.map((t) => t.timeoutMs)).toEqual([10_000, 10_000, 10_000, undefined, 10_000]);
  // vrrp-master-crash: 1 input event and 2 nodes over its sim.durationMs of 120 s: 10,000 + 1 + 240 ms.
  expect(scenarioTimeoutMs(loadScenario(join(import.meta.dirname, '..', 'scenarios', 'vrrp-master-crash.yaml')))).toBe(10_241);
});
