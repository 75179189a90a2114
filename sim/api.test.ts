import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { InputError, loadInput, readReport, run, runFile } from './api.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-api-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SCENARIO = join(import.meta.dirname, '..', 'scenarios', 'route-burst.yaml');

test('a run written as an output log reads back as the same report, report.json too', () => {
  const log = join(dir, 'output.jsonl');
  const report = run(loadInput(SCENARIO, { seed: 5 }), { outputLog: log });
  expect(readReport(log)).toEqual(report);
  const json = join(dir, 'report.json');
  writeFileSync(json, JSON.stringify(report));
  expect(readReport(json)).toEqual(report);
});

test('runFile judges the budgets it is given on top of the scenario own', () => {
  // route-burst reloads twice (its own budget says <= 2, derived in the scenario file): a budget of 1 fails.
  const report = runFile(SCENARIO, { budgets: ['reloads.total <= 1'] });
  expect(report.pass).toBe(false);
  expect(report.budgets.filter((b) => !b.pass).map((b) => [b.name, b.actual])).toEqual([['reloads.total', 2]]);
});

test('readReport refuses what is not a report, naming the file', () => {
  const notJson = join(dir, 'broken.json');
  writeFileSync(notJson, '{');
  expect(() => readReport(notJson)).toThrow(InputError);
  const other = join(dir, 'other.json');
  writeFileSync(other, '{"name": "x"}');
  expect(() => readReport(other)).toThrow(`${other}: not a routerbench report.json`);
});
