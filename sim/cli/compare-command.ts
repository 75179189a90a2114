import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { renderCompareTable } from '../../reports/render/compare-table.ts';
import { failureLines } from '../../reports/render/terminal.ts';
import { STRATEGY_NAMES, type StrategyName } from '../../core/strategy.ts';
import { InputError } from '../eventlog/input-error.ts';
import { loadRunInput } from '../load-input.ts';
import { setLayer, type SettingsLayer } from '../settings-layers.ts';
import { runOne } from '../run.ts';
import { EXIT } from './exit-codes.ts';
import { explainSettings, explanationsJson, renderExplanations } from './explain-settings.ts';
import { withStderrProgress } from './run-progress.ts';
import { buildOverrides } from './run-command.ts';
import type { TraceName } from '../output/records.ts';
import { collectList, collectSet, collectTrace, parseSeed } from './scenario-options.ts';

interface CompareOptions {
  strategies: StrategyName[];
  seed?: number;
  set?: Record<string, string>;
  env?: string[];
  routerDeployment?: string;
  json?: boolean;
  progress?: boolean;
  trace?: TraceName[];
  explainSettings?: boolean;
}

function parseStrategies(value: string): StrategyName[] {
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const n of names) {
    if (!(STRATEGY_NAMES as readonly string[]).includes(n)) throw new InvalidArgumentError(`unknown strategy '${n}' (known: ${STRATEGY_NAMES.join(', ')})`);
  }
  if (names.length === 0) throw new InvalidArgumentError('name at least one strategy');
  return names as StrategyName[];
}

/** `routerbench compare <log>`: the same input under several strategies, reloads by reason side by side. */
export function registerCompareCommand(program: Command): Command {
  return program
    .command('compare')
    .description('run one scenario or event log under several strategies and print reloads by reason side by side; exit 1 if any run fails its budgets')
    .argument('<input>', 'a scenario (.yaml) or an event log (.jsonl)')
    .option('--strategies <list>', 'comma-separated strategies', parseStrategies, [...STRATEGY_NAMES])
    .option('--seed <n>', 'run seed', parseSeed)
    .option('--set <key=value>', 'override a setting by dotted key, or a scenario\'s workload by generate.<path> (repeatable; not router.strategy, which --strategies sets)', collectSet)
    .option('--env <NAME=VALUE>', 'a router environment variable, parsed as the router does, as with run (repeatable)', collectList)
    .option('--router-deployment <file>', 'take router settings from a Deployment manifest, as with run')
    .option('--trace <what>', 'as with run (runtime: every runtime command recorded one by one; inputs: every endpoint event); compare writes no output log, and its reports are the same either way', collectTrace)
    .option('--json', 'print a JSON list of reports, one per strategy in --strategies order, instead of the table')
    .option('--no-progress', 'no progress output on stderr while a long run replays')
    .option('--explain-settings', "print each strategy's settings, their values and sources, as run does, and exit 0 without running")
    .action((file: string, opts: CompareOptions) => {
      if (opts.set?.['router.strategy'] !== undefined) throw new InputError('--set', 'compare runs every strategy of --strategies: router.strategy cannot be set too');
      // The router's env may name a config manager; compare still runs each strategy it is asked for.
      const overrides = buildOverrides(opts);
      // Every run's input is loaded (and checked) before any runs.
      const inputs = opts.strategies.map((strategy) => {
        // --strategies is the top layer: it wins over a config manager the env names.
        const { set, ...rest } = overrides;
        const strategies: SettingsLayer = { origin: '--strategies', assignments: [{ key: 'router.strategy', value: strategy, source: `--strategies ${opts.strategies.join(',')}` }] };
        return { strategy, input: loadRunInput(file, { ...rest, layers: [...(rest.layers ?? []), setLayer(set ?? {}), strategies] }) };
      });
      if (opts.explainSettings) {
        const explanations = inputs.map(({ strategy, input }) => explainSettings(input, `${input.name} under ${strategy}`));
        process.stdout.write(opts.json ? explanationsJson(explanations) : renderExplanations(explanations));
        process.exitCode = EXIT.pass;
        return;
      }
      const reports = inputs.map(({ strategy, input }) =>
        withStderrProgress(`${input.name} under ${strategy}`, opts.progress !== false, (observers) => runOne(input, undefined, observers, opts.trace === undefined ? {} : { trace: opts.trace }).report),
      );
      if (opts.json) process.stdout.write(JSON.stringify(reports, null, 2) + '\n');
      else {
        process.stdout.write(renderCompareTable(reports));
        // A FAIL in the table says which run; these lines say why, and how to run it alone.
        const failures = reports.filter((r) => !r.pass).map((r) => failureLines(r).join('\n'));
        if (failures.length > 0) process.stdout.write(`\n${failures.join('\n\n')}\n`);
      }
      process.exitCode = reports.every((r) => r.pass) ? EXIT.pass : EXIT.fail;
    });
}
