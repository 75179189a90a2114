import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InputEvent } from '../core/events.ts';
import { eventLogHeader, writeEventLogFile } from '../sim/cli/event-log-writer.ts';
import { expandGeneratorInput } from '../sim/generate/expand.ts';
import type { GenerateSpecInput } from '../sim/generate/spec.ts';
import { loadRunInput } from '../sim/load-input.ts';
import { defaultSettings } from '../sim/settings.ts';
import { shrinkLog } from '../sim/shrink/shrink-log.ts';
import { runOne } from '../sim/run.ts';
import { BENCH_SEED } from './churn-log.ts';
import { benchCommand, intIn, isMainModule, parseBenchArgs } from './lib/cli.ts';

/**
 * Churn that fits dcm-slots' 5 dynamic slots (one pod at a time between 1 and 7, as the replay benchmark's
 * log) at about 100,000 events per 24 simulated minutes: 300 routes over 300 services, scaling and rollouts.
 * No change fills a backend's slots, but changes arrive during every reload, so the router reloads every
 * 5 s for `reload-in-progress` all along.
 */
function churn(events: number): GenerateSpecInput & { durationMs: number } {
  return {
    durationMs: Math.max(60_000, Math.round((events / 100_000) * 24 * 60_000)),
    world: { namespaces: 10, services: 300, endpointsPerService: 3, workers: 10 },
    routes: { initial: 300, createPerHour: 0, deletePerHour: 0, mix: { http: 2, edge: 1, passthrough: 1 }, max: 300 },
    scale: { perHour: 250_000, min: 1, max: 7, step: 1 },
    rollouts: { perHour: 60, batchSize: 1, batchIntervalMs: 10_000, readyAfterMs: 5_000 },
  };
}

/** The budget `bursts` planted bursts fail: one fewer slot-exhausted reload request than bursts. */
function budgetFor(bursts: number): string {
  return `reloads.requests.dynamic-slots-exhausted <= ${bursts - 1}`;
}

/**
 * The churn with failures planted: `bursts` routes of their own at 0 and, at 1/(bursts+1), 2/(bursts+1), …
 * of the log, each one's service set to 6 pods at once, one past the slots; the budget allows one fewer
 * such reload request than bursts, so the shrunk log needs every burst and its route. A set that lands while
 * a reload runs is refused and reloads for `reload-in-progress` instead, so each burst takes the first of
 * the instants 250 ms apart from its place on where it adds a slot-exhausted request (one run each; about 4
 * in 5 instants are outside a reload).
 */
function failingLog(events: number, bursts: number): InputEvent[] {
  const spec = churn(events);
  let log: InputEvent[] = [];
  for (const e of expandGeneratorInput(spec, BENCH_SEED)) {
    if (log.length >= events - 2 * bursts) break;
    log.push(e);
  }
  const settings = defaultSettings();
  settings.seed = BENCH_SEED;
  settings.router.strategy = 'dcm-slots';
  const exhausted = (planted: InputEvent[]): number =>
    runOne({ name: 'shrink-bench', source: 'bench', settings, budgets: [], events: () => planted, reproduce: '' }).report.reloads.requests['dynamic-slots-exhausted'] ?? 0;
  const routes: InputEvent[] = [];
  for (let b = 0; b < bursts; b++) {
    const name = `burst-${b + 1}`;
    routes.push({ at: 0, type: 'route.upsert', route: { namespace: 'shrink-bench', name, host: `${name}.apps.example.com`, service: name } });
    const pods = Array.from({ length: 6 }, (_, i) => ({ ip: `10.200.${b}.${i + 1}`, port: 8080, name: `${name}-${i + 1}` }));
    const place = log[Math.floor(((b + 1) * log.length) / (bursts + 1))]!.at;
    let found: InputEvent[] | undefined;
    for (let k = 0; k < 40 && found === undefined; k++) {
      const at = place + 250 * k;
      // After the churn's events of its instant, in time order.
      const i = log.findIndex((e) => e.at > at);
      const planted = [...log.slice(0, i), { at, type: 'endpoints.set' as const, namespace: 'shrink-bench', service: name, endpoints: pods }, ...log.slice(i)];
      if (exhausted([...routes, ...planted]) > b) found = planted;
    }
    if (found === undefined) throw new Error(`no instant found where burst ${b + 1} exhausts its slots`);
    log = found;
  }
  return [...routes, ...log];
}

/** Writes the failing log (deterministic: the event count, the bursts and the bench seed) and returns its path. */
export function writeFailingLog(events: number, bursts = 1, path = join(tmpdir(), `routerbench-bench-shrink-${events}-${bursts}.jsonl`)): string {
  const header = eventLogHeader({
    source: `bench/shrink.ts --events ${events} --bursts ${bursts}`,
    scenario: 'shrink-bench',
    seed: BENCH_SEED,
    settings: { router: { strategy: 'dcm-slots' } },
    budgets: [budgetFor(bursts)],
  });
  writeEventLogFile(path, header, failingLog(events, bursts));
  return path;
}

if (isMainModule(import.meta.url)) {
  const cli = parseBenchArgs(
    benchCommand(
      'shrink.ts',
      'times `routerbench shrink` on a failing log: generated churn on dcm-slots that fits its 5 dynamic slots (about 100,000 events per 24 simulated minutes), with --bursts routes (default 1) whose services are each set to 6 pods at once, spread over the log, against the budget reloads.requests.dynamic-slots-exhausted <= bursts - 1. Shrinks it in this process, one core, as the CLI does after loading',
      'the log written (in the temporary directory) and its events; then events before → after, runs, wall and CPU seconds of the shrink, and the time per run. With --json one JSON line instead: events, eventsAfter, runs, wallS, cpuS, failure.',
    )
      .option('--events <n>', 'events in the failing log', intIn(100, 10_000_000), 100_000)
      .option('--bursts <n>', 'planted bursts, spread over the log, all needed to fail (the shrunk log has each and its route)', intIn(1, 20), 1)
      .option('--json', 'print one JSON line'),
  );
  const opts = cli.opts<{ events: number; bursts: number; json?: boolean }>();
  const path = writeFailingLog(opts.events, opts.bursts);
  const input = loadRunInput(path, { allowLarge: true });
  if (opts.json !== true) console.log(`${path}: ${opts.events.toLocaleString('en-US')} events`);
  let shown = -1;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const r = await shrinkLog(input, {
    onProgress: ({ runs, events }) => {
      if (opts.json === true || events === shown) return;
      shown = events;
      console.log(`  ${runs} runs, ${events} events, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    },
  });
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  if (!r.failed) {
    console.error('the generated log passes: the planted failure did not fail');
    process.exit(1);
  }
  if (opts.json === true) {
    console.log(JSON.stringify({ events: r.before, eventsAfter: r.events.length, runs: r.runs, wallS: +wallS.toFixed(1), cpuS: +cpuS.toFixed(1), failure: r.failure }));
  } else {
    console.log(`${r.before.toLocaleString('en-US')} → ${r.events.length} events in ${r.runs} runs: ${wallS.toFixed(1)} s wall, ${cpuS.toFixed(1)} s CPU (${((wallS / r.runs) * 1000).toFixed(0)} ms a run)`);
    console.log(`failure: ${r.failure.join('; ')}`);
  }
}
