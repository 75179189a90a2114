import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchCommand, intIn, intPair, parseBenchArgs, strategiesOf } from './lib/cli.ts';
import { countInstructions, requireValgrind } from './cachegrind.ts';
import { benchChurnLogPath, writeBenchChurnLog } from './churn-log.ts';
import { FileLineCursor } from '../sim/eventlog/line-source.ts';

/**
 * `npm run bench:instructions [-- strategy... --events 30000,100000]`: machine instructions per event in the
 * steady state, counted by valgrind's cachegrind. Wall time on the development VM swings by up to 50% from
 * minute to minute; instruction counts repeat to about 1%, so this is the figure to compare two versions by
 * when the difference is a few percent.
 *
 * Each strategy replays two head slices of the bench log (30,000 and 100,000 events by default). Start-up,
 * module loading and warm-up cost the same in both, so the difference divided by the difference in events
 * is the cost of one event once the code is hot. V8 runs `--single-threaded` so that all work is counted;
 * the optimizing compiler's instructions are left out, because in a normal run it works on another thread.
 *
 * Instructions are not time: the counts ignore cache misses, so compare versions with them, not strategies.
 * Needs valgrind (`apt-get install -y valgrind`); a replay under it runs about 30 times slower.
 */
const cli = parseBenchArgs(
  benchCommand(
    'instructions.ts',
    'steady-state machine instructions per replayed event of the bench log, counted by valgrind\'s cachegrind (npm run bench:instructions; needs valgrind)',
    'per strategy: instructions per event (compilers excluded), the share of each kind of work (JSON.parse, garbage collection, JIT code, built-ins, V8 runtime, other), and the count without garbage collection, the steadier figure to compare versions by',
  )
    .argument('[strategy...]', 'strategies to replay (default: reload-always)')
    .option('--events <a,b>', 'the two head slices of the bench log, in events, smaller first', intPair(1, 10_000_000), [30_000, 100_000])
    .option('--functions <n>', 'also list the n (0 to 1000) functions with the most instructions per event (V8 built-ins and C++ by name; all JIT code is one entry)', intIn(0, 1000), 0),
);
const { events: sizes, functions } = cli.opts<{ events: [number, number]; functions: number }>();
const strategies = strategiesOf(cli.args, ['reload-always']);
requireValgrind();

const log = benchChurnLogPath();
writeBenchChurnLog(log);
const dir = mkdtempSync(join(tmpdir(), 'routerbench-instructions-'));
try {
  const slices = sizes.map((n) => headSlice(log, n, join(dir, `head-${n}.jsonl`)));
  console.log(`steady-state instructions per event (events ${sizes[0]} → ${sizes[1]} of ${log}; compilers excluded)`);
  for (const strategy of strategies) {
    const counts = slices.map((slice, i) =>
      countInstructions(['--single-threaded', '--import', 'tsx', join('bench', 'replay.ts'), slice, strategy], join(dir, `cachegrind-${strategy}-${i}.out`)),
    );
    const perEvent = (a: number, b: number): number => (b - a) / (sizes[1]! - sizes[0]!);
    const total = perEvent(counts[0]!.total, counts[1]!.total);
    console.log(`${strategy.padEnd(14)} ${Math.round(total).toLocaleString('en-US').padStart(8)}`);
    for (const [name, n] of counts[1]!.byCategory) {
      const share = perEvent(counts[0]!.byCategory.get(name) ?? 0, n);
      console.log(`  ${name.padEnd(34)} ${Math.round(share).toLocaleString('en-US').padStart(8)} ${((share / total) * 100).toFixed(1).padStart(5)}%`);
    }
    // The collector's share moves by thousands per event between runs of the same code (V8 sizes its heap
    // from timings), so two versions compare best on what is left.
    const gc = perEvent(counts[0]!.byCategory.get('garbage collection') ?? 0, counts[1]!.byCategory.get('garbage collection') ?? 0);
    console.log(`  ${'all but garbage collection'.padEnd(34)} ${Math.round(total - gc).toLocaleString('en-US').padStart(8)}`);
    if (functions > 0) {
      console.log(`  the ${functions} functions with the most instructions per event:`);
      const rows = [...counts[1]!.byFunction].map(([fn, n]) => [fn, perEvent(counts[0]!.byFunction.get(fn) ?? 0, n)] as const);
      rows.sort((a, b) => b[1] - a[1]);
      for (const [fn, n] of rows.slice(0, functions)) {
        console.log(`  ${Math.round(n).toLocaleString('en-US').padStart(8)} ${((n / total) * 100).toFixed(1).padStart(5)}%  ${functionLabel(fn)}`);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** A function's name as cachegrind gives it, without argument lists; valgrind cannot name JIT code. */
function functionLabel(fn: string): string {
  if (fn === '???') return 'JavaScript (JIT code, all functions)';
  const open = fn.indexOf('(');
  return open > 0 ? fn.slice(0, open) : fn;
}

/** The header and the first `events` events of `log`. */
function headSlice(log: string, events: number, out: string): string {
  const lines = new FileLineCursor(log);
  const fd = openSync(out, 'w');
  try {
    for (let i = 0; i <= events; i++) {
      const line = lines.next();
      if (line === undefined) throw new Error(`${log} has fewer than ${events} events`);
      writeSync(fd, line + '\n');
    }
  } finally {
    lines.close();
    closeSync(fd);
  }
  return out;
}
