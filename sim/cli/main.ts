import { CommanderError } from 'commander';
import { buildProgram } from './commands.ts';
import { EXIT } from './exit-codes.ts';
import { limitHeapGrowth } from './heap-growth.ts';

limitHeapGrowth();

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

// A reader that goes away (`| head`) is no error of the command's: it goes on and writes its files, and its
// verdict stays in the exit code. Any other failure to write stdout still ends it.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
});

try {
  const program = await buildProgram(process.argv.slice(2));
  await program.parseAsync(process.argv);
} catch (err) {
  process.exitCode = await exitCodeFor(err);
}

/** Usage and input problems are the user's to fix (2); anything else is our bug (3), shown with its stack. */
async function exitCodeFor(err: unknown): Promise<number> {
  if (err instanceof CommanderError) {
    // `--help` and `--version` succeed; help shown because no command was given (exit code 1 in commander) is a usage error.
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return err.exitCode === 0 ? EXIT.pass : EXIT.input;
    return EXIT.input;
  }
  // Loaded only now: the error classes' modules are not needed on the way to a verdict.
  const [{ InputError }, { BudgetSyntaxError }, { CfgParseError }] = await Promise.all([import('../eventlog/input-error.ts'), import('../../reports/budgets.ts'), import('../haproxy/cfg-parser.ts')]);
  if (err instanceof InputError || err instanceof BudgetSyntaxError || err instanceof CfgParseError) {
    // Several problems (InputErrors) are a line each, each prefixed, so that each reads (and annotates) alone.
    process.stderr.write(err.message.split('\n').map((line) => `routerbench: ${line}\n`).join(''));
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
