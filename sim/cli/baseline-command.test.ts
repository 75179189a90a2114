import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { expect, test } from 'vitest';
import { runCommand } from './run-command.ts';
import { registerBaselineCommand, updateBaselines } from './baseline-command.ts';

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

test('--env and --router-deployment set the router as with run: the baseline is the one --set writes', async () => {
  // dcm-slots, one service from 1 to 5 pods: 4 new endpoints fit the default 5 _dynamic-pod slots, not 3.
  const file = join(dir, 'slots.yaml');
  writeFileSync(
    file,
    `name: slots
sim: { durationMs: 30000, settleMs: 1000 }
router: { strategy: dcm-slots }
events:
  - {"at": 0, "type": "route.upsert", "route": {"namespace": "ns", "name": "r", "host": "r.example.com", "service": "s"}}
  - {"at": 0, "type": "endpoints.set", "namespace": "ns", "service": "s", "endpoints": [{"ip": "10.0.0.1", "port": 8080}]}
  - {"at": 5000, "type": "endpoints.set", "namespace": "ns", "service": "s", "endpoints": [${[1, 2, 3, 4, 5].map((i) => `{"ip": "10.0.0.${i}", "port": 8080}`).join(', ')}]}
`,
  );
  const deployment = join(dir, 'deploy.yaml');
  writeFileSync(
    deployment,
    'kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: router\n          env:\n            - { name: ROUTER_MAX_DYNAMIC_SERVERS, value: "3" }\n',
  );
  // Through the command line, so that the flags themselves are what is tested.
  const update = async (base: string, ...flags: string[]): Promise<string> => {
    const program = new Command('routerbench').exitOverride();
    registerBaselineCommand(program);
    const out = process.stdout.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      await program.parseAsync(['baseline', 'update', file, '--baseline', join(dir, base), ...flags], { from: 'user' });
    } finally {
      process.stdout.write = out;
    }
    expect(process.exitCode).toBe(0);
    return readFileSync(join(dir, base, 'slots', 'report.json'), 'utf8');
  };
  const exitCode = process.exitCode;
  try {
    // The same report but for the setting's source, which names the flag (or the manifest's line 8).
    const sourceless = (text: string): { text: string; source: string | undefined } => {
      const r = JSON.parse(text) as { settingSources?: Record<string, string> };
      const source = r.settingSources?.['router.maxDynamicServers'];
      delete r.settingSources;
      return { text: JSON.stringify(r), source };
    };
    const bySet = await update('by-set', '--set', 'router.maxDynamicServers=3');
    const byEnv = sourceless(await update('by-env', '--env', 'ROUTER_MAX_DYNAMIC_SERVERS=3'));
    const byDeployment = sourceless(await update('by-deployment', '--router-deployment', deployment));
    expect(byEnv).toEqual({ text: sourceless(bySet).text, source: '--env ROUTER_MAX_DYNAMIC_SERVERS=3' });
    expect(byDeployment).toEqual({ text: sourceless(bySet).text, source: `--router-deployment ${deployment}:8 ROUTER_MAX_DYNAMIC_SERVERS=3` });
    expect(sourceless(bySet).source).toBe('--set router.maxDynamicServers=3');
    // The setting took effect: with 3 slots the scale-up reloads, with the default 5 it does not.
    const reloads = (text: string): unknown => (JSON.parse(text) as { reloads: { total: number } }).reloads.total;
    expect(reloads(bySet)).toBe(2);
    expect(reloads(await update('default'))).toBe(1);
  } finally {
    process.exitCode = exitCode;
  }
});
