import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe as vitestDescribe, test as vitestTest } from 'vitest';
import { BUILTIN_BUDGETS, evaluateBudgets } from '../reports/budgets.ts';
import type { Report } from '../reports/report.ts';
import { runOne } from './run.ts';
import type { RunInput } from './run-input.ts';
import { loadScenario, type ScenarioOverrides } from './scenario/load-scenario.ts';

/**
 * Turns scenario files into vitest tests, so a project's own `vitest run` is the gate: a `describe` per
 * scenario and a test per budget (the built-in `invariants.violations == 0` included). Each scenario runs
 * once, on its first test; a scenario that does not load gets one failing test carrying the input error.
 *
 *   // scenarios.test.ts
 *   import { describeScenarios } from 'routerbench/vitest';
 *   describeScenarios({ paths: 'scenarios' });
 */
export interface ScenarioTestOptions {
  /** Scenario files, or directories searched recursively for *.yaml and *.yml. */
  paths: string | readonly string[];
  /** Runs one input to its report; defaults to routerbench's own deterministic run (`runOne`). */
  runScenario?: (input: RunInput) => { report: Report } | Promise<{ report: Report }>;
  overrides?: ScenarioOverrides;
  /** vitest's `describe` and `test`; defaults to this package's vitest. */
  describe?: (name: string, body: () => void) => void;
  test?: (name: string, fn: () => Promise<void> | void, timeoutMs?: number) => void;
  /** Per-test timeout (ms), which covers the scenario's run on its first test. */
  timeoutMs?: number;
}

export function scenarioFiles(paths: string | readonly string[]): string[] {
  const out: string[] = [];
  const visit = (p: string): void => {
    if (statSync(p).isDirectory()) {
      for (const entry of readdirSync(p).sort()) visit(join(p, entry));
    } else if (/\.ya?ml$/.test(p)) {
      out.push(p);
    }
  };
  for (const p of typeof paths === 'string' ? [paths] : paths) visit(p);
  return out;
}

export class BudgetFailure extends Error {
  override name = 'BudgetFailure';
}

export function describeScenarios(options: ScenarioTestOptions): void {
  const describe = options.describe ?? vitestDescribe;
  const test = options.test ?? ((name, fn, timeout) => vitestTest(name, fn, timeout));
  for (const file of scenarioFiles(options.paths)) {
    let input: RunInput;
    try {
      input = loadScenario(file, options.overrides);
    } catch (err) {
      describe(file, () => {
        test('loads', () => {
          throw err;
        });
      });
      continue;
    }
    let run: Promise<Report> | undefined;
    const report = (): Promise<Report> => (run ??= Promise.resolve((options.runScenario ?? runOne)(input)).then((r) => r.report));
    describe(`${input.name} (${file})`, () => {
      // Budgets are parsed now (loadScenario validated them), judged once the run is done.
      for (const budget of [...new Set([...BUILTIN_BUDGETS, ...input.budgets])]) {
        test(budget, async () => {
          const r = await report();
          // The built-in budget comes first and is judged once: the last result is this test's budget.
          const results = evaluateBudgets(r, [budget]);
          const result = results[results.length - 1]!;
          if (!result.pass) {
            const violations = result.name === 'invariants.violations' ? `\n${r.invariants.violations.map((v) => `  at ${v.atMs} ms ${v.name}: ${v.detail}`).join('\n')}` : '';
            throw new BudgetFailure(`${result.name} = ${result.actual ?? 'no value'}, budget ${result.limit}${violations}\nreproduce: ${input.reproduce}`);
          }
        }, options.timeoutMs);
      }
    });
  }
}
