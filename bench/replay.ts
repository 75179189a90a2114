import { rmSync, statSync } from 'node:fs';
import { loadRunInput } from '../sim/load-input.ts';
import { JsonlFileSink, nullSink } from '../sim/output/output-sink.ts';
import { headerOf, runOne } from '../sim/run.ts';

const USAGE = `usage: tsx bench/replay.ts <log.jsonl> <strategy> [--out <output.jsonl>] [--trace runtime] [--keep]

One replay in its own process, so peak RSS belongs to this strategy alone; prints one JSON line (events,
wall time, events/s, peak RSS, reloads, runtime commands, and with --out the output log's size and the
input's). With --out the output log is written as \`run --out\` writes it (compact unless --trace runtime)
and the time includes writing it; it is removed afterwards unless --keep.`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const take = (flag: string): string | undefined => {
  const i = args.indexOf(flag);
  return i < 0 ? undefined : args.splice(i, 2)[1];
};
const out = take('--out');
const trace = take('--trace');
const keepAt = args.indexOf('--keep');
const keep = keepAt >= 0 && args.splice(keepAt, 1).length === 1;
const [file, strategy] = args as [string | undefined, string | undefined];
if (file === undefined || strategy === undefined || args.length !== 2 || (trace !== undefined && trace !== 'runtime')) {
  console.error(USAGE);
  process.exit(2);
}
// Invariants are checked once, at the end: the benchmark measures the simulation, not the checker.
const input = loadRunInput(file, { set: { 'router.strategy': strategy, 'sim.invariants': 'end' } });
const options = trace === undefined ? {} : { trace: ['runtime' as const] };
const sink = out === undefined ? nullSink : new JsonlFileSink(out, headerOf(input, options));
const t0 = performance.now();
const { report } = runOne(input, sink, [], options);
sink.commit();
const wallMs = performance.now() - t0;
const outputBytes = out === undefined ? undefined : statSync(out).size;
if (out !== undefined && !keep) rmSync(out);
process.stdout.write(
  JSON.stringify({
    strategy,
    events: report.events,
    wallMs: Math.round(wallMs),
    eventsPerSecond: Math.round(report.events / (wallMs / 1000)),
    simOverWall: Math.round(report.simulatedMs / wallMs),
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    reloads: report.reloads.total,
    requests: report.reloads.requests,
    commands: report.runtimeApi.commands,
    ...(outputBytes !== undefined && { outputBytes, inputBytes: statSync(file).size }),
  }) + '\n',
);
