import type { Command } from 'commander';
import { mergeSweepDirs } from '../sweep/merge.ts';
import { readSweepDir } from '../sweep/outputs.ts';
import { checkSweepOut, finishSweep } from './sweep-command.ts';

interface MergeOptions {
  out?: string;
  json?: boolean;
}

export function registerMergeCommand(program: Command): Command {
  return program
    .command('merge')
    .description('combine the output directories of `routerbench sweep --shard i/n` into the result of one unsharded sweep, written to --out (required); exit codes as sweep')
    .argument('<dirs...>', 'the shards\' --out directories')
    // Commander lists a required option among the optional ones, unmarked: the usage line and text say it.
    .usage('<dirs...> --out <dir> [--json]')
    .requiredOption('--out <dir>', 'required: write the merged runs.csv, runs.json, sweep.json and sweep.html here')
    .option('--json', 'print sweep.json instead of the summary')
    .action((dirs: string[], opts: MergeOptions) => {
      checkSweepOut(opts.out);
      process.exitCode = finishSweep(mergeSweepDirs(dirs.map(readSweepDir)), opts);
    });
}
