import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe as vitestDescribe, test as vitestTest, vi } from 'vitest';
import { BUILTIN_BUDGETS, evaluateBudgets } from '../reports/budgets.ts';
import { budgetFailureLines } from '../reports/render/failure-detail.ts';
import { lineOfBudget } from '../reports/render/outcome.ts';
import type { Report } from '../reports/report.ts';
import { runOne } from './run.ts';
import type { RunInput } from './run-input.ts';
import { budgetLines } from './scenario/budget-lines.ts';
import { InputError, loadScenario, type ScenarioOverrides } from './scenario/load-scenario.ts';

/**
 * Turns scenario files into vitest tests, so a project's own `vitest run` is the gate: a `describe` per
 * scenario and a test per budget (the built-in `invariants.violations == 0` included). Each scenario runs
 * once, on its first test; a scenario that does not load gets one failing test carrying the input error.
 * A failure starts with the scenario file and the line of its budget, and carries the first invariant
 * violations and the command that reproduces the run. Its stack's first frame is that line of the scenario
 * file, which vitest then shows as the failure's place (with a code frame of the YAML in the terminal, and
 * in its `github-actions` reporter's annotation); see `pointAtScenario`.
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

/**
 * Makes a failure point at a place in a scenario file rather than at this module: the error's stack starts
 * with `file:line:column`, then the test file that declared the test.
 *
 * vitest (4.1) places a failure at the first stack frame in a module it has loaded itself (its module
 * graph), skipping the others: a frame in a YAML file alone would be skipped, and the failure shown (and
 * annotated on GitHub) at the `describeScenarios` call. Importing the scenario through vitest as raw text
 * (`vi.importActual('/abs/x.yaml?raw')`, vite's `?raw` query, which works on any text file) puts the file
 * in that graph: the frame is then the nearest, the terminal shows the YAML around the line, and the
 * `github-actions` reporter writes `::error file=…/x.yaml,line=…`. Outside a vitest run (the import fails)
 * the stack alone still names the place. A test's `location` cannot name another file, and an annotation's
 * location is always taken from the test file's frame, so neither can do this.
 */
async function pointAtScenario(err: Error, file: string, line: number, column: number, caller = ''): Promise<void> {
  const path = resolve(file);
  err.stack = `${err.name}: ${err.message}\n    at ${path}:${line}:${column}${caller === '' ? '' : `\n${caller}`}`;
  try {
    await vi.importActual(`${path}?raw`);
  } catch {
    // Not under vitest, or a vitest that cannot load it: the stack still names the file and line.
  }
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
        test('loads', async () => {
          // A located input error (file:line:column, the scenario's or an event log's it names) points
          // there, as a budget's failure does.
          if (err instanceof InputError && err.line !== undefined && existsSync(err.file)) await pointAtScenario(err, err.file, err.line, err.column ?? 1, caller);
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
            // The budget's line in the scenario file first, then the test file that declared it: never
            // routerbench's own code.
            await pointAtScenario(failure, file, line, 1, caller);
            throw failure;
          }
        }, timeoutMs);
      }
    });
  }
}
