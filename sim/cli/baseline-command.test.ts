import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runCommand } from './run-command.ts';
import { updateBaselines } from './baseline-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-baseline-'));
const scenario = (name: string, routes: number) =>
  `name: ${name}\nsim: { durationMs: 60000, settleMs: 1000 }\ngenerate:\n  world: { services: 2 }\n  routes: { initial: ${routes} }\n`;

test('baseline update writes what run --baseline reads, and reports what moved', async () => {
  const a = join(dir, 'a.yaml');
  const b = join(dir, 'b.yaml');
  writeFileSync(a, scenario('alpha', 2));
  writeFileSync(b, scenario('beta', 3));
  const base = join(dir, 'baselines');
  const said: string[] = [];
  expect(updateBaselines([a, b], { baseline: base }, (l) => said.push(l))).toBe(0);
  expect(said.map((l) => l.replace(base, 'B'))).toEqual([
    expect.stringMatching(/^B\/alpha\/report\.json: new baseline/),
    expect.stringMatching(/^B\/beta\/report\.json: new baseline/),
  ]);
  const alpha = JSON.parse(readFileSync(join(base, 'alpha', 'report.json'), 'utf8'));
  expect(alpha).toMatchObject({ routerbench: 'report', scenario: 'alpha' });

  // Unchanged inputs compare equal: run --baseline passes.
  const out = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    expect(await runCommand([a, b], { baseline: base })).toBe(0);
  } finally {
    process.stdout.write = out;
  }

  // alpha grows from 2 to 5 routes: events go from 2 endpoints.set + 2 route.upsert = 4 to 2 + 5 = 7.
  writeFileSync(a, scenario('alpha', 5));
  said.length = 0;
  updateBaselines([a, b], { baseline: base }, (l) => said.push(l));
  expect(said[0]).toMatch(/alpha\/report\.json: .*events 4 → 7/);
  expect(said[1]).toMatch(/beta\/report\.json: unchanged$/);
});

test('one scenario updated alone lands beside the suite; a baseline of another scenario is refused', async () => {
  const a = join(dir, 'one-a.yaml');
  const b = join(dir, 'one-b.yaml');
  writeFileSync(a, scenario('gamma', 2));
  writeFileSync(b, scenario('delta', 3));
  const base = join(dir, 'one-baselines');
  const quiet = () => undefined;
  expect(updateBaselines([a, b], { baseline: base }, quiet)).toBe(0);
  // Updating gamma alone rewrites gamma's file, not a report.json at the top that every single run would read.
  const said: string[] = [];
  updateBaselines([a], { baseline: base, set: { 'router.blueprintPoolSize': '0' } }, (l) => said.push(l));
  expect(said).toEqual([expect.stringMatching(/one-baselines\/gamma\/report\.json: /)]);
  expect(existsSync(join(base, 'report.json'))).toBe(false);

  const out = process.stdout.write;
  const err = process.stderr.write;
  const errors: string[] = [];
  process.stdout.write = (() => true) as typeof process.stdout.write;
  process.stderr.write = ((t: string) => errors.push(t) > 0) as typeof process.stderr.write;
  try {
    // delta alone, against the directory: its own baseline, unchanged.
    expect(await runCommand([b], { baseline: base, progress: false })).toBe(0);
    // delta against gamma's report: unrelated numbers, so bad input rather than a regression.
    await expect(runCommand([b], { baseline: join(base, 'gamma', 'report.json'), progress: false })).rejects.toThrow(
      "this baseline is scenario 'gamma', not 'delta'",
    );
    // A scenario the directory has no baseline for is run, and said to be uncompared.
    const c = join(dir, 'one-c.yaml');
    writeFileSync(c, scenario('epsilon', 1));
    expect(await runCommand([b, c], { baseline: base, progress: false })).toBe(0);
    expect(errors.join('')).toMatch(/no baseline for epsilon \(.*one-baselines\/epsilon\/report\.json\): not compared/);
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
});
