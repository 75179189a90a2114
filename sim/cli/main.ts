import { Command, CommanderError } from 'commander';
import { BudgetSyntaxError } from '../../reports/budgets.ts';
import { InputError } from '../eventlog/input-error.ts';
import { registerBaselineCommand } from './baseline-command.ts';
import { registerCompareCommand } from './compare-command.ts';
import { EXIT } from './exit-codes.ts';
import { registerExpandCommand } from './expand-command.ts';
import { registerImportCommand } from './import-command.ts';
import { registerLiveCommand } from './live-command.ts';
import { registerMockHaproxyCommand } from './mock-haproxy-command.ts';
import { registerReportCommand } from './report-command.ts';
import { registerRunCommand } from './run-command.ts';
import { registerSweepCommands } from './sweep-command.ts';

const program = new Command('routerbench')
  .description('Deterministic simulation and test bench for HAProxy-based routers: reloads by reason, VRRP failover latency.')
  .version('0.1.0')
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)');

for (const register of [registerRunCommand, registerReportCommand, registerCompareCommand, registerBaselineCommand, registerExpandCommand, registerImportCommand, registerMockHaproxyCommand, registerSweepCommands, registerLiveCommand]) {
  register(program);
}
const exitOverrideAll = (c: Command): void => {
  c.exitOverride();
  c.commands.forEach(exitOverrideAll);
};
exitOverrideAll(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.exitCode = exitCodeFor(err);
}

/** Usage and input problems are the user's to fix (2); anything else is our bug (3), shown with its stack. */
function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.pass;
    return EXIT.input;
  }
  if (err instanceof InputError || err instanceof BudgetSyntaxError) {
    process.stderr.write(`routerbench: ${err.message}\n`);
    return EXIT.input;
  }
  process.stderr.write(`routerbench: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT.internal;
}
