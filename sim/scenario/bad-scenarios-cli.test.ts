import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { BAD_SCENARIOS } from './bad-scenarios.ts';

const BIN = fileURLToPath(new URL('../../bin/routerbench.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'routerbench-bad-cli-'));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: dir }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

/**
 * The CLI maps every InputError to exit 2, whatever stage raised it; load-scenario.test.ts shows each of the
 * kinds raises one. One kind per stage here (each is a Node process, ~2 s).
 */
const STAGES = ['YAML syntax error: tab indentation', 'unknown top-level key', 'unknown event type', 'budget on an unknown metric', 'missing event log file', 'fault on an unknown node'];

test('bad scenarios from every stage exit 2 with one located message and write nothing', async () => {
  const picked = BAD_SCENARIOS.filter(([what]) => STAGES.includes(what));
  expect(picked).toHaveLength(STAGES.length);
  const cases = picked.map(([what, yaml, line, column], i) => {
    const file = join(dir, `bad-${i}.yaml`);
    writeFileSync(file, yaml);
    return { what, file, where: `${file}:${line}:${column}: ` };
  });
  // Two at a time: each is a Node process.
  const results: Array<{ code: number; stdout: string; stderr: string }> = [];
  for (let i = 0; i < cases.length; i += 2) results.push(...(await Promise.all(cases.slice(i, i + 2).map((c) => run(['run', c.file, '--out', join(dir, `out-${i}`)])))));
  cases.forEach((c, i) => {
    const r = results[i]!;
    expect({ what: c.what, code: r.code }).toEqual({ what: c.what, code: 2 });
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, c.what).toHaveLength(1);
    expect(lines[0]!.startsWith(`routerbench: ${c.where}`), `${c.what}: ${lines[0]}`).toBe(true);
  });
  expect(readdirSync(dir).filter((f) => f.startsWith('out-'))).toEqual([]);
}, 120_000);

test('a scenario with three mistakes: exit 2, a located line for each, nothing written', async () => {
  const file = join(dir, 'three-mistakes.yaml');
  // seed's value at line 2 column 7; the unknown key at line 4 column 3; the event type at line 6 column 20
  // ("  - { at: 0, type: " is 19 characters).
  writeFileSync(file, ['name: three', 'seed: abc', 'router:', '  maxDynamicServer: 4', 'events:', '  - { at: 0, type: route.upsertt }', ''].join('\n'));
  const r = await run(['run', file, '--out', join(dir, 'out-three')]);
  expect(r.code).toBe(2);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines.map((l) => /^routerbench: (.+?):(\d+):(\d+): field '([^']+)'/.exec(l)?.slice(1))).toEqual([
    [file, '2', '7', 'seed'],
    [file, '4', '3', 'router.maxDynamicServer'],
    [file, '6', '20', 'events[0].type'],
  ]);
  expect(readdirSync(dir).filter((f) => f.startsWith('out-'))).toEqual([]);
}, 60_000);
