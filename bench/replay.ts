import { rmSync, statSync } from 'node:fs';
import { limitHeapGrowth } from '../sim/cli/heap-growth.ts';
import { loadRunInput } from '../sim/load-input.ts';
import { JsonlFileSink, nullSink } from '../sim/output/output-sink.ts';
import { headerOf, runOne } from '../sim/run.ts';
import { benchCommand, parseBenchArgs, strategiesOf } from './lib/cli.ts';

/** One replay in its own process, so peak RSS belongs to this strategy alone. */
const cli = parseBenchArgs(
  benchCommand(
    'replay.ts',
    'replays an event log under one strategy, invariants checked at the end only; with --out the output log is written as `run --out` writes it (compact unless --trace runtime), the time includes writing it, and it is removed afterwards unless --keep',
    'one JSON line: events, wall time, events/s, CPU time (all threads) and events per CPU second, simulated/wall, peak RSS, reloads, reload requests by reason, runtime API commands; with --out the output log\'s size and the input\'s',
  )
    .argument('<log>', 'an event log (.jsonl) or a scenario')
    .argument('<strategy>', 'reload-always, dcm-slots or dcm-add-del')
    .option('--out <file>', 'write the output log here')
    .option('--trace <what>', 'runtime: every runtime command in the output log, as `run --trace runtime`')
    .option('--keep', 'keep the output log'),
);
// The heap grows as under the CLI, so that peak RSS is what a user of `run` sees.
limitHeapGrowth();
const [file, strategy] = cli.args as [string, string];
strategiesOf([strategy], []);
const { out, trace, keep } = cli.opts<{ out?: string; trace?: string; keep?: boolean }>();
if (trace !== undefined && trace !== 'runtime') {
  console.error(`error: --trace takes runtime (got '${trace}')`);
  process.exit(2);
}
// Invariants are checked once, at the end: the benchmark measures the simulation, not the checker.
const input = loadRunInput(file, { set: { 'router.strategy': strategy, 'sim.invariants': 'end' } });
const options = trace === undefined ? {} : { trace: ['runtime' as const] };
const sink = out === undefined ? nullSink : new JsonlFileSink(out, headerOf(input, options));
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const { report } = runOne(input, sink, [], options);
sink.commit();
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
// Every thread of the process (V8's GC and compiler threads too): on a loaded machine the steadier figure.
const cpuMs = (cpu.user + cpu.system) / 1000;
const outputBytes = out === undefined ? undefined : statSync(out).size;
if (out !== undefined && keep !== true) rmSync(out);
process.stdout.write(
  JSON.stringify({
    strategy,
    events: report.events,
    wallMs: Math.round(wallMs),
    eventsPerSecond: Math.round(report.events / (wallMs / 1000)),
    cpuMs: Math.round(cpuMs),
    eventsPerCpuSecond: Math.round(report.events / (cpuMs / 1000)),
    simOverWall: Math.round(report.simulatedMs / wallMs),
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    reloads: report.reloads.total,
    requests: report.reloads.requests,
    commands: report.runtimeApi.commands,
    ...(outputBytes !== undefined && { outputBytes, inputBytes: statSync(file).size }),
  }) + '\n',
);
