import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countInstructions, requireValgrind } from './cachegrind.ts';

/**
 * `npx tsx bench/sweep-instructions.ts [--runs 40,120] [--v8 '--flag=value ...']`: what one sweep worker spends
 * its instructions on, counted by valgrind's cachegrind over the first 40 and 120 runs of the bench sweep
 * (bench/sweep-tasks.ts, in one thread, V8 `--single-threaded` as each worker runs when every core has one).
 * Prints the steady cost of a run (the difference over the 80 runs between, compilers left out) and what V8's
 * compilers cost in all up to each count: the warm-up a worker pays for itself. `--v8` adds V8 flags, to
 * weigh a flag's cost per run against what it saves in compiling (docs/performance.md, *Changes of 30 Nov 2026: sweeps*).
 * Each count takes a few minutes.
 */
const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const runs = (opt('runs') ?? '40,120').split(',').map(Number);
if (runs.length !== 2 || !runs.every((n) => Number.isInteger(n) && n >= 1 && n <= 400) || runs[0]! >= runs[1]!) {
  console.error('--runs takes two run counts from 1 to 400, smaller first, e.g. --runs 40,120');
  process.exit(2);
}
const v8 = (opt('v8') ?? '').split(' ').filter((f) => f !== '');
requireValgrind();

const dir = mkdtempSync(join(tmpdir(), 'routerbench-sweep-instructions-'));
try {
  const counts = runs.map((n) => countInstructions(['--single-threaded', ...v8, '--import', 'tsx', join('bench', 'sweep-tasks.ts'), String(n)], join(dir, `cachegrind-${n}.out`)));
  const [a, b] = counts as [(typeof counts)[0], (typeof counts)[0]];
  const per = (x: number, y: number): number => (y - x) / (runs[1]! - runs[0]!);
  const millions = (x: number): string => `${(x / 1e6).toFixed(1)} M`;
  console.log(`one sweep worker${v8.length > 0 ? ` with ${v8.join(' ')}` : ''}: runs ${runs[0]} → ${runs[1]} of the bench sweep`);
  console.log(`per run, compilers excluded: ${millions(per(a.total, b.total))}`);
  for (const [name, n] of b.byCategory) console.log(`  ${name.padEnd(34)} ${millions(per(a.byCategory.get(name) ?? 0, n)).padStart(9)}`);
  console.log(`V8's compilers, in all: ${(a.compiler / 1e9).toFixed(2)} G up to run ${runs[0]}, ${(b.compiler / 1e9).toFixed(2)} G up to run ${runs[1]}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
