import { Help } from 'commander';
import { expect, test } from 'vitest';
import { buildProgram, COMMANDS } from './commands.ts';

test('every command listed in --help is the command its module registers, under the same term', async () => {
  const help = new Help();
  for (const entry of COMMANDS) {
    const program = await buildProgram([entry.name]);
    const real = program.commands.find((c) => c.name() === entry.name)!;
    // Registered for real: it has an action or subcommands, which a stub has not.
    expect({ name: entry.name, real: real.commands.length > 0 || real.options.length > 0 || real.registeredArguments.length > 0 }).toEqual({ name: entry.name, real: true });
    expect(help.subcommandTerm(real)).toBe(entry.term);
  }
});

test('--help loads no command and lists them all, in order', async () => {
  const program = await buildProgram(['--help']);
  expect(program.commands.map((c) => c.name())).toEqual(COMMANDS.map((c) => c.name));
  const text = program.helpInformation();
  for (const c of COMMANDS) expect(text).toContain(c.term);
  expect(program.commands.every((c) => c.options.length === 0 && c.registeredArguments.length === 0)).toBe(true);
});

test('help <command> and options before the command load that command', async () => {
  for (const args of [['help', 'sweep'], ['--no-such', 'merge']]) {
    const program = await buildProgram(args);
    expect(program.commands.find((c) => c.name() === args[1])!.options.length).toBeGreaterThan(0);
  }
});
