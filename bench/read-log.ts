import { readEventLogFile } from '../sim/eventlog/event-log-reader.ts';
import { benchChurnLogPath } from './churn-log.ts';

/**
 * Times reading an event log: every line parsed and validated, nothing simulated, so the reader's own cost
 * shows apart from the engine's. Usage: tsx bench/read-log.ts [log.jsonl] [runs, default 5]
 *
 * CPU time is printed next to wall time because on a shared machine wall time also measures the
 * neighbours; the best of several runs is the figure to compare.
 */
const [fileArg, runsArg] = process.argv.slice(2);
const file = fileArg || benchChurnLogPath();
const runs = Math.max(1, Number(runsArg) || 5);

let bestWall = Infinity;
let bestCpu = Infinity;
let lines = 0;
for (let run = 1; run <= runs; run++) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let events = 0;
  // Reading a field of each event keeps the loop from doing less than a real consumer would.
  let lastAt = 0;
  for (const event of readEventLogFile(file)) {
    events++;
    lastAt = event.at;
  }
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  bestWall = Math.min(bestWall, wallMs);
  bestCpu = Math.min(bestCpu, cpuMs);
  lines = events + 1;
  console.log(
    `run ${run}: ${lines} lines in ${wallMs.toFixed(0)} ms wall (${cpuMs.toFixed(0)} ms CPU), ` +
      `${perSecond(lines, wallMs)} lines/s (last event at ${lastAt} ms)`,
  );
}
console.log(`best of ${runs}: ${bestWall.toFixed(0)} ms wall, ${perSecond(lines, bestWall)} lines/s; ${bestCpu.toFixed(0)} ms CPU`);
// Reading streams, so peak memory should not grow with the log: compare it with the file's size.
console.log(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);

function perSecond(n: number, ms: number): string {
  return Math.round(n / (ms / 1000)).toLocaleString('en-US');
}
