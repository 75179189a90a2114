import { extname } from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../eventlog/input-error.ts';
import { checkSize } from '../load-input.ts';
import { loadScenario } from '../scenario/load-scenario.ts';
import { eventLogHeader, writeEventLogFileInterruptibly, writeEventLogToStream } from './event-log-writer.ts';
import { EXIT_INTERRUPTED } from './exit-codes.ts';
import { collectSet, parseSeed } from './scenario-options.ts';

interface ExpandOptions {
  seed?: number;
  set?: Record<string, string>;
  output?: string;
  allowLarge?: boolean;
}

/**
 * `routerbench expand <scenario>`: the v1 event log a scenario runs (inline events, its event log file and
 * generated churn, merged), to stdout or a file. Bad input throws InputError (exit code 2 in main).
 */
export function registerExpandCommand(program: Command): Command {
  return program
    .command('expand')
    .description('write the v1 event log a scenario expands to (inline events, its log file and generated churn)')
    .argument('<scenario>', 'scenario file (.yaml)')
    .option('--seed <n>', 'run seed (overrides the scenario)', parseSeed)
    .option('--set <key=value>', 'override a setting by its dotted key, or the scenario\'s workload by generate.<path> (repeatable)', collectSet)
    .option('-o, --output <file>', 'write to a file (atomically) instead of stdout; Ctrl-C leaves nothing there (exit 130)')
    .option('--allow-large', 'expand a scenario whose estimated events or output exceed the limits (docs/limits.md)')
    .action(async (scenario: string, opts: ExpandOptions) => {
      const overrides: { seed?: number; set?: Record<string, string> } = {};
      if (opts.seed !== undefined) overrides.seed = opts.seed;
      if (opts.set !== undefined) overrides.set = opts.set;
      if (extname(scenario) === '.jsonl') throw new InputError(scenario, 'is an event log already; expand turns a scenario file (.yaml) into one');
      const input = loadScenario(scenario, overrides);
      // The log holds what a run would replay: the same estimate, the same limits.
      if (opts.allowLarge !== true) checkSize(scenario, input, { kind: 'event log' });
      // Everything a run of the log needs besides the events, so `routerbench run expanded.jsonl` can match the scenario.
      const header = eventLogHeader({
        source: scenario,
        scenario: input.name,
        seed: input.settings.seed,
        settings: input.settings,
        ...(input.cluster !== undefined && { cluster: input.cluster }),
        budgets: input.budgets,
      });
      if (opts.output !== undefined) {
        // Half a scenario's log is no log of it: Ctrl-C leaves nothing behind.
        if (await writeEventLogFileInterruptibly(opts.output, header, input.events(), 'discard')) process.exitCode = EXIT_INTERRUPTED;
      } else await writeEventLogToStream(process.stdout, header, input.events());
    });
}
