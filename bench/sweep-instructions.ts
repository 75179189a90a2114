import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchCommand, intPair, parseBenchArgs } from './lib/cli.ts';
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
const opts = parseBenchArgs(
  benchCommand(
    'sweep-instructions.ts',
    'what one sweep worker spends its instructions on, counted by valgrind\'s cachegrind over the bench sweep\'s first runs in one thread (V8 --single-threaded; needs valgrind; a few minutes per count)',
    'the steady cost of one run in instructions (compilers excluded) and its share per kind of work, then what V8\'s compilers cost in all up to each run count: the warm-up a worker pays',
  )
    .option('--runs <a,b>', 'the two run counts, smaller first, 1 to 400', intPair(1, 400), [40, 120])
    .option('--v8 <flags>', 'V8 flags added to the worker\'s, e.g. \'--max-inlined-bytecode-size-cumulative=200\'', ''),
).opts<{ runs: [number, number]; v8: string }>();
const runs = opts.runs;
const v8 = opts.v8.split(' ').filter((f) => f !== '');
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
