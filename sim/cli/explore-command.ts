import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { STRATEGY_NAMES, type StrategyName } from '../../core/strategy.ts';
import { InputError } from '../eventlog/input-error.ts';
import { checkRun } from '../explore/check-run.ts';
import { explore, isAllowed, type ExploreResult } from '../explore/explore.ts';
import { inThreadExploreExecutor, poolExploreExecutor } from '../explore/explore-executor.ts';
import { mergeExplore } from '../explore/merge.ts';
import { exploreFiles, renderExploreSummary } from '../explore/outputs.ts';
import { PROPERTY_NAMES } from '../explore/properties.ts';
import { loadRunInput } from '../load-input.ts';
import { parseShard } from '../sweep/plan.ts';
import { EXIT } from './exit-codes.ts';
import { buildOverrides } from './run-command.ts';
import { collectList, collectSet, parseSeed } from './scenario-options.ts';
import { checkOutDir, writeFileAtomic } from './write-outputs.ts';

interface ExploreOptions {
  strategies?: string;
  runs?: number;
  minutes?: number;
  seed?: number;
  workers?: number;
  allow?: string[];
  shard?: string;
  out?: string;
  replay?: string;
  set?: Record<string, string>;
  progress?: boolean;
}

const DEFAULT_RUNS = 50;

export function registerExploreCommand(program: Command): Command {
  return program
    .command('explore')
    .description(
      'run seeded random workloads with faults (swarm testing: each run turns a random subset of features on), check safety properties along every run and liveness at its end (docs/explore.md), ' +
        'shrink each violation to a 1-minimal event log and write it as a scenario, one per property and strategy; ' +
        'the same seed and number of runs give the same runs and findings whatever --workers; ' +
        'exit 0 nothing found but allowed findings, 1 a finding not --allow\'ed, 2 bad input, 3 internal error',
    )
    .usage('[--strategies list] [--runs N | --minutes M] [--seed S] [--workers N] [--allow PROPERTY…] [--shard i/n] --out DIR\n       routerbench explore --replay FILE [--set key=value…] [--allow PROPERTY…]')
    .option('--strategies <list>', `comma-separated strategies to run every run under (default all: ${STRATEGY_NAMES.join(',')})`)
    .option('--runs <n>', `runs to make, each under every strategy (default ${DEFAULT_RUNS})`, parsePositive('--runs'))
    .option(
      '--minutes <m>',
      'instead of --runs: hand out runs until M minutes of wall-clock time have passed, then finish those started and shrink; the runs made are always runs 0..k−1, so the findings are those of --runs k (the count is printed), only k depends on the machine',
      parseMinutes,
    )
    .option('--seed <s>', 'the exploration seed; run k draws its scenario from seed s + k (default 1)', parseSeed)
    .option('--workers <n>', `worker threads (default: all cores, ${availableParallelism()} here; 0 runs in this thread)`, parseWhole('--workers'))
    .option('--allow <property>', `a known finding that does not fail the exploration: a property (${PROPERTY_NAMES.join(', ')}) or property@strategy, e.g. haproxy-view@dcm-add-del (repeatable)`, collectList)
    .option('--shard <i/n>', 'make only runs k ≡ i (mod n) (0-based; e.g. $JOB_COMPLETION_INDEX/$N); combine the --out directories with routerbench merge')
    .option('--out <dir>', 'required to explore: write explore.json, junit.xml, summary.md and findings/<property>--<strategy>.yaml here')
    .option('--replay <file>', 'instead of exploring: run one scenario or event log (a finding\'s file) and check the properties on it; exit 1 if one not allowed is violated')
    .option('--set <key=value>', 'with --replay: override a setting by dotted key, e.g. router.strategy=dcm-slots, to see whether another strategy has the finding too (repeatable)', collectSet)
    .option('--no-progress', 'no progress on stderr (runs done, findings so far, shrinks)')
    .action(async (opts: ExploreOptions) => {
      process.exitCode = await exploreCommand(opts);
    });
}

export async function exploreCommand(opts: ExploreOptions): Promise<number> {
  const allow = opts.allow ?? [];
  const strategies = parseStrategies(opts.strategies);
  for (const a of allow) {
    const [property, strategy] = a.split('@');
    if (!(PROPERTY_NAMES as readonly string[]).includes(property!)) throw new InputError('--allow', `unknown property '${property}' (known: ${PROPERTY_NAMES.join(', ')})`);
    if (strategy !== undefined && !(STRATEGY_NAMES as readonly string[]).includes(strategy)) throw new InputError('--allow', `unknown strategy '${strategy}' in '${a}' (known: ${STRATEGY_NAMES.join(', ')})`);
  }
  if (opts.set !== undefined && opts.replay === undefined) throw new InputError('--set', 'applies to --replay: an exploration draws its own settings');
  if (opts.replay !== undefined) return replay(opts.replay, allow, opts.set);
  if (opts.out === undefined) throw new InputError('--out', 'explore writes its findings to a directory: give --out DIR');
  if (opts.runs !== undefined && opts.minutes !== undefined) throw new InputError('--minutes', 'give --runs or --minutes, not both');
  checkOutDir(opts.out);
  const shard = opts.shard === undefined ? undefined : parseShard(opts.shard);
  const runs = opts.minutes !== undefined ? undefined : (opts.runs ?? DEFAULT_RUNS);
  const workers = opts.workers ?? availableParallelism();
  const pool = workers === 0 ? undefined : poolExploreExecutor(workers);
  const executor = pool ?? inThreadExploreExecutor(() => new Promise((resolve) => setImmediate(resolve)));

  // The wall clock only decides when to stop handing out runs (--minutes, Ctrl-C); never what a run does.
  const started = Date.now();
  const deadline = opts.minutes === undefined ? Infinity : started + opts.minutes * 60_000;
  let interrupted = false;
  const onSigint = (): void => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write('\nexplore: stopping after the runs started; their findings are shrunk and written (Ctrl-C again to quit at once)\n');
  };
  process.on('SIGINT', onSigint);
  const progress = opts.progress !== false;
  const label = `explore seed ${opts.seed ?? 1}${shard === undefined ? '' : ` shard ${shard.index}/${shard.count}`}`;
  let lastLine = 0;
  let result: ExploreResult;
  try {
    result = await explore(
      { seed: opts.seed ?? 1, runs, strategies: strategies.map((s) => ({ name: s, base: s })), ...(shard !== undefined && { shard }), allow },
      executor,
      {
        shouldStop: () => interrupted || Date.now() >= deadline,
        onRun: (done, found) => {
          if (!progress) return;
          const now = Date.now();
          const total = runs === undefined ? '' : `/${shard === undefined ? runs : Math.ceil((runs - shard.index) / shard.count)}`;
          if (process.stderr.isTTY) process.stderr.write(`\r${label}: ${done}${total} runs, ${found} findings`);
          else if (now - lastLine >= 10_000) {
            lastLine = now;
            process.stderr.write(`${label}: ${done}${total} runs, ${found} findings\n`);
          }
        },
        onShrink: (done, total) => {
          if (progress) process.stderr.write(`${process.stderr.isTTY ? '\r' : ''}${label}: shrunk ${done} of ${total} findings${process.stderr.isTTY ? '   ' : '\n'}`);
        },
      },
    );
  } finally {
    process.off('SIGINT', onSigint);
    await pool?.close();
    if (progress && process.stderr.isTTY) process.stderr.write('\n');
  }
  if (progress) process.stderr.write(`${label}: ${result.runs} runs in ${((Date.now() - started) / 1000).toFixed(1)} s (${workers === 0 ? 'in this thread' : `${workers} workers`})\n`);
  const code = finishExplore(result, opts.out);
  // As a shell reports a process ended by SIGINT (128 + 2), once the findings of the runs started are written.
  return interrupted ? 130 : code;
}

/** Writes the outputs, prints the table, returns the exit code (shared with merge). */
export function finishExplore(result: ExploreResult, out: string): number {
  const files = exploreFiles(result);
  for (const [name, text] of Object.entries(files)) writeFileAtomic(join(out, name), text);
  removeStaleFindings(out, new Set(Object.keys(files)));
  process.stdout.write(renderExploreSummary(result, out));
  process.stdout.write(`wrote ${out}\n`);
  return result.pass ? EXIT.pass : EXIT.fail;
}

/**
 * A reused --out keeps no finding of an earlier exploration that this one did not make: a gate's artifact
 * must show only what this run found. Only files with a finding's name (`<property>--<strategy>.yaml`, a
 * known property) are removed, after the new ones are written; anything else in findings/ is left alone.
 */
function removeStaleFindings(out: string, written: ReadonlySet<string>): void {
  const dir = join(out, 'findings');
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const m = /^(.+)--.+\.yaml$/.exec(name);
    if (m === null || !(PROPERTY_NAMES as readonly string[]).includes(m[1]!)) continue;
    if (!written.has(`findings/${name}`)) rmSync(join(dir, name), { force: true });
  }
}

/** Directories written by `explore --out`: what `routerbench merge` combines when it finds explore.json. */
export function isExploreDir(dir: string): boolean {
  return existsSync(join(dir, 'explore.json'));
}

export function mergeExploreDirs(dirs: readonly string[], out: string): number {
  checkOutDir(out);
  const parts = dirs.map((dir) => {
    const file = join(dir, 'explore.json');
    let json: ExploreResult;
    try {
      json = JSON.parse(readFileSync(file, 'utf8')) as ExploreResult;
    } catch (err) {
      throw new InputError(file, `not readable as explore.json (${(err as Error).message})`);
    }
    if (json.routerbench !== 'explore' || json.version !== 1) throw new InputError(file, 'not an explore.json version 1');
    return { dir, json };
  });
  return finishExplore(mergeExplore(parts), out);
}

function replay(file: string, allow: readonly string[], set: Record<string, string> | undefined): number {
  const input = loadRunInput(file, set === undefined ? {} : buildOverrides({ set }));
  const violations = checkRun(input);
  const strategy = input.settings.router.strategy;
  const lines = [`${input.name} (${strategy}, seed ${input.settings.seed}): ${violations.length === 0 ? 'no property violated' : `${violations.length} propert${violations.length === 1 ? 'y' : 'ies'} violated`}`];
  for (const v of violations) lines.push(`  ${v.property}${isAllowed(allow, v.property, strategy) ? ' (allowed)' : ''} at ${v.atMs} ms: ${v.detail}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return violations.every((v) => isAllowed(allow, v.property, strategy)) ? EXIT.pass : EXIT.fail;
}

function parseStrategies(text: string | undefined): StrategyName[] {
  if (text === undefined) return [...STRATEGY_NAMES];
  const names = text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (names.length === 0) throw new InputError('--strategies', 'give at least one strategy');
  for (const n of names) if (!(STRATEGY_NAMES as readonly string[]).includes(n)) throw new InputError('--strategies', `unknown strategy '${n}' (known: ${STRATEGY_NAMES.join(', ')})`);
  return [...new Set(names)] as StrategyName[];
}

function parsePositive(flag: string): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${flag} takes a whole number, at least 1`);
    return Number(value);
  };
}

function parseWhole(flag: string): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${flag} takes a whole number`);
    return Number(value);
  };
}

function parseMinutes(value: string): number {
  const m = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(m > 0)) throw new InvalidArgumentError('--minutes takes a positive number of minutes, e.g. 30 or 0.5');
  return m;
}
