import { readEventLogFile } from '../sim/eventlog/event-log-reader.ts';
import { FileLineCursor } from '../sim/eventlog/line-source.ts';
import { benchChurnLogPath } from './churn-log.ts';
import { benchCommand, parseBenchArgs } from './lib/cli.ts';

/**
 * Times reading an event log alone, nothing simulated. CPU time is printed next to wall time because on a
 * shared machine wall time also measures the neighbours; the best of several runs is the figure to compare.
 */
const cli = parseBenchArgs(
  benchCommand(
    'read-log.ts',
    'times reading an event log alone, two ways: plain (split into lines and JSON.parse each: the floor any replay of the file pays, and what the replay benchmark\'s ratios divide by) and validated (the event log reader, every line checked as `run` checks it)',
    'per run and mode: lines, wall and CPU time, lines/s; the best of the runs; peak RSS. With --json one JSON line instead: lines, plainLinesPerSecond and plainLinesPerCpuSecond, the same for validated, peakRssMiB.',
  )
    .argument('[log]', 'the event log (default: the cached four-hour bench churn log, which npm run bench writes)')
    .argument('[runs]', 'runs of each mode (default 5)')
    .option('--json', 'print one JSON line')
    .option('--plain-only', 'time the plain read alone (the replay benchmark\'s denominator); the validated figures are then absent'),
);
const [fileArg, runsArg] = cli.args as [string | undefined, string | undefined];
if (runsArg !== undefined && !/^[1-9]\d*$/.test(runsArg)) {
  console.error(`error: runs is a positive integer (got '${runsArg}')`);
  process.exit(2);
}
const { json: jsonOpt, plainOnly } = cli.opts<{ json?: boolean; plainOnly?: boolean }>();
const json = jsonOpt === true;
const modes = plainOnly === true ? ([['plain', readPlain]] as const) : ([['plain', readPlain], ['validated', readValidated]] as const);
const file = fileArg || benchChurnLogPath();
const runs = Number(runsArg ?? 5);

/** Reading a field of each value keeps the loop from doing less than a real consumer would. */
function readPlain(): { lines: number; last: number } {
  const cursor = new FileLineCursor(file);
  let lines = 0;
  let last = 0;
  for (let line = cursor.next(); line !== undefined; line = cursor.next()) {
    const v = JSON.parse(line) as { at?: number };
    lines++;
    if (v.at !== undefined) last = v.at;
  }
  return { lines, last };
}

function readValidated(): { lines: number; last: number } {
  let events = 0;
  let last = 0;
  for (const event of readEventLogFile(file)) {
    events++;
    last = event.at;
  }
  return { lines: events + 1, last };
}

const best: Record<string, { wallMs: number; cpuMs: number; lines: number }> = {};
for (let run = 1; run <= runs; run++) {
  for (const [mode, read] of modes) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const { lines, last } = read();
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const b = best[mode];
    // The fastest run's wall time and the least CPU time of any run: each is that measure's best.
    best[mode] = { wallMs: Math.min(wallMs, b?.wallMs ?? Infinity), cpuMs: Math.min(cpuMs, b?.cpuMs ?? Infinity), lines };
    if (!json) console.log(`run ${run} ${mode}: ${lines} lines in ${wallMs.toFixed(0)} ms wall (${cpuMs.toFixed(0)} ms CPU), ${perSecond(lines, wallMs).toLocaleString('en-US')} lines/s (last event at ${last} ms)`);
  }
}
// Reading streams, so peak memory should not grow with the log: compare it with the file's size.
const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
if (json) {
  const p = best['plain']!;
  const v = best['validated'];
  console.log(
    JSON.stringify({
      lines: p.lines,
      plainLinesPerSecond: perSecond(p.lines, p.wallMs),
      plainLinesPerCpuSecond: perSecond(p.lines, p.cpuMs),
      ...(v !== undefined && { validatedLinesPerSecond: perSecond(v.lines, v.wallMs), validatedLinesPerCpuSecond: perSecond(v.lines, v.cpuMs) }),
      peakRssMiB,
    }),
  );
} else {
  for (const [mode, b] of Object.entries(best)) console.log(`best of ${runs} ${mode}: ${b.wallMs.toFixed(0)} ms wall, ${perSecond(b.lines, b.wallMs).toLocaleString('en-US')} lines/s; ${b.cpuMs.toFixed(0)} ms CPU`);
  console.log(`peak RSS ${peakRssMiB} MiB`);
}

function perSecond(n: number, ms: number): number {
  return Math.round(n / (ms / 1000));
}
