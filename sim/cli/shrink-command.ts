import type { Command } from 'commander';
import { BudgetSyntaxError } from '../../reports/budgets.ts';
import { parseTolerance, type Tolerance } from '../../reports/baseline.ts';
import { InputError } from '../eventlog/input-error.ts';
import { loadRunInput } from '../load-input.ts';
import { shellQuote } from '../scenario/load-scenario.ts';
import type { BaselineCheck } from '../shrink/failure.ts';
import { sameFailure } from '../shrink/failure.ts';
import { scenarioYaml } from '../shrink/scenario-yaml.ts';
import { endpointCount, failureWith, shrinkLog } from '../shrink/shrink-log.ts';
import { baselineFile, readBaseline } from './baseline-files.ts';
import { eventLogHeader, writeEventLogFile } from './event-log-writer.ts';
import { EXIT } from './exit-codes.ts';
import { outputDirNames } from './output-dir-names.ts';
import { buildOverrides } from './run-command.ts';
import { collectList, collectSet, parseSeed } from './scenario-options.ts';
import { checkOutputFiles, writeFileAtomic } from './write-outputs.ts';

interface ShrinkOptions {
  seed?: number;
  set?: Record<string, string>;
  env?: string[];
  routerDeployment?: string;
  budget?: string[];
  baseline?: string;
  tolerance?: string[];
  out: string;
  scenario?: string;
  allowLarge?: boolean;
  /** false with --no-progress. */
  progress?: boolean;
}

/** Exit code after Ctrl-C, as a shell reports a process ended by SIGINT (128 + 2). */
const EXIT_INTERRUPTED = 130;

export function registerShrinkCommand(program: Command): Command {
  return program
    .command('shrink')
    .description(
      'cut a failing scenario or event log to a 1-minimal event log that fails the same way (the same budgets failed, invariants violated, metrics regressed from the baseline), by delta debugging over its events, then inside them (endpoints, optional route and cluster-event fields, times pulled together); ' +
        'exit 0 shrunk and written, 2 bad input or the input passes, 3 internal error, 130 stopped by Ctrl-C (the smallest failing log so far is written)',
    )
    .argument('<input>', 'a scenario file (.yaml) or an event log (.jsonl) whose run fails')
    .requiredOption('--out <file>', 'write the shrunk event log (v1 JSONL, its header carrying the settings, seed, budgets and cluster) here')
    .option('--scenario <file>', 'also write the shrunk log as a scenario file (YAML, events inline), ready to commit as a regression test')
    .option('--seed <n>', 'run seed, overriding the input (0..4294967295)', parseSeed)
    .option('--set <key=value>', 'override a setting by dotted key, e.g. router.strategy=dcm-slots (repeatable)', collectSet)
    .option('--env <NAME=VALUE>', 'a router environment variable, parsed as the router does (ROUTER_MAX_DYNAMIC_SERVERS=3; repeatable)', collectList)
    .option('--router-deployment <file>', 'take router settings from a Deployment manifest (oc get deploy/router-default -o yaml)')
    .option('--budget <expr>', "an extra budget, e.g. 'reloads.total<=2' (repeatable); the shrunk log's header carries it", collectList)
    .option('--baseline <path>', 'compare every run with this baseline report.json (or a directory of <scenario>/report.json); a regressed metric is part of the failure')
    .option('--tolerance <metric=pct>', 'allowed regression for a metric, as for `run --tolerance` (repeatable)', collectList)
    .option('--allow-large', 'shrink an input whose estimated events, memory or output exceed the limits (docs/limits.md)')
    .option('--no-progress', 'no progress on stderr (runs done, the events of the log last tried, events and endpoints of the smallest failing log so far)')
    .action(async (input: string, opts: ShrinkOptions) => {
      process.exitCode = await shrinkCommand(input, opts);
    });
}

export async function shrinkCommand(file: string, opts: ShrinkOptions): Promise<number> {
  if (opts.tolerance !== undefined && opts.baseline === undefined) throw new InputError('--tolerance', 'applies to a comparison with a baseline: give --baseline too');
  const tolerances: Tolerance[] = (opts.tolerance ?? []).map((t) => {
    try {
      return parseTolerance(t);
    } catch (err) {
      throw err instanceof BudgetSyntaxError ? new InputError('--tolerance', err.message) : err;
    }
  });
  checkOutputFiles([opts.out, ...(opts.scenario === undefined ? [] : [opts.scenario])]);
  const input = loadRunInput(file, buildOverrides(opts));
  let baseline: BaselineCheck | undefined;
  if (opts.baseline !== undefined) {
    const where = baselineFile(opts.baseline, outputDirNames([input])[0]!, true);
    const report = readBaseline(where, input.name);
    if (report === undefined) throw new InputError('--baseline', `no baseline for ${input.name} at ${where}`);
    baseline = { report, tolerances };
  }

  const tty = process.stderr.isTTY === true;
  const progress = opts.progress !== false;
  let shown = -1;
  let interrupted = false;
  const onSigint = (): void => {
    interrupted = true;
  };
  process.on('SIGINT', onSigint);
  let result;
  try {
    result = await shrinkLog(input, {
      ...(baseline !== undefined && { baseline }),
      onProgress: ({ runs, events, endpoints, tried }) => {
        if (!progress) return;
        // On a terminal one line rewritten per run; in a CI log one line per smaller log found.
        const size = events * 1_000_000 + endpoints;
        const line = `shrink ${input.name}: ${runs} runs, tried ${tried} events; smallest failing so far ${events} events, ${endpoints} endpoints`;
        if (tty) process.stderr.write(`\r${line}\x1b[K`);
        else if (size !== shown) process.stderr.write(`${line}\n`);
        shown = size;
      },
      // The runs are synchronous: yielding to the event loop before each lets Ctrl-C's handler run.
      shouldStop: async () => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        return interrupted;
      },
    });
  } finally {
    process.off('SIGINT', onSigint);
    if (progress && tty && shown >= 0) process.stderr.write('\n');
  }
  if (!result.failed) {
    throw new InputError(file, `the run passes (${result.events} events): nothing to shrink; shrink needs an input that fails a budget, an invariant or the baseline`);
  }

  const header = eventLogHeader({
    source: file,
    scenario: input.name,
    seed: input.settings.seed,
    settings: input.settings,
    ...(input.cluster !== undefined && { cluster: input.cluster }),
    budgets: input.budgets,
    // What --env and --router-deployment warned about is part of the run (warning records, warnings.total).
    ...(input.warnings !== undefined && input.warnings.length > 0 && { warnings: input.warnings }),
  });
  writeEventLogFile(opts.out, header, result.events);
  // The written log alone, as `routerbench run` will load it, must fail the same way: checked, not assumed.
  checkAlone(opts.out, result.failure, baseline);
  const compare = opts.baseline === undefined ? [] : ['--baseline', shellQuote(opts.baseline), ...tolerances.flatMap((t) => ['--tolerance', shellQuote(t.text)])];
  const lines = [
    `${input.name}: ${result.before} → ${result.events.length} events, ${result.endpointsBefore} → ${endpointCount(result.events)} endpoints in ${result.runs} runs${result.stopped ? ' (stopped by SIGINT: the smallest failing log so far, not 1-minimal)' : ''}`,
    `failure: ${result.failure.join('; ')}`,
    `wrote ${opts.out}`,
  ];
  if (opts.scenario !== undefined) {
    const yaml = scenarioYaml(input, result.events, `${input.name} shrunk by routerbench shrink from ${result.before} to ${result.events.length} events; fails: ${result.failure.join('; ')}`);
    if ('reason' in yaml) lines.push(`no scenario written: ${yaml.reason}`);
    else {
      writeFileAtomic(opts.scenario, yaml.text);
      checkAlone(opts.scenario, result.failure, baseline);
      lines.push(`wrote ${opts.scenario}`);
    }
  }
  lines.push(`reproduce: ${['routerbench run', shellQuote(opts.out), ...compare].join(' ')}`);
  process.stdout.write(lines.join('\n') + '\n');
  return result.stopped ? EXIT_INTERRUPTED : EXIT.pass;
}


/** A written file run alone, as `routerbench run` loads it, must fail the same way: checked, not assumed. */
function checkAlone(file: string, failure: readonly string[], baseline: BaselineCheck | undefined): void {
  const written = loadRunInput(file, { allowLarge: true });
  const alone = failureWith(written, [...written.events()], baseline);
  if (!sameFailure(alone, failure)) throw new Error(`${file} run alone fails as [${alone.join('; ')}], not as [${failure.join('; ')}]`);
}
