import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, expect, test, vi } from 'vitest';
import { InputError } from '../eventlog/input-error.ts';
import { loadRunInput } from '../load-input.ts';
import { runOne } from '../run.ts';
import { failureOf } from '../shrink/failure.ts';
import { registerShrinkCommand } from './shrink-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-shrink-'));
const EXAMPLES = join(import.meta.dirname, '..', '..', 'scenarios', 'examples');
const EXAMPLE = join(EXAMPLES, 'slots-burst.jsonl');

function program(): Command {
  const p = new Command().exitOverride();
  registerShrinkCommand(p);
  return p;
}

async function shrink(args: string[]): Promise<{ code: number | undefined; stdout: string }> {
  let stdout = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    stdout += String(s);
    return true;
  });
  try {
    await program().parseAsync(['shrink', ...args, '--no-progress'], { from: 'user' });
    return { code: process.exitCode as number | undefined, stdout };
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => {
  process.exitCode = undefined;
});

test('writes a log that fails alone the same way, and a scenario; the same bytes every time', async () => {
  const out = join(dir, 'min.jsonl');
  const scenario = join(dir, 'min.yaml');
  const r = await shrink([EXAMPLE, '--out', out, '--scenario', scenario]);
  expect(r.code).toBe(0);
  // The events and endpoints before and after are those shrink-log.test.ts derives; 75 runs is what this
  // ddmin spends on them (counted, not derived), held so that a change of the search shows here.
  expect(r.stdout).toContain('slots-burst: 24 → 2 events, 58 → 6 endpoints in 75 runs\nfailure: budget reloads.total <= 1\n');
  expect(r.stdout).toContain(`reproduce: routerbench run ${out}\n`);
  for (const f of [out, scenario]) expect(failureOf(runOne(loadRunInput(f)).report)).toEqual(['budget reloads.total <= 1']);
  const first = readFileSync(out, 'utf8');
  await shrink([EXAMPLE, '--out', out]);
  expect(readFileSync(out, 'utf8')).toBe(first);
});

test('the shipped shrunk example is what shrink writes for the shipped failing log', async () => {
  const out = join(dir, 'again.jsonl');
  await shrink([EXAMPLE, '--out', out]);
  const events = (text: string): string[] => text.trimEnd().split('\n').slice(1);
  expect(events(readFileSync(out, 'utf8'))).toEqual(events(readFileSync(join(EXAMPLES, 'slots-burst.min.jsonl'), 'utf8')));
});

test('an input that passes is an input error (exit code 2), and nothing is written', async () => {
  const out = join(dir, 'none.jsonl');
  await expect(shrink([EXAMPLE, '--out', out, '--set', 'router.maxDynamicServers=9'])).rejects.toThrow(InputError);
  await expect(shrink([EXAMPLE, '--out', out, '--set', 'router.maxDynamicServers=9'])).rejects.toThrow(/the run passes \(24 events\): nothing to shrink/);
  expect(existsSync(out)).toBe(false);
});

test('a budget from the command line is the failure, and the shrunk log carries it', async () => {
  const out = join(dir, 'budget.jsonl');
  // With 9 slots nothing reloads after the first load; the budget fails on the runtime commands instead.
  const r = await shrink([EXAMPLE, '--out', out, '--set', 'router.maxDynamicServers=9', '--budget', 'runtimeApi.commands <= 3']);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('failure: budget runtimeApi.commands <= 3\n');
  const header = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!);
  expect(header.budgets).toEqual(['reloads.total <= 1', 'runtimeApi.commands <= 3']);
  expect(header.settings.router.maxDynamicServers).toBe(9);
  expect(failureOf(runOne(loadRunInput(out)).report)).toEqual(['budget runtimeApi.commands <= 3']);
});

test('--help documents every option', () => {
  const help = program().commands[0]!.helpInformation();
  for (const o of ['--out', '--scenario', '--seed', '--set', '--env', '--router-deployment', '--budget', '--baseline', '--tolerance', '--allow-large', '--no-progress', '130']) expect(help).toContain(o);
});
