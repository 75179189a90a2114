import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { actionInputs, inputErrorAnnotations, junitAnnotations, runAction, runArgs, workflowCommand } from './action.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-action-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('inputs as GitHub passes them become the run command line', () => {
  const inputs = actionInputs({ INPUT_SCENARIOS: 'scenarios/a.yaml, scenarios/b.yaml\nmore', INPUT_BASELINE: ' baselines ', INPUT_TOLERANCE: 'failover.p99=5%,reloads.total=1', INPUT_BUDGET: 'reloads.total <= 2\n\nwarnings.total == 0\n', INPUT_OUT: '' });
  expect(runArgs(inputs)).toEqual(['run', 'scenarios/a.yaml', 'scenarios/b.yaml', 'more', '--out', 'routerbench-out', '--no-progress', '--baseline', 'baselines', '--tolerance', 'failover.p99=5%', '--tolerance', 'reloads.total=1', '--budget', 'reloads.total <= 2', '--budget', 'warnings.total == 0']);
  // GitHub passes an input left out as an empty string: the defaults, no --baseline.
  expect(runArgs(actionInputs({ INPUT_SCENARIOS: '', INPUT_BASELINE: '', INPUT_TOLERANCE: '', INPUT_BUDGET: '' }))).toEqual(['run', 'scenarios', '--out', 'routerbench-out', '--no-progress']);
});

test('workflow commands escape what would end a property or the message', () => {
  expect(workflowCommand({ file: 'a,b:c.yaml', line: 3, title: 'x: y', message: '100% of\nit' })).toBe('::error file=a%2Cb%3Ac.yaml,line=3,title=x%3A y::100%25 of%0Ait');
});

test('junit failures become annotations on the scenario file and line; bad input on its file:line', () => {
  const xml = `<testsuite><testcase classname="routerbench.s &amp; t" name="reloads.total &lt;= 1" time="0" file="sc/s.yaml" line="12">
      <failure message="m" type="budget">reloads.total = 2, budget &lt;= 1
reproduce: routerbench run sc/s.yaml</failure>
    </testcase><testcase classname="routerbench.s" name="ok" time="0" file="sc/s.yaml" line="3"/></testsuite>`;
  expect(junitAnnotations(xml)).toEqual([{ file: 'sc/s.yaml', line: 12, title: 'routerbench: s & t: reloads.total <= 1', message: 'reloads.total = 2, budget <= 1\nreproduce: routerbench run sc/s.yaml' }]);
  expect(inputErrorAnnotations('routerbench: sc/bad.yaml:4:7: unknown key\nother\n')).toEqual([{ file: 'sc/bad.yaml', line: 4, title: 'routerbench: bad input', message: 'unknown key' }]);
});

test('the step: runs the suite, annotates the broken budget at its line, appends the summary, sets exit-code', () => {
  const scenario = join(dir, 'burst.yaml');
  const text = readFileSync(join(import.meta.dirname, '..', '..', 'scenarios', 'route-burst.yaml'), 'utf8');
  // route-burst reloads twice (its file derives it); a budget of 1 fails on the line that states it.
  writeFileSync(scenario, text.replace('reloads.total: "<= 2"', 'reloads.total: "<= 1"'));
  const budgetLine = text.split('\n').findIndex((l) => l.includes('reloads.total: "<= 2"')) + 1;
  const summary = join(dir, 'summary');
  const output = join(dir, 'output');
  let printed = '';
  const code = runAction({ ...process.env, INPUT_SCENARIOS: scenario, INPUT_OUT: join(dir, 'out'), GITHUB_STEP_SUMMARY: summary, GITHUB_OUTPUT: output }, (s) => {
    printed += s;
  });
  expect(code).toBe(1);
  const errors = printed.split('\n').filter((l) => l.startsWith('::error '));
  expect(errors).toHaveLength(1);
  expect(errors[0]).toContain(`::error file=${scenario.replace(/:/g, '%3A')},line=${budgetLine},title=routerbench%3A route-burst%3A reloads.total <= 1::reloads.total = 2, budget <= 1`);
  expect(readFileSync(summary, 'utf8')).toContain('## routerbench: 1 scenario, 1 failed');
  expect(readFileSync(output, 'utf8')).toBe(`exit-code=1\nout=${join(dir, 'out')}\n`);
});
