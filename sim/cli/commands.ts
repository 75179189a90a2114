import { Command, Help } from 'commander';

/** What registers one module's commands on the program. */
type Register = (program: Command) => unknown;

interface CommandEntry {
  name: string;
  /** As the top-level help lists it (commander's own term for the registered command; a test holds them equal). */
  term: string;
  /** One line; the command's own `--help` says the rest (exit codes included). */
  summary: string;
  load: () => Promise<Register>;
}

/**
 * Every command, in the order `--help` lists them. A command's module (and what it imports: the engine, zod,
 * chart.js) is loaded only when that command runs or shows its help, so `--version` and `--help` start
 * in a tenth of a second.
 */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'run', term: 'run [options] <inputs...>', summary: 'run scenario files, event logs or directories of scenarios and judge their budgets', load: async () => (await import('./run-command.ts')).registerRunCommand },
  { name: 'report', term: 'report [options] <output-log>', summary: "rebuild report.json from a run's output log without simulating again", load: async () => (await import('./report-command.ts')).registerReportCommand },
  { name: 'compare', term: 'compare [options] <input>', summary: 'run one input under several strategies and print reloads by reason side by side', load: async () => (await import('./compare-command.ts')).registerCompareCommand },
  { name: 'baseline', term: 'baseline', summary: 'manage baseline reports for `run --baseline`', load: async () => (await import('./baseline-command.ts')).registerBaselineCommand },
  { name: 'expand', term: 'expand [options] <scenario>', summary: 'write the v1 event log a scenario expands to', load: async () => (await import('./expand-command.ts')).registerExpandCommand },
  { name: 'import', term: 'import [options] [input]', summary: 'turn a Kubernetes watch stream into a v1 event log', load: async () => (await import('./import-command.ts')).registerImportCommand },
  { name: 'mock-haproxy', term: 'mock-haproxy [options]', summary: 'serve the mocked HAProxy 2.6 runtime API on a unix socket', load: async () => (await import('./mock-haproxy-command.ts')).registerMockHaproxyCommand },
  { name: 'sweep', term: 'sweep [options] <input>', summary: 'run a scenario over a grid of settings × seeds and recommend the smallest settings that meet the budget', load: loadSweep },
  { name: 'merge', term: 'merge [options] <dirs...>', summary: 'combine the outputs of `sweep --shard i/n` into one sweep', load: loadSweep },
  { name: 'shrink', term: 'shrink [options] <input>', summary: 'cut a failing scenario or event log to a 1-minimal event log that fails the same way', load: async () => (await import('./shrink-command.ts')).registerShrinkCommand },
  { name: 'explore', term: 'explore [options]', summary: 'find property violations in seeded random runs with faults and shrink each to a minimal scenario', load: async () => (await import('./explore-command.ts')).registerExploreCommand },
  { name: 'live', term: 'live [options] <input>', summary: 'replay a scenario or event log against a real HAProxy in real time', load: async () => (await import('./live-command.ts')).registerLiveCommand },
];

async function loadSweep(): Promise<Register> {
  return (await import('./sweep-command.ts')).registerSweepCommands;
}

export const VERSION = '0.1.0';

/**
 * The program for these arguments: the command they name (or `help <command>` names) registered for real,
 * every other one as a stub that only lists itself in `--help`.
 */
export async function buildProgram(args: readonly string[]): Promise<Command> {
  const named = args[0] === 'help' ? args[1] : args.find((a) => !a.startsWith('-'));
  const wanted = COMMANDS.find((c) => c.name === named);
  const program = new Command('routerbench')
    .description('Deterministic simulation and test bench for HAProxy-based routers: reloads by reason, VRRP failover latency.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', '\nRun `routerbench <command> --help` for its options and exit codes.');
  const stubs = new Map<Command, string>();
  const registered = new Set<Register>();
  for (const entry of COMMANDS) {
    if (wanted !== undefined && wanted.load === entry.load) {
      const register = await entry.load();
      // sweep and merge share a module: it registers both at once.
      if (!registered.has(register)) register(program);
      registered.add(register);
      continue;
    }
    stubs.set(program.command(entry.name).description(entry.summary), entry.term);
  }
  const help = new Help();
  const summaries = new Map(COMMANDS.map((c) => [c.name, c.summary]));
  program.configureHelp({
    subcommandTerm: (cmd) => stubs.get(cmd) ?? help.subcommandTerm(cmd),
    // The list stays the same whichever command was loaded: summaries, not the commands' long descriptions.
    subcommandDescription: (cmd) => summaries.get(cmd.name()) ?? help.subcommandDescription(cmd),
  });
  const exitOverrideAll = (c: Command): void => {
    c.exitOverride();
    c.commands.forEach(exitOverrideAll);
  };
  exitOverrideAll(program);
  return program;
}
