import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
