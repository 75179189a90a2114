import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { renderCompareTable } from '../../reports/render/compare-table.ts';
import { STRATEGY_NAMES, type StrategyName } from '../../core/strategy.ts';
import { loadRunInput } from '../load-input.ts';
import { runOne } from '../run.ts';
import { EXIT } from './exit-codes.ts';
import { withStderrProgress } from './run-progress.ts';
import { collectSet, parseSeed } from './scenario-options.ts';

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
    .option('--set <key=value>', 'override a setting by dotted key (repeatable)', collectSet)
    .option('--json', 'print the reports as JSON')
    .option('--no-progress', 'no progress output on stderr while a long run replays')
    .action((file: string, opts: { strategies: StrategyName[]; seed?: number; set?: Record<string, string>; json?: boolean; progress?: boolean }) => {
      const reports = opts.strategies.map((strategy) => {
        const input = loadRunInput(file, { ...(opts.seed !== undefined && { seed: opts.seed }), set: { ...opts.set, 'router.strategy': strategy } });
        return withStderrProgress(`${input.name} under ${strategy}`, opts.progress !== false, (observers) => runOne(input, undefined, observers).report);
      });
      process.stdout.write(opts.json ? JSON.stringify(reports, null, 2) + '\n' : renderCompareTable(reports));
      process.exitCode = reports.every((r) => r.pass) ? EXIT.pass : EXIT.fail;
    });
}
