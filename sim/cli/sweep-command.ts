import { availableParallelism } from 'node:os';
import { InvalidArgumentError, type Command } from 'commander';
import { SingleBar } from 'cli-progress';
import { formatNumber } from '../../reports/render/escape.ts';
import { InputError } from '../eventlog/input-error.ts';
import { executeSweep, inThreadExecutor, poolExecutor } from '../sweep/execute.ts';
import { parseGrid } from '../sweep/grid.ts';
import { buildSweepResult } from '../sweep/outputs.ts';
import { DEFAULT_COST_MODEL, defineSweep, parseShard, shardTasks, statisticNeeds, type Statistic, type SweepDefinition, type SweepRequest } from '../sweep/plan.ts';
import { EXIT } from './exit-codes.ts';
import { settingText } from '../settings.ts';
import { explainSweep, explanationsJson, renderExplanations } from './explain-settings.ts';
import { registerMergeCommand } from './merge-command.ts';
import { buildOverrides } from './run-command.ts';
import { collectList, collectSet, parseSeed } from './scenario-options.ts';
import { formatSeconds } from './run-progress.ts';
import { rerunSingleThreadedV8, runsSingleThreadedV8, wantsSingleThreadedV8 } from './single-threaded-v8.ts';
import { checkSweepOut, EXIT_INTERRUPTED, finishSweep } from './sweep-outcome.ts';

/** A Ctrl-C this soon after the first is the same keypress passed on by a wrapper (tsx), not a second one. */
const SECOND_SIGINT_MS = 1000;

interface SweepOptions {
  allowLarge?: boolean;
  grid?: string[];
  seeds: number;
  seed?: number;
  budget?: string[];
  quantile?: number;
  confidence?: number;
  workers?: number;
  out?: string;
  set?: Record<string, string>;
  env?: string[];
  routerDeployment?: string;
  shard?: string;
  bytesPerBackend?: number;
  bytesPerServer?: number;
  json?: boolean;
  progress?: boolean;
  singleThreadedV8?: boolean;
  explainSettings?: boolean;
}

/** `sweep` and its companion `merge` (one entry in main.ts's command list). */
export function registerSweepCommands(program: Command): Command {
  registerSweepCommand(program);
  registerMergeCommand(program);
  return program;
}

export function registerSweepCommand(program: Command): Command {
  return program
    .command('sweep')
    .description(
      'run a scenario over a grid of settings × seeds in parallel and recommend the smallest pool and slot settings that meet the budget; exit 0 recommended, 1 no point meets the budget, 2 bad input, 130 stopped by Ctrl-C',
    )
    .argument('<input>', 'a scenario (.yaml) or an event log (.jsonl)')
    .option('--grid <key=values>', 'a swept setting: a..b, a..b:step or a list, e.g. router.blueprintPoolSize=0..20 (repeatable)', collectList)
    .option('--seeds <n>', 'seeds per point: the scenario seed (or --seed) and the n − 1 after it', parseCount, 10)
    .option('--seed <n>', 'the first seed instead of the scenario\'s', parseSeed)
    .option('--budget <expr>', "a budget judged across seeds, added to the scenario's own, e.g. 'reloads.total<=2' (repeatable)", collectList)
    .option('--quantile <q>', 'judge budgets on this quantile across seeds (default 0.95)', parseFraction('--quantile', true))
    .option('--confidence <level>', 'judge budgets on the confidence bound of the mean at this level instead, e.g. 0.95 (needs --seeds 2 or more)', parseFraction('--confidence', false))
    .option('--workers <n>', `worker threads (default: all cores, ${availableParallelism()} here; 0 runs in this thread)`, parseWhole('--workers'))
    .option('--out <dir>', 'write runs.csv, runs.json, sweep.json and sweep.html here')
    .option('--set <key=value>', 'a setting for every point, as with run, or the scenario\'s workload by generate.<path> (repeatable; generate.* keys cannot be swept)', collectSet)
    .option('--env <NAME=VALUE>', 'a router environment variable for every point, parsed as the router does, as with run (ROUTER_MAX_DYNAMIC_SERVERS=3; repeatable); --set and the grid win over it', collectList)
    .option('--router-deployment <file>', 'take router settings for every point from a Deployment manifest, as with run; --env, --set and the grid win over it')
    .option('--shard <i/n>', 'run only shard i of n (0-based; e.g. $JOB_COMPLETION_INDEX/$N); combine with routerbench merge')
    .option('--bytes-per-backend <n>', `memory estimate per pool backend (default ${DEFAULT_COST_MODEL.perBackendBytes})`, parseWhole('--bytes-per-backend'))
    .option('--bytes-per-server <n>', `memory estimate per empty slot server (default ${DEFAULT_COST_MODEL.perServerBytes})`, parseWhole('--bytes-per-server'))
    .option('--json', 'print sweep.json instead of the summary')
    .option('--allow-large', 'run points whose estimated events, memory or output exceed the limits (docs/limits.md)')
    .option('--no-progress', 'no progress output on stderr')
    .option('--explain-settings', "print the sweep's settings, their values (a swept key: the grid's values; the seed: the seeds) and sources, as run does, and exit 0 without running")
    .option(
      '--no-single-threaded-v8',
      "keep V8's GC and compiler helper threads; by default a sweep with a worker on every core runs under node --single-threaded (with a smaller inlining budget, as each worker compiles its own code), as they would only compete with the workers",
    )
    .action(async (input: string, opts: SweepOptions) => {
      process.exitCode = await sweepCommand(input, opts);
    });
}

export async function sweepCommand(file: string, opts: SweepOptions): Promise<number> {
  checkSweepOut(opts.out);
  // The flags alone decide these: refused before a --single-threaded child is started to find the same.
  if (opts.quantile !== undefined && opts.confidence !== undefined) throw new InputError('--confidence', 'give --quantile or --confidence, not both');
  const statistic: Statistic = opts.confidence !== undefined ? { kind: 'confidence', level: opts.confidence } : { kind: 'quantile', q: opts.quantile ?? 0.95 };
  const statisticProblem = statisticNeeds(statistic, opts.seeds);
  if (statisticProblem !== undefined) throw new InputError('--confidence', statisticProblem);
  // What the sweep is, from the flags: the grid, the router env (parsed once, here, by run's own code, so
  // its warnings print once), every point checked.
  const define = (): SweepDefinition => {
    const grid = parseGrid(opts.grid ?? []);
    const routerEnv = opts.env === undefined && opts.routerDeployment === undefined ? undefined : sweepRouterEnv(opts.env, opts.routerDeployment);
    return defineSweep({
      file,
      grid,
      seeds: opts.seeds,
      ...(opts.seed !== undefined && { firstSeed: opts.seed }),
      set: opts.set ?? {},
      ...(routerEnv !== undefined && { routerEnv }),
      budgets: opts.budget ?? [],
      statistic,
      ...(opts.allowLarge === true && { allowLarge: true }),
      cost: {
        perBackendBytes: opts.bytesPerBackend ?? DEFAULT_COST_MODEL.perBackendBytes,
        perServerBytes: opts.bytesPerServer ?? DEFAULT_COST_MODEL.perServerBytes,
      },
    });
  };
  if (opts.explainSettings) {
    const e = explainSweep(define());
    process.stdout.write(opts.json ? explanationsJson([e]) : renderExplanations([e]));
    return EXIT.pass;
  }
  if (opts.singleThreadedV8 !== false && wantsSingleThreadedV8(opts.workers ?? availableParallelism()) && !runsSingleThreadedV8()) {
    return rerunSingleThreadedV8();
  }
  const shard = opts.shard === undefined ? undefined : parseShard(opts.shard);
  if (shard !== undefined && opts.out === undefined) throw new InputError('--shard', 'a shard is only useful written out: give --out DIR for routerbench merge');
  const def = define();
  const positions = shardTasks(def, shard);
  const workers = Math.min(opts.workers ?? availableParallelism(), positions.length);
  // In this thread, a turn of the event loop between runs lets Ctrl-C through.
  const executor = workers === 0 ? inThreadExecutor(() => new Promise((resolve) => setImmediate(resolve))) : poolExecutor(workers);
  const label = `${def.scenario.name}${shard === undefined ? '' : ` shard ${shard.index}/${shard.count}`}`;
  const progress = opts.progress === false ? undefined : createProgress(positions.length, label);
  const stop = new AbortController();
  let firstSigintMs = 0;
  const onSigint = (): void => {
    // A wrapper such as tsx passes the terminal's Ctrl-C on once more, a moment after the terminal sent it:
    // only a second Ctrl-C a second or more later means "quit at once".
    if (stop.signal.aborted) {
      if (Date.now() - firstSigintMs >= SECOND_SIGINT_MS) process.exit(EXIT_INTERRUPTED);
      return;
    }
    firstSigintMs = Date.now();
    process.stderr.write('\nstopping: keeping the finished runs (Ctrl-C again, a second later, to quit at once)\n');
    stop.abort();
  };
  process.on('SIGINT', onSigint);
  const started = Date.now();
  let rows;
  let interrupted;
  try {
    ({ rows, interrupted } = await executeSweep(def, { positions, executor, signal: stop.signal, onRow: () => progress?.tick() }));
  } finally {
    progress?.stop();
    process.off('SIGINT', onSigint);
    await executor.close();
  }
  const result = buildSweepResult(def, rows, { ...(shard !== undefined && { shard }), interrupted });
  const seconds = (Date.now() - started) / 1000;
  process.stderr.write(
    `${label}: ${result.json.runs.completed} of ${positions.length} runs in ${formatNumber(seconds)} s (${formatNumber(positions.length === 0 ? 0 : result.json.runs.completed / Math.max(seconds, 1e-3))} runs/s, ${workers === 0 ? 'in this thread' : `${workers} worker${workers === 1 ? '' : 's'}`}${runsSingleThreadedV8() ? ', V8 single-threaded' : ''})\n`,
  );
  return finishSweep(result, opts);
}

/** The router env flags resolved by run's own code: the settings as `--set` text, and each one's source. */
function sweepRouterEnv(env: string[] | undefined, deployment: string | undefined): NonNullable<SweepRequest['routerEnv']> {
  const layers = buildOverrides({ env, routerDeployment: deployment }).layers ?? [];
  const settings: Record<string, string> = {};
  const sources: Record<string, string> = {};
  for (const a of layers.flatMap((l) => l.assignments)) {
    // As --set text that reads back as the same value: a namespace 007 stays the string, not 7.
    settings[a.key] = settingText(a.value);
    sources[a.key] = a.source;
  }
  return { ...(deployment !== undefined && { deployment }), vars: env ?? [], settings, sources };
}

/** A bar with runs done, rate and ETA on a terminal; plain lines (each 10%, or every 15 s) otherwise. */
function createProgress(total: number, label: string, stream: NodeJS.WriteStream = process.stderr): { tick(): void; stop(): void } {
  const started = Date.now();
  let done = 0;
  const rate = (): number => done / Math.max((Date.now() - started) / 1000, 1e-3);
  const eta = (): string => (done === 0 ? '?' : formatSeconds((total - done) / rate()));
  if (stream.isTTY) {
    const bar = new SingleBar({ stream, format: `${label} {bar} {value}/{total} runs | {rate_text} runs/s | ETA {eta_text}`, hideCursor: true, fps: 5 });
    bar.start(total, 0, { rate_text: '0.0', eta_text: '?' });
    return {
      tick() {
        done++;
        bar.update(done, { rate_text: rate().toFixed(1), eta_text: eta() });
      },
      stop: () => bar.stop(),
    };
  }
  let lastLine = started;
  let lastDecile = 0;
  return {
    tick() {
      done++;
      const decile = Math.floor((10 * done) / Math.max(total, 1));
      const now = Date.now();
      if (decile > lastDecile || now - lastLine >= 15_000) {
        lastDecile = decile;
        lastLine = now;
        stream.write(`${label}: ${done}/${total} runs (${Math.floor((100 * done) / Math.max(total, 1))}%), ${rate().toFixed(1)} runs/s, ETA ${eta()}\n`);
      }
    },
    stop() {},
  };
}

function parseCount(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number, at least 1');
  return Number(value);
}

function parseWhole(flag: string): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${flag} takes a whole number`);
    return Number(value);
  };
}

function parseFraction(flag: string, closedAtOne: boolean): (value: string) => number {
  return (value) => {
    const v = Number(value);
    if (!/^(0?\.\d+|1(\.0*)?|0)$/.test(value.trim()) || !(v > 0) || (closedAtOne ? v > 1 : v >= 1)) {
      throw new InvalidArgumentError(`${flag} takes a fraction in (0, 1${closedAtOne ? ']' : ')'}, e.g. 0.95`);
    }
    return v;
  };
}
