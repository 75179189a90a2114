import { execFileSync, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { benchChurnLogPath, writeBenchChurnLog } from './churn-log.ts';

/**
 * `npm run bench`: replays a generated ~1,000,000-event churn log under each strategy, one process each,
 * and prints events/s, simulated/wall time and peak RSS. Not part of the tests: timings are measured here only.
 */
const log = benchChurnLogPath();
const t0 = performance.now();
writeBenchChurnLog(log);
process.stderr.write(`churn log: ${log} (${(statSync(log).size / 2 ** 20).toFixed(0)} MiB, ready in ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
// `--rounds N` (default 3): each strategy replays N times and the fastest is shown; on a shared machine other
// load only ever slows a replay down, so the best round is the figure closest to the program's own speed.
const argv = process.argv.slice(2);
const roundsAt = argv.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Math.max(1, Number(argv.splice(roundsAt, 2)[1]) || 1) : 3;
// `--one-core`: each replay is pinned to CPU 0 with taskset (util-linux), so V8's GC and compiler threads
// share that core with the replay: the targets' "on one core" taken literally. Unpinned, they use the other.
const oneCoreAt = argv.indexOf('--one-core');
const oneCore = oneCoreAt >= 0 && argv.splice(oneCoreAt, 1).length === 1;
if (oneCore && spawnSync('taskset', ['-c', '0', 'true']).status !== 0) {
  console.error('--one-core needs taskset (util-linux) and CPU 0');
  process.exit(2);
}
const unknown = argv.find((a) => a.startsWith('--'));
if (unknown !== undefined) {
  console.error(`unknown option ${unknown}; usage: npm run bench -- [--rounds N] [--one-core] [strategy...]`);
  process.exit(2);
}
const strategies = argv.length > 0 ? argv : ['reload-always', 'dcm-slots', 'dcm-add-del'];
const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
console.log(`best of ${rounds} replays per strategy${oneCore ? ', each pinned to CPU 0' : ''}`);
console.log('strategy        events   events/s  sim/wall  peak RSS  reloads  runtime cmds');
for (const s of strategies) {
  let r: { strategy: string; events: number; eventsPerSecond: number; simOverWall: number; peakRssMiB: number; reloads: number; commands: number } | undefined;
  for (let i = 0; i < rounds; i++) {
    const [cmd, args] = oneCore ? ['taskset', ['-c', '0', tsx, join('bench', 'replay.ts'), log, s]] : [tsx, [join('bench', 'replay.ts'), log, s]];
    const out = execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
    const round = JSON.parse(out.trim().split('\n').pop()!);
    if (r === undefined || round.eventsPerSecond > r.eventsPerSecond) r = round;
  }
  if (r === undefined) continue;
  console.log(
    `${r.strategy.padEnd(14)} ${String(r.events).padStart(7)} ${String(r.eventsPerSecond).padStart(10)} ${String(r.simOverWall).padStart(8)}x ${String(r.peakRssMiB).padStart(6)} MiB ${String(r.reloads).padStart(8)} ${String(r.commands).padStart(13)}`,
  );
}
