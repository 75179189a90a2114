import { Command, CommanderError } from 'commander';
import { BudgetSyntaxError } from '../../reports/budgets.ts';
import { InputError } from '../eventlog/input-error.ts';
import { CfgParseError } from '../haproxy/cfg-parser.ts';
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

/**
 * A file or directory the user named that cannot be read or written (missing, a directory where a file
 * should be, a file in the way of a directory, no permission): their input to fix, not our bug. Commands
 * name the path in their own messages where they can; this catches the rest.
 */
const PATH_ERRORS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'is a directory, a file was expected',
  ENOTDIR: 'a path component is a file, not a directory',
  EEXIST: 'already exists and is in the way',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENAMETOOLONG: 'name too long',
  ELOOP: 'too many symbolic links',
};

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
    // `--help` and `--version` succeed; help shown because no command was given (exit code 1 in commander) is a usage error.
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return err.exitCode === 0 ? EXIT.pass : EXIT.input;
    return EXIT.input;
  }
  if (err instanceof InputError || err instanceof BudgetSyntaxError || err instanceof CfgParseError) {
    process.stderr.write(`routerbench: ${err.message}\n`);
    return EXIT.input;
  }
  const pathError = userPathError(err);
  if (pathError !== undefined) {
    process.stderr.write(`routerbench: ${pathError}\n`);
    return EXIT.input;
  }
  process.stderr.write(`routerbench: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT.internal;
}

function userPathError(err: unknown): string | undefined {
  const e = err as NodeJS.ErrnoException;
  if (!(err instanceof Error) || typeof e.code !== 'string' || typeof e.path !== 'string') return undefined;
  const what = PATH_ERRORS[e.code];
  if (what === undefined) return undefined;
  return `${e.path}: ${what} (${e.code}${e.syscall === undefined ? '' : `, ${e.syscall}`})`;
}
