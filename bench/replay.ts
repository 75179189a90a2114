import { loadRunInput } from '../sim/load-input.ts';
import { runOne } from '../sim/run.ts';

/** One replay in its own process, so peak RSS belongs to this strategy alone. Prints one JSON line. */
const [file, strategy] = process.argv.slice(2) as [string, string];
// Invariants are checked once, at the end: the benchmark measures the simulation, not the checker.
const input = loadRunInput(file, { set: { 'router.strategy': strategy, 'sim.invariants': 'end' } });
const t0 = performance.now();
const { report } = runOne(input);
const wallMs = performance.now() - t0;
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
  }) + '\n',
);
