import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { projectReport } from '../reports/project-report.ts';
import type { Report } from '../reports/report.ts';
import { InputError } from './eventlog/input-error.ts';
import { loadRunInput, type InputOverrides } from './load-input.ts';
import { readOutputLog } from './output/output-log-reader.ts';
import { JsonlFileSink, nullSink } from './output/output-sink.ts';
import { headerOf, judge, runOne } from './run.ts';
import type { RunInput } from './run-input.ts';

/**
 * routerbench as a library (`import … from 'routerbench'`): load a scenario or event log, run it, read a
 * report back. The CLI is built on the same calls; what it adds is files, baselines and rendering.
 *
 *   import { loadInput, run } from 'routerbench';
 *   const report = run(loadInput('scenarios/route-burst.yaml', { seed: 7 }));
 *   if (!report.pass) console.log(report.budgets.filter((b) => !b.pass));
 */
export { loadRunInput as loadInput, expandInputPaths, type InputOverrides } from './load-input.ts';
export { loadScenario, parseScenario, type ScenarioOverrides, type ScenarioRunInput } from './scenario/load-scenario.ts';
export { runOne, judge, type RunResult, type RecordObserver } from './run.ts';
export type { RunInput } from './run-input.ts';
export type { Settings } from './settings.ts';
export type { OutputHeader, OutputRecord } from './output/records.ts';
export type { Report, BudgetResult, ReportWarning, FailoverIncident, LatencySummaryMs, BaselineSection } from '../reports/report.ts';
export { evaluateBudgets, parseBudget, knownMetricPaths, metricAt, BudgetSyntaxError, BUILTIN_BUDGETS, type Budget } from '../reports/budgets.ts';
export { InputError, InputErrors } from './eventlog/input-error.ts';

export interface RunOptions {
  /** Write the run's output log (v1 JSONL, what `routerbench report` reads) to this file. */
  outputLog?: string;
}

/** One deterministic run to its judged report (budgets evaluated, `pass` set). */
export function run(input: RunInput, options: RunOptions = {}): Report {
  if (options.outputLog === undefined) return runOne(input, nullSink).report;
  const sink = new JsonlFileSink(options.outputLog, headerOf(input));
  const { report } = runOne(input, sink);
  sink.commit();
  return report;
}

/** Load and run one file (scenario .yaml or event log .jsonl) under the overrides. */
export function runFile(file: string, overrides: InputOverrides = {}, options: RunOptions = {}): Report {
  return run(loadRunInput(file, overrides), options);
}

/**
 * A report back from disk: a run's report.json as written, or its output.jsonl (v1) rebuilt and judged
 * again without simulating. Throws InputError naming the file (and line, for a log) when it is not one.
 */
export function readReport(file: string): Report {
  if (extname(file) === '.jsonl') {
    const { header, records } = readOutputLog(file);
    return judge(projectReport(header, records), header.budgets);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== undefined) throw err;
    throw new InputError(file, `not JSON: ${(err as Error).message}`);
  }
  const r = parsed as Partial<Report> | null;
  if (r === null || typeof r !== 'object' || typeof r.scenario !== 'string' || !Array.isArray(r.budgets) || typeof r.pass !== 'boolean') {
    throw new InputError(file, 'not a routerbench report.json (no scenario, budgets and pass)');
  }
  return r as Report;
}
