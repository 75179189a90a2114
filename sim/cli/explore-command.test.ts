import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, expect, test, vi } from 'vitest';
import { InputError } from '../eventlog/input-error.ts';
import { registerExploreCommand } from './explore-command.ts';
import { registerMergeCommand } from './merge-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-explore-'));

async function cli(args: string[]): Promise<{ code: number | undefined; stdout: string }> {
  const p = new Command().exitOverride();
  registerExploreCommand(p);
  registerMergeCommand(p);
  let stdout = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    stdout += String(s);
    return true;
  });
  try {
    await p.parseAsync(args[0] === 'merge' ? args : ['explore', ...args, '--no-progress'], { from: 'user' });
    return { code: process.exitCode as number | undefined, stdout };
  } finally {
    out.mockRestore();
  }
}

afterEach(() => {
  process.exitCode = undefined;
});

const files = (d: string): Record<string, string> => {
  const all: Record<string, string> = {};
  for (const f of readdirSync(d, { recursive: true, withFileTypes: true })) if (f.isFile()) all[join(f.parentPath, f.name).slice(d.length + 1)] = readFileSync(join(f.parentPath, f.name), 'utf8');
  return all;
};

// Seed 1's run 0 under dcm-slots violates haproxy-view (socket restarts lose runtime changes); runs 1 and 2 do not.
const ARGS = ['--seed', '1', '--runs', '3', '--strategies', 'dcm-slots'];

test('the same files whatever --workers, and shards merged into them; exit 1 with a finding, 0 when it is allowed', async () => {
  const one = await cli([...ARGS, '--workers', '1', '--out', join(dir, 'w1')]);
  const two = await cli([...ARGS, '--workers', '2', '--out', join(dir, 'w2')]);
  expect(one.code).toBe(1);
  expect(two.code).toBe(1);
  // One finding, from one run, the first (seed 1), shrunk, not allowed, with its file.
  expect(one.stdout).toMatch(/^haproxy-view {2}dcm-slots {2}1 {5}1 {11}\d+ → \d+ {2}FAIL {5}findings\/haproxy-view--dcm-slots\.yaml$/m);
  expect(files(join(dir, 'w2'))).toEqual(files(join(dir, 'w1')));
  expect(Object.keys(files(join(dir, 'w1'))).sort()).toEqual(['explore.json', 'findings/haproxy-view--dcm-slots.yaml', 'junit.xml', 'summary.md']);

  for (const i of [0, 1]) expect((await cli([...ARGS, '--workers', '0', '--shard', `${i}/2`, '--out', join(dir, `s${i}`)])).code).toBe(i === 0 ? 1 : 0);
  expect((await cli(['merge', join(dir, 's0'), join(dir, 's1'), '--out', join(dir, 'merged')])).code).toBe(1);
  expect(files(join(dir, 'merged'))).toEqual(files(join(dir, 'w1')));

  const allowed = await cli([...ARGS, '--workers', '0', '--allow', 'haproxy-view@dcm-slots', '--out', join(dir, 'allowed')]);
  expect(allowed.code).toBe(0);
  expect(allowed.stdout).toContain('pass: only allowed findings');
  expect(readFileSync(join(dir, 'allowed', 'junit.xml'), 'utf8')).toContain('<skipped message="allowed: ');
});

test('a reused --out keeps no finding the new exploration did not make, and leaves other files alone', async () => {
  const out = join(dir, 'reused');
  expect((await cli([...ARGS, '--workers', '0', '--out', out])).code).toBe(1);
  writeFileSync(join(out, 'findings', 'notes.txt'), 'mine');
  // Shard 1/2 makes run 1 only, which violates nothing (see ARGS): the earlier finding is stale.
  expect((await cli([...ARGS, '--workers', '0', '--shard', '1/2', '--out', out])).code).toBe(0);
  expect(Object.keys(files(out)).sort()).toEqual(['explore.json', 'findings/notes.txt', 'junit.xml', 'summary.md']);
});

test('--replay runs a finding alone: exit 1 while it violates its property, 0 when allowed', async () => {
  await cli([...ARGS, '--workers', '0', '--out', join(dir, 'r')]);
  const finding = join(dir, 'r', 'findings', 'haproxy-view--dcm-slots.yaml');
  const r = await cli(['--replay', finding]);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/^explore-1-haproxy-view \(dcm-slots, seed 1\): 1 property violated\n {2}haproxy-view at /);
  expect((await cli(['--replay', finding, '--allow', 'haproxy-view'])).code).toBe(0);
  // The workload alone, under another strategy: the finding's settings are dcm-slots with socket faults.
  expect((await cli(['--replay', finding, '--set', 'haproxy.restartRate=0', '--set', 'haproxy.resetRate=0', '--set', 'haproxy.refusedRate=0'])).stdout).toContain('no property violated');
});

test('bad input is refused before anything runs, naming the flag', async () => {
  const refused = async (args: string[], message: RegExp): Promise<void> => {
    const err = await cli(args).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(message);
  };
  await refused(['--runs', '1'], /--out: explore writes its findings to a directory/);
  await refused(['--runs', '1', '--minutes', '1', '--out', join(dir, 'x')], /give --runs or --minutes, not both/);
  await refused(['--allow', 'haproxy', '--out', join(dir, 'x')], /unknown property 'haproxy'/);
  await refused(['--allow', 'haproxy-view@slots', '--out', join(dir, 'x')], /unknown strategy 'slots'/);
  await refused(['--strategies', 'dcm-slots,nope', '--out', join(dir, 'x')], /unknown strategy 'nope'/);
  await refused(['--shard', '2/2', '--out', join(dir, 'x')], /expected i\/n/);
  await refused(['--set', 'router.strategy=dcm-slots', '--out', join(dir, 'x')], /--set: applies to --replay/);
});
