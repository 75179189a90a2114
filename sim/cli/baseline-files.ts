import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { reportShapeError } from '../../reports/baseline.ts';
import type { Report } from '../../reports/report.ts';
import { InputError } from '../eventlog/input-error.ts';
import { readInputFile } from '../eventlog/regular-file.ts';

/**
 * Where a scenario's baseline lives. `--baseline` is a report.json, or a directory that holds one
 * `<scenario>/report.json` per scenario, the layout `baseline update` writes whatever the number of inputs,
 * so that a suite and a single scenario share one directory. A directory with a report.json at its top (the
 * layout single-input updates wrote before) still serves a single input that has no sub-directory there.
 */
export function baselineFile(path: string, dirName: string, single: boolean): string {
  if (!(existsSync(path) && statSync(path).isDirectory())) return path;
  const nested = join(path, dirName, 'report.json');
  const top = join(path, 'report.json');
  return single && !existsSync(nested) && existsSync(top) ? top : nested;
}

/**
 * The baseline for one scenario: undefined when there is none (the caller says so); an input error when
 * the file is not a report or is another scenario's, which would compare unrelated numbers.
 */
export function readBaseline(file: string, scenario: string): Report | undefined {
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readInputFile(file, 'a baseline report').toString('utf8'));
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(file, `cannot read the baseline report (${(err as Error).message})`);
  }
  const problem = reportShapeError(raw);
  if (problem !== null) throw new InputError(file, `not a routerbench report.json: ${problem}`);
  const report = raw as Report;
  if (report.scenario !== scenario) {
    throw new InputError(file, `this baseline is scenario '${report.scenario}', not '${scenario}' (a directory holds <scenario>/report.json per scenario)`, undefined, 'scenario');
  }
  return report;
}
