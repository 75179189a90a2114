import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';

/**
 * routerbench as another project sees it: the tarball `npm pack` makes (prepare builds dist/), installed into
 * a fresh project, which runs the CLI, imports the API, runs a vitest file through `routerbench/vitest`, and
 * type-checks against the published .d.ts under `strict`. Everything the tarball needs is in npm's cache
 * once the repository's own `npm ci` has run; with neither cache nor registry the test is skipped, saying so.
 */
const ROOT = join(import.meta.dirname, '..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };
const work = mkdtempSync(join(tmpdir(), 'routerbench-package-'));
// A consumer's node_modules: removing it takes a while on a busy machine.
afterAll(() => rmSync(work, { recursive: true, force: true }), 60_000);

/**
 * The consumer's own environment: not the sources the suite sets ROUTERBENCH_FROM_SOURCES for, not this
 * vitest's worker variables (its own vitest would take itself for a worker), no colours in what is matched.
 */
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'ROUTERBENCH_FROM_SOURCES' && !k.startsWith('VITEST') && k !== 'NODE_OPTIONS'));
env['NO_COLOR'] = '1';

function sh(cmd: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 180_000 });
}

const NETWORK_ERRORS = /ENOTCACHED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET|E403|EPROTO/;

test('the packed tarball installs into a fresh project and works from there', { timeout: 300_000 }, (ctx) => {
  const packDir = join(work, 'pack');
  mkdirSync(packDir);
  const pack = sh('npm', ['pack', '--json', '--pack-destination', packDir], ROOT);
  if (pack.error !== undefined) ctx.skip(`npm cannot pack here: ${pack.error.message}`);
  expect(pack.status, pack.stderr).toBe(0);
  // npm prints prepare's output before the JSON.
  const packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('\n[') + 1)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = packed[0]!.files.map((f) => f.path);
  // What runs, and nothing else: no tests, fixtures, benches or TypeScript sources.
  expect(files.filter((f) => /\.test\.|fixture|^bench\/|^fidelity\/|(?<!\.d)\.ts$/.test(f))).toEqual([]);
  for (const f of ['bin/routerbench.js', 'dist/sim/api.js', 'dist/sim/api.d.ts', 'dist/sim/vitest-scenarios.js', 'dist/sim/cli/main.js', 'dist/sim/parallel/run-worker.js', 'dist/sim/sweep/sweep-worker.js']) {
    expect(files).toContain(f);
  }

  const project = join(work, 'consumer');
  mkdirSync(join(project, 'scenarios'), { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
  const install = sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(packDir, packed[0]!.filename), `vitest@${PKG.devDependencies['vitest']}`, `typescript@${PKG.devDependencies['typescript']}`], project);
  if (install.status !== 0 && NETWORK_ERRORS.test(install.stderr)) ctx.skip(`npm cannot install the tarball's dependencies (no cache, no registry): ${install.stderr.split('\n')[0]}`);
  expect(install.status, install.stderr).toBe(0);

  for (const s of ['route-burst.yaml', 'vrrp-master-crash.yaml']) copyFileSync(join(ROOT, 'scenarios', s), join(project, 'scenarios', s));
  const bin = join(project, 'node_modules', '.bin', 'routerbench');

  const version = sh(bin, ['--version'], project);
  expect({ status: version.status, out: version.stdout.trim() }).toEqual({ status: 0, out: PKG.version });
  // Two inputs run on the worker pool: the compiled worker, with no tsx in the consumer's node_modules.
  expect(existsSync(join(project, 'node_modules', 'tsx'))).toBe(false);
  const run = sh(bin, ['run', 'scenarios', '--out', 'out', '--no-progress'], project);
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout).toContain('2 passed, 0 failed');
  expect(existsSync(join(project, 'out', 'junit.xml'))).toBe(true);

  // The API, as plain JavaScript: load, run with an output log, read the report back from that log.
  writeFileSync(
    join(project, 'api.mjs'),
    [
      "import { loadInput, run, readReport } from 'routerbench';",
      "const report = run(loadInput('scenarios/route-burst.yaml', { seed: 3 }), { outputLog: 'route-burst.jsonl' });",
      "const again = readReport('route-burst.jsonl');",
      'console.log(JSON.stringify({ pass: report.pass, same: JSON.stringify(again) === JSON.stringify(report) }));',
    ].join('\n'),
  );
  const api = sh(process.execPath, ['api.mjs'], project);
  expect(api.status, api.stderr).toBe(0);
  expect(JSON.parse(api.stdout)).toEqual({ pass: true, same: true });

  writeFileSync(join(project, 'scenarios.test.ts'), "import { describeScenarios } from 'routerbench/vitest';\n\ndescribeScenarios({ paths: 'scenarios' });\n");
  const vitest = sh(process.execPath, [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', project], project);
  expect(vitest.status, vitest.stdout + vitest.stderr).toBe(0);
  // A test per budget: route-burst's two and vrrp-master-crash's three, each with the built-in invariant budget (3 + 4).
  expect(vitest.stdout).toMatch(/Tests\s+\S*7 passed/);

  // A failing budget points at its line in the scenario file, for the terminal and for GitHub's annotations,
  // though the helper runs from node_modules. One route under reload-always reloads once (the initial
  // reload), so `reloads.total: "<= 0"`, line 5, fails.
  mkdirSync(join(project, 'failing'));
  writeFileSync(join(project, 'failing', 'fail.yaml'), 'name: fail\nevents:\n  - { at: 0, type: route.upsert, route: { namespace: a, name: r, host: r.example.com, service: s } }\nbudgets:\n  reloads.total: "<= 0"\n');
  writeFileSync(join(project, 'failing.test.ts'), "import { describeScenarios } from 'routerbench/vitest';\n\ndescribeScenarios({ paths: 'failing' });\n");
  const failing = sh(process.execPath, [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', project, 'failing.test.ts', '--reporter=default', '--reporter=github-actions'], project);
  expect(failing.status, failing.stdout + failing.stderr).toBe(1);
  expect(failing.stdout).toMatch(new RegExp(`^::error file=${join(project, 'failing', 'fail.yaml')},title=[^\\n]*reloads\\.total <= 0,line=5,column=1::BudgetFailure: failing/fail\\.yaml:5: reloads\\.total = 1, budget <= 0`, 'm'));
  // The terminal's code frame (on stderr) is the YAML around that line.
  expect(failing.stderr).toMatch(/^\s+5\|\s+reloads\.total: "<= 0"$/m);

  // The consumer's tsc: TypeScript 5.9's `tsc --init` settings (module nodenext, moduleResolution left to it,
  // strict, exactOptionalPropertyTypes), library files checked too and no @types/node.
  writeFileSync(
    join(project, 'api.ts'),
    [
      "import { loadInput, run, readReport, InputError, type Report, type BudgetResult } from 'routerbench';",
      "import { describeScenarios, type ScenarioTestOptions } from 'routerbench/vitest';",
      "const report: Report = run(loadInput('scenarios/route-burst.yaml', { seed: 3 }));",
      'const failed: BudgetResult[] = report.budgets.filter((b) => !b.pass);',
      "const options: ScenarioTestOptions = { paths: ['scenarios'] };",
      'export { failed, options, describeScenarios, readReport, InputError };',
    ].join('\n'),
  );
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'esnext', types: [], strict: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true, verbatimModuleSyntax: true, isolatedModules: true, skipLibCheck: false, noEmit: true }, include: ['*.ts'] }),
  );
  const tsc = sh(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', project], project);
  expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
});
