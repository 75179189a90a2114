import { execFileSync, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { quantile } from '../reports/quantile.ts';
import { benchLog, type BenchLogName } from './churn-log.ts';
import { benchCommand, intIn, parseBenchArgs, strategiesOf } from './lib/cli.ts';

/**
 * `npm run bench`: the replay benchmark. Not part of the tests: timings are measured here only. On a
 * shared machine other load only ever slows a run down, so the fastest of several is the figure closest
 * to the program's own speed: the ratio to reading the same file alone divides the fastest replay by the
 * fastest read of the log, the log being read just before each replay so that reads and replays sample
 * the same stretch of the machine's time. The rounds' ratios against the reads just before them were the
 * headline until 2 Dec 2026; on a machine with slow spells of a minute or more, which slowed a read more
 * than a replay (single reads of the churn log at 315,000 to 672,000 lines/s, either core alike), the best
 * of them was the round with the slowest read. Their median is still printed, to show the spread.
 */
const cli = parseBenchArgs(
  benchCommand(
    'run.ts',
    `replays the bench event logs under each strategy, one process per replay with the heap growth the CLI sets (sim/cli/heap-growth.ts), writing the compact output log as \`run --out\` does (logs generated deterministically on first use and cached in ${tmpdir()})`,
    'per log and strategy: the fastest replay\'s events/s; its ratio to the fastest read of the same file alone (split into lines and JSON.parse, bench/read-log.ts; 3 reads before each replay), in wall time and in CPU time of all the process\'s threads (steadier on a loaded machine), with the median of the rounds\' CPU ratios against the reads just before them; output.jsonl size ÷ the input size; peak RSS; reloads and runtime API commands. With --flat, peak RSS at 1M against 3M events.',
  )
    .argument('[strategy...]', 'strategies to replay (default: reload-always, dcm-slots, dcm-add-del)')
    .option('--rounds <n>', 'rounds per log; the best is shown', intIn(1, 100), 3)
    .option('--logs <list>', 'churn (1M events over 4 busy hours), day (a saturated day: 1M events over 24 h, ~2,000 routes, reloads back to back), or both', parseLogs, ['churn', 'day'])
    .option('--flat', 'also replay the saturated day stretched to 3 days (3M events) once per strategy: peak RSS must not grow with the log')
    .option('--one-core', 'pin each process to CPU 0 with taskset (V8\'s GC and compiler threads then share that core)'),
);
const opts = cli.opts<{ rounds: number; logs: BenchLogName[]; flat?: boolean; oneCore?: boolean }>();
const { rounds, logs } = opts;
const flat = opts.flat === true;
const oneCore = opts.oneCore === true;
if (oneCore && spawnSync('taskset', ['-c', '0', 'true']).status !== 0) {
  console.error('--one-core needs taskset (util-linux) and CPU 0');
  process.exit(2);
}
const strategies = strategiesOf(cli.args, ['reload-always', 'dcm-slots', 'dcm-add-del']);

function parseLogs(value: string): BenchLogName[] {
  const names = value.split(',');
  if (names.length === 0 || names.some((n) => n !== 'churn' && n !== 'day')) throw new InvalidArgumentError('churn, day or churn,day');
  return names as BenchLogName[];
}
const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
function tsxJson<T>(script: string, args: string[]): T {
  const argv = [join('bench', script), ...args];
  const [cmd, a] = oneCore ? ['taskset', ['-c', '0', tsx, ...argv]] : [tsx, argv];
  const out = execFileSync(cmd, a, { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as T;
}

interface Replay {
  strategy: string;
  events: number;
  eventsPerSecond: number;
  eventsPerCpuSecond: number;
  peakRssMiB: number;
  reloads: number;
  commands: number;
  outputBytes: number;
  inputBytes: number;
}
interface Read {
  lines: number;
  plainLinesPerSecond: number;
  plainLinesPerCpuSecond: number;
}
/** Reads of the log before each replay (read-log.ts reports the fastest): more samples of the machine's reading speed. */
const READS = 3;
/** Reads of one log this much slower than its fastest mean the machine slowed down during the run: said under the table. */
const SPELL = 0.25;
const replay = (log: string, strategy: string): Replay => tsxJson<Replay>('replay.ts', [log, strategy, '--out', join(tmpdir(), `routerbench-bench-output-${process.pid}.jsonl`)]);

console.log(`best of ${rounds} rounds; each replay follows ${READS} reads of the same log alone${oneCore ? ' (each process pinned to CPU 0)' : ''}`);
console.log(`× reading alone: the fastest replay's events per second ÷ the fastest read's lines per second of the same file (${READS} reads before each replay), in wall time and in CPU time (all threads); in brackets the median of the rounds' CPU ratios, each against the reads just before it`);
console.log('log    strategy        events   events/s  × reading (wall)  × reading (CPU)         output ÷ input  peak RSS  reloads  runtime cmds');
const dayRss = new Map<string, number>();
for (const name of logs) {
  const t0 = performance.now();
  const log = benchLog(name);
  process.stderr.write(`${name}: ${log} (${(statSync(log).size / 2 ** 20).toFixed(0)} MiB, ready in ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
  /** Per strategy, its fastest replay in wall time and in CPU time (all rounds' replays are of the same log). */
  const fastest = new Map<string, { byWall: Replay; byCpu: Replay }>();
  const cpuRatios = new Map<string, number[]>(strategies.map((s) => [s, []]));
  let bestRead: Read | undefined;
  let bestReadCpu = 0;
  let slowestRead = Infinity;
  for (let i = 0; i < rounds; i++) {
    for (const s of strategies) {
      const read = tsxJson<Read>('read-log.ts', [log, String(READS), '--json', '--plain-only']);
      if (bestRead === undefined || read.plainLinesPerSecond > bestRead.plainLinesPerSecond) bestRead = read;
      bestReadCpu = Math.max(bestReadCpu, read.plainLinesPerCpuSecond);
      slowestRead = Math.min(slowestRead, read.plainLinesPerSecond);
      const r = replay(log, s);
      // Events against lines of the same file: the header line is not an event, a 1e-6 difference.
      const wall = r.eventsPerSecond / read.plainLinesPerSecond;
      const cpu = r.eventsPerCpuSecond / read.plainLinesPerCpuSecond;
      process.stderr.write(
        `  round ${i + 1}: reading alone ${read.plainLinesPerSecond} lines/s (${read.plainLinesPerCpuSecond} per CPU second), then ${s} ${r.eventsPerSecond} events/s (${wall.toFixed(3)}× wall, ${cpu.toFixed(3)}× CPU against that read), peak RSS ${r.peakRssMiB} MiB\n`,
      );
      cpuRatios.get(s)!.push(cpu);
      const f = fastest.get(s);
      fastest.set(s, {
        byWall: f === undefined || r.eventsPerSecond > f.byWall.eventsPerSecond ? r : f.byWall,
        byCpu: f === undefined || r.eventsPerCpuSecond > f.byCpu.eventsPerCpuSecond ? r : f.byCpu,
      });
    }
  }
  for (const s of strategies) {
    const { byWall: r, byCpu } = fastest.get(s)!;
    const wall = r.eventsPerSecond / bestRead!.plainLinesPerSecond;
    const cpu = byCpu.eventsPerCpuSecond / bestReadCpu;
    if (name === 'day') dayRss.set(s, r.peakRssMiB);
    const median = quantile([...cpuRatios.get(s)!].sort((a, b) => a - b), 0.5)!;
    const cpuColumn = `${cpu.toFixed(3)} (${median.toFixed(3)})`;
    console.log(
      `${name.padEnd(6)} ${s.padEnd(14)} ${String(r.events).padStart(8)} ${String(r.eventsPerSecond).padStart(10)} ${wall.toFixed(3).padStart(17)} ${cpuColumn.padStart(24)} ${(r.outputBytes / r.inputBytes).toFixed(2).padStart(15)} ${String(r.peakRssMiB).padStart(5)} MiB ${String(r.reloads).padStart(8)} ${String(r.commands).padStart(13)}`,
    );
  }
  console.log(`${name.padEnd(6)} reading alone  ${' '.repeat(8)} ${String(bestRead!.plainLinesPerSecond).padStart(10)} lines/s (best read), ${bestReadCpu} per CPU second`);
  if (slowestRead < bestRead!.plainLinesPerSecond * (1 - SPELL)) {
    console.log(
      `${name.padEnd(6)} note: the best reads before the replays ranged from ${slowestRead} to ${bestRead!.plainLinesPerSecond} lines/s: the machine's speed changed during the run (other load?); the ratios take the fastest of each, but another run may give other figures`,
    );
  }
}
if (flat) {
  const log = benchLog('day3');
  console.log('\npeak RSS, 1 saturated day (1M events) against 3 days (3M events), one replay each');
  for (const s of strategies) {
    const one = dayRss.get(s) ?? replay(benchLog('day'), s).peakRssMiB;
    const three = replay(log, s);
    console.log(`${s.padEnd(14)} ${String(one).padStart(5)} MiB  ${String(three.peakRssMiB).padStart(5)} MiB  (${three.events} events)`);
  }
}
