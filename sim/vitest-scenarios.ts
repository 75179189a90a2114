import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe as vitestDescribe, test as vitestTest } from 'vitest';
import { BUILTIN_BUDGETS, evaluateBudgets } from '../reports/budgets.ts';
import { budgetFailureLines } from '../reports/render/failure-detail.ts';
import { lineOfBudget } from '../reports/render/outcome.ts';
import type { Report } from '../reports/report.ts';
import { runOne } from './run.ts';
import type { RunInput } from './run-input.ts';
import { budgetLines } from './scenario/budget-lines.ts';
import { loadScenario, type ScenarioOverrides } from './scenario/load-scenario.ts';

/**
 * Turns scenario files into vitest tests, so a project's own `vitest run` is the gate: a `describe` per
 * scenario and a test per budget (the built-in `invariants.violations == 0` included). Each scenario runs
 * once, on its first test; a scenario that does not load gets one failing test carrying the input error.
 * A failure starts with the scenario file and the line of its budget, and carries the first invariant
 * violations and the command that reproduces the run.
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
  /** Per-test timeout (ms), which covers the scenario's run on its first test; by default it follows the scenario's size (scenarioTimeoutMs). */
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

/**
 * A timeout for a scenario's first test, from its size: 10 s, plus 1 ms per input event and 1 ms per
 * second of simulated time per keepalived node. The slowest replay measured is dcm-slots at 37,053
 * events/s (README, commit 23d2e80), 27 µs an event; the bundled scenarios took 0.02–0.12 ms per
 * node-second on this 2-core machine under load (vrrp-multicast-50-nodes: 0.48 s for 50 nodes × 600 s;
 * churn-with-failover: 0.86 s for 2 nodes × 3,655 s), and at most 0.9 s in all (the 10 s). Each term
 * keeps a margin of eight or more: a timeout says a run is stuck, not that it is slow.
 */
export function scenarioTimeoutMs(input: RunInput): number {
  let events = 0;
  let lastMs = 0;
  for (const e of input.events()) {
    events++;
    lastMs = e.at;
  }
  const simulatedMs = input.settings.sim.durationMs ?? lastMs + input.settings.sim.settleMs;
  const nodes = input.cluster?.nodes.length ?? 0;
  return Math.ceil(10_000 + events + nodes * (simulatedMs / 1000));
}

/** This module's own frames, skipped when finding who called describeScenarios. */
const SELF = fileURLToPath(import.meta.url);

/** The caller's stack frame: vitest annotates a failure at the nearest frame of a test file it ran. */
function callerFrame(): string {
  const frames = (new Error().stack ?? '').split('\n').filter((l) => /^\s+at /.test(l));
  return frames.find((l) => !l.includes(SELF) && !l.includes(import.meta.url)) ?? '';
}

export function describeScenarios(options: ScenarioTestOptions): void {
  const describe = options.describe ?? vitestDescribe;
  const test = options.test ?? ((name, fn, timeout) => vitestTest(name, fn, timeout));
  const caller = callerFrame();
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
    const lines = budgetLines(readFileSync(file, 'utf8'));
    const timeoutMs = options.timeoutMs ?? scenarioTimeoutMs(input);
    describe(`${input.name} (${file})`, () => {
      // Budgets are parsed now (loadScenario validated them), judged once the run is done.
      for (const budget of [...new Set([...BUILTIN_BUDGETS, ...input.budgets])]) {
        test(budget, async () => {
          const r = await report();
          // The built-in budget comes first and is judged once: the last result is this test's budget.
          const results = evaluateBudgets(r, [budget]);
          const result = results[results.length - 1]!;
          if (!result.pass) {
            const line = lineOfBudget(lines, result.name);
            const failure = new BudgetFailure(`${file}:${line}: ${budgetFailureLines(r, result).join('\n')}\nreproduce: ${input.reproduce}`);
            // The scenario file first (the terminal shows it), then the test file that declared it (where
            // vitest's own reporters, GitHub's included, annotate a failure): never routerbench's own code.
            failure.stack = `${failure.name}: ${failure.message}\n    at ${resolve(file)}:${line}:1${caller === '' ? '' : `\n${caller}`}`;
            throw failure;
          }
        }, timeoutMs);
      }
    });
  }
}
