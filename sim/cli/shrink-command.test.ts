import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { Command } from 'commander';
import { afterEach, expect, test, vi } from 'vitest';
import { InputError } from '../eventlog/input-error.ts';
import { loadRunInput } from '../load-input.ts';
import { runOne } from '../run.ts';
import type { Report } from '../../reports/report.ts';
import { failureOf } from '../shrink/failure.ts';
import { registerShrinkCommand } from './shrink-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-shrink-'));
const EXAMPLES = join(import.meta.dirname, '..', '..', 'scenarios', 'examples');
const EXAMPLE = join(EXAMPLES, 'slots-burst.jsonl');
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'routerbench.js');

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
  // The events and endpoints before and after are those shrink-log.test.ts derives; 142 runs is what this
  // ddmin spends on them (counted, not derived), held so that a change of the search shows here.
  expect(r.stdout).toContain('slots-burst: 24 → 2 events, 58 → 6 endpoints in 142 runs\nfailure: budget reloads.requests.dynamic-slots-exhausted <= 0\n');
  expect(r.stdout).toContain(`reproduce: routerbench run ${out}\n`);
  for (const f of [out, scenario]) expect(failureOf(runOne(loadRunInput(f)).report)).toEqual(['budget reloads.requests.dynamic-slots-exhausted <= 0']);
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
  expect(header.budgets).toEqual(['reloads.requests.dynamic-slots-exhausted <= 0', 'runtimeApi.commands <= 3']);
  expect(header.settings.router.maxDynamicServers).toBe(9);
  expect(failureOf(runOne(loadRunInput(out)).report)).toEqual(['budget runtimeApi.commands <= 3']);
});

test("--env: the shrunk log's header carries the settings and the warnings, so that it fails alone the same way", async () => {
  const out = join(dir, 'env.jsonl');
  const scenario = join(dir, 'env.yaml');
  // A blueprint namespace named 007 (a string, which bare --set would read as 7), and a name routerbench does
  // not read: one warning, which the budget warnings.total <= 0 counts.
  const r = await shrink([EXAMPLE, '--out', out, '--scenario', scenario, '--env', 'ROUTER_BLUEPRINT_ROUTE_NAMESPACE=007', '--env', 'ROUTER_NO_SUCH=1', '--budget', 'warnings.total <= 0']);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('failure: budget reloads.requests.dynamic-slots-exhausted <= 0; budget warnings.total <= 0\n');
  expect(r.stdout).toContain("no scenario written: the budget warnings.total <= 0 counts the command line's warnings");
  expect(existsSync(scenario)).toBe(false);
  const header = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!);
  expect(header.settings.router.blueprintNamespace).toBe('007');
  expect(header.warnings).toEqual([expect.stringMatching(/^--env ROUTER_NO_SUCH: not a router variable routerbench reads/)]);
  const alone = runOne(loadRunInput(out)).report;
  expect(failureOf(alone)).toEqual(['budget reloads.requests.dynamic-slots-exhausted <= 0', 'budget warnings.total <= 0']);
  expect(alone.warnings.list.map((w) => w.message)).toEqual(header.warnings);
});

test('an invariant failure: the log shrinks, and the written log alone violates the same invariant', async () => {
  // dcm-add-del's stale EndpointTable (docs/fidelity-config-manager.md): s1's pods deleted and set again
  // before a reload leave its backend empty. s0 and the rest of s1's scaling are noise.
  const pod = (s: number, i: number): object => ({ ip: `10.128.${s}.${i}`, port: 8080, name: `p${s}-${i}` });
  const lines = [
    { routerbench: 'eventlog', version: 1, scenario: 'stale-table', settings: { router: { strategy: 'dcm-add-del' } } },
    { at: 0, type: 'route.upsert', route: { namespace: 'shop', name: 'r0', host: 'r0.apps.example.com', service: 's0' } },
    { at: 0, type: 'route.upsert', route: { namespace: 'shop', name: 'r1', host: 'r1.apps.example.com', service: 's1', path: '/cart' } },
    { at: 0, type: 'endpoints.set', namespace: 'shop', service: 's0', endpoints: [pod(0, 1), pod(0, 2)] },
    { at: 0, type: 'endpoints.set', namespace: 'shop', service: 's1', endpoints: [pod(1, 1), pod(1, 2)] },
    { at: 20_000, type: 'endpoints.set', namespace: 'shop', service: 's0', endpoints: [pod(0, 1)] },
    { at: 40_000, type: 'endpoints.delete', namespace: 'shop', service: 's1' },
    { at: 50_000, type: 'endpoints.set', namespace: 'shop', service: 's0', endpoints: [pod(0, 1), pod(0, 2), pod(0, 3)] },
    { at: 60_000, type: 'endpoints.set', namespace: 'shop', service: 's1', endpoints: [pod(1, 1), pod(1, 2)] },
  ];
  const log = join(dir, 'stale-table.jsonl');
  writeFileSync(log, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const failure = ['budget invariants.violations == 0', 'invariant haproxy-view'];
  expect(failureOf(runOne(loadRunInput(log)).report)).toEqual(failure);
  const out = join(dir, 'stale-table.min.jsonl');
  const r = await shrink([log, '--out', out]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`failure: ${failure.join('; ')}\n`);
  // The route, a pod set, deleted and set again (shrink-log.test.ts derives the same cut of a larger log);
  // endpoints before: 2 + 2 + 1 + 3 + 2 = 10, after: the one pod in both sets of s1.
  expect(r.stdout).toContain('stale-table: 8 → 4 events, 10 → 2 endpoints in ');
  const written = loadRunInput(out);
  expect([...written.events()].map((e) => e.type)).toEqual(['route.upsert', 'endpoints.set', 'endpoints.delete', 'endpoints.set']);
  expect(failureOf(runOne(written).report)).toEqual(failure);
});

test('a baseline regression: the shrunk log compared with the same baseline regresses the same metrics', async () => {
  // The baseline: the same log with slots enough for the burst (1 reload); with 5 slots it reloads twice.
  const roomy = loadRunInput(EXAMPLE, { set: { 'router.maxDynamicServers': '9' } });
  const baselineFile = join(dir, 'baseline.json');
  writeFileSync(baselineFile, JSON.stringify(runOne(roomy).report));
  const out = join(dir, 'regressed.jsonl');
  const r = await shrink([EXAMPLE, '--out', out, '--baseline', baselineFile]);
  expect(r.code).toBe(0);
  // The example's own budget fails too; the comparison adds reloads.total (2 > 1), the reason's count
  // (1 > 0) and the rate per hour.
  const failure = ['baseline reloads.perHour', 'baseline reloads.requests.dynamic-slots-exhausted', 'baseline reloads.total', 'budget reloads.requests.dynamic-slots-exhausted <= 0'];
  expect(r.stdout).toContain(`failure: ${failure.join('; ')}\n`);
  expect(r.stdout).toContain(`reproduce: routerbench run ${out} --baseline ${baselineFile}\n`);
  const baseline = { report: JSON.parse(readFileSync(baselineFile, 'utf8')) as Report, tolerances: [] };
  expect(failureOf(runOne(loadRunInput(out)).report, baseline)).toEqual(failure);
});

test('Ctrl-C after the first progress line writes the smallest failing log so far and exits 130', async () => {
  // 20 routes on dcm-slots whose services scale between 2 and 3 pods every 500 ms (within the 5 slots), and
  // a 21st route whose service is set to 6 pods at once at 52 s (one past them): 4,022 events that take a
  // few seconds to shrink.
  const pod = (s: number, i: number): object => ({ ip: `10.128.${s}.${i}`, port: 8080, name: `p${s}-${i}` });
  const lines: object[] = [{ routerbench: 'eventlog', version: 1, scenario: 'long', settings: { router: { strategy: 'dcm-slots' } }, budgets: ['reloads.requests.dynamic-slots-exhausted <= 0'] }];
  for (const s of [...Array.from({ length: 20 }, (_, i) => String(i)), 'burst']) lines.push({ at: 0, type: 'route.upsert', route: { namespace: 'shop', name: `r${s}`, host: `r${s}.apps.example.com`, service: `s${s}` } });
  for (let k = 0; k < 200; k++) {
    for (let s = 0; s < 20; s++) lines.push({ at: k * 500, type: 'endpoints.set', namespace: 'shop', service: `s${s}`, endpoints: [1, 2, 3].slice(0, 2 + ((k + s) % 2)).map((i) => pod(s, i)) });
    // The changes keep a reload running 1 s in every 5 (each reload meets changes that ask for the next); at
    // 52 s none runs (a set refused during one would reload for reload-in-progress instead).
    if (k === 104) lines.push({ at: k * 500, type: 'endpoints.set', namespace: 'shop', service: 'sburst', endpoints: [1, 2, 3, 4, 5, 6].map((i) => pod(99, i)) });
  }
  const log = join(dir, 'long.jsonl');
  writeFileSync(log, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const before = lines.length - 1;
  const failure = failureOf(runOne(loadRunInput(log)).report);
  expect(failure).toEqual(['budget reloads.requests.dynamic-slots-exhausted <= 0']);
  const out = join(dir, 'long.min.jsonl');
  const child = spawn(process.execPath, [BIN, 'shrink', log, '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  const code = await new Promise<number | null>((resolve) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
      if (stderr.includes('\n') && !child.killed) child.kill('SIGINT');
    });
    child.on('exit', (c) => resolve(c));
  });
  // stderr is not a terminal: a line per smaller log found, each with the runs, the log last tried and the
  // smallest failing one. The first comes after the second run (the first is the input's own).
  expect(stderr).toMatch(/^shrink long: 2 runs, tried \d+ events; smallest failing so far \d+ events, \d+ endpoints\n/);
  expect(code, stderr).toBe(130);
  expect(stdout).toContain('(stopped by SIGINT: the smallest failing log so far, not 1-minimal)');
  const written = loadRunInput(out);
  const events = [...written.events()];
  expect(events.length).toBeGreaterThan(0);
  expect(events.length).toBeLessThanOrEqual(before);
  expect(failureOf(runOne(written).report)).toEqual(failure);
}, 60_000);

test('--help documents every option', () => {
  const help = program().commands[0]!.helpInformation();
  for (const o of ['--out', '--scenario', '--seed', '--set', '--env', '--router-deployment', '--budget', '--baseline', '--tolerance', '--allow-large', '--no-progress', '130']) expect(help).toContain(o);
});
