import { rmSync, statSync } from 'node:fs';
import { Option } from 'commander';
import { limitHeapGrowth } from '../sim/cli/heap-growth.ts';
import { collectTrace, TRACE_HELP } from '../sim/cli/scenario-options.ts';
import type { TraceName } from '../sim/output/records.ts';
import { loadRunInput } from '../sim/load-input.ts';
import { JsonlFileSink, nullSink } from '../sim/output/output-sink.ts';
import { headerOf, runOne } from '../sim/run.ts';
import { Allocations } from './lib/allocations.ts';
import { Breakdown } from './lib/breakdown.ts';
import { benchCommand, intIn, parseBenchArgs, strategiesOf } from './lib/cli.ts';

/** One replay in its own process, so peak RSS belongs to this strategy alone. */
const cli = parseBenchArgs(
  benchCommand(
    'replay.ts',
    'replays an event log under one strategy, invariants checked at the end only; with --out the output log is written as `run --out` writes it (compact unless --trace says otherwise), the time includes writing it, and it is removed afterwards unless --keep',
    'one JSON line: events, wall time, events/s, CPU time (all threads) and events per CPU second, simulated/wall, peak RSS, reloads, reload requests by reason, runtime API commands; with --out the output log\'s size and the input\'s. With --breakdown, first a table on stderr: the replay\'s wall time by what it was doing (reading, each input event type, each runtime command kind, reloads, the output log), each as self time, with calls, µs per call and share. With --allocations N, first a table on stderr: the N functions that allocated the most, garbage included, in bytes per event and share of all allocation; with --survivors N, the same of the objects no scavenge freed',
  )
    .argument('<log>', 'an event log (.jsonl) or a scenario')
    .argument('<strategy>', 'reload-always, dcm-slots or dcm-add-del')
    .option('--out <file>', 'write the output log here')
    .option('--trace <what>', `as on \`run\`: ${TRACE_HELP}`, collectTrace)
    .option('--keep', 'keep the output log')
    .option('--breakdown', 'time each kind of work apart (bench/lib/breakdown.ts); timing every call slows the replay, so compare shares, not totals')
    .option('--allocations <n>', 'sample allocation by function, freed objects included (bench/lib/allocations.ts), and list the n largest; sampling slows the replay', intIn(1, 1000))
    .addOption(
      new Option('--survivors <n>', 'as --allocations, but only the objects that outlived the young generation (promoted, or alive at the end): what the scavenges copy')
        .argParser(intIn(1, 1000))
        .conflicts('allocations'),
    ),
);
// The heap grows as under the CLI, so that peak RSS is what a user of `run` sees.
limitHeapGrowth();
const [file, strategy] = cli.args as [string, string];
strategiesOf([strategy], []);
const { out, trace, keep, breakdown, allocations: all, survivors } = cli.opts<{ out?: string; trace?: TraceName[]; keep?: boolean; breakdown?: boolean; allocations?: number; survivors?: number }>();
const allocations = all ?? survivors;
// Invariants are checked once, at the end: the benchmark measures the simulation, not the checker.
const loaded = loadRunInput(file, { set: { 'router.strategy': strategy, 'sim.invariants': 'end' } });
const options = trace === undefined ? {} : { trace };
const sink = out === undefined ? nullSink : new JsonlFileSink(out, headerOf(loaded, options));
const timer = breakdown === true ? new Breakdown() : undefined;
timer?.install();
const input = timer?.reading(loaded) ?? loaded;
const sampler = allocations === undefined ? undefined : new Allocations(undefined, survivors !== undefined);
sampler?.start();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const { report } = runOne(input, timer?.writing(sink) ?? sink, [], options);
sink.commit();
const wallMs = performance.now() - t0;
if (sampler !== undefined) {
  const sites = sampler.stop();
  const total = sites.reduce((sum, s) => sum + s.bytes, 0);
  const title = survivors === undefined ? 'where the memory was allocated (self, sampled)' : 'where what outlived the scavenges was allocated (sampled)';
  console.error(`${title.padEnd(60)} ${'bytes/event'.padStart(11)} ${'share'.padStart(6)}`);
  console.error(`${'all'.padEnd(60)} ${(total / report.events).toFixed(0).padStart(11)} ${'100.0'.padStart(5)}%`);
  for (const s of sites.slice(0, allocations)) {
    console.error(`${s.site.slice(0, 60).padEnd(60)} ${(s.bytes / report.events).toFixed(0).padStart(11)} ${((s.bytes / total) * 100).toFixed(1).padStart(5)}%`);
  }
}
if (timer !== undefined) {
  timer.uninstall();
  console.error(`${'where the time went (self time)'.padEnd(46)} ${'calls'.padStart(9)} ${'ms'.padStart(7)} ${'µs/call'.padStart(8)} ${'share'.padStart(6)}`);
  for (const r of timer.table(wallMs * 1e6)) {
    console.error(`${r.label.padEnd(46)} ${String(r.calls).padStart(9)} ${String(r.ms).padStart(7)} ${r.usPerCall.toFixed(1).padStart(8)} ${r.share.toFixed(1).padStart(5)}%`);
  }
}
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
