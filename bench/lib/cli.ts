import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { STRATEGY_NAMES } from '../../core/strategy.ts';

/**
 * The command line of a bench script, with commander as the CLI has it: `--help` prints the usage, the
 * options and what the script prints (exit 0); an unknown option, a surplus or missing argument or a bad
 * value is a usage error (exit 2), said on stderr before anything is measured.
 */
export function benchCommand(name: string, about: string, prints: string): Command {
  return new Command(name)
    .description(about)
    .addHelpText('after', `\nPrints:\n${wrap(prints, 78, '  ')}`)
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
}

/** Parses `argv` (the script's own arguments) into `cmd`, or exits: 0 after --help, 2 on a usage error. */
export function parseBenchArgs(cmd: Command, argv: readonly string[] = process.argv.slice(2)): Command {
  try {
    cmd.parse([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
    throw err;
  }
  return cmd;
}

/** An option parser for an integer in [min, max]. */
export function intIn(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`an integer from ${min} to ${max}`);
    return n;
  };
}

/** The strategies named as arguments, checked, or `dflt` when none is. */
export function strategiesOf(args: readonly string[], dflt: readonly string[]): string[] {
  for (const a of args) {
    if (!(STRATEGY_NAMES as readonly string[]).includes(a)) {
      console.error(`error: unknown strategy '${a}'; one of ${STRATEGY_NAMES.join(', ')}`);
      process.exit(2);
    }
  }
  return args.length > 0 ? [...args] : [...dflt];
}

/** An option parser for `a,b`: two integers in [min, max], the smaller first. */
export function intPair(min: number, max: number): (value: string) => [number, number] {
  const one = intIn(min, max);
  return (value) => {
    const parts = value.split(',');
    if (parts.length !== 2) throw new InvalidArgumentError(`two integers from ${min} to ${max}, smaller first, e.g. ${min},${max}`);
    const [a, b] = parts.map(one) as [number, number];
    if (a >= b) throw new InvalidArgumentError('the smaller count first');
    return [a, b];
  };
}

/** Words of `text` in lines of at most `width` characters (a longer word has a line of its own), each indented. */
function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(indent + line);
  return lines.join('\n');
}

/** True when `moduleUrl` (a module's import.meta.url) is the script node was started with, not an import. */
export function isMainModule(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(moduleUrl);
}
