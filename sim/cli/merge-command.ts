import { existsSync, realpathSync } from 'node:fs';
import type { Command } from 'commander';
import { InputError } from '../eventlog/input-error.ts';
import { mergeSweepDirs } from '../sweep/merge.ts';
import { readSweepDir } from '../sweep/outputs.ts';
import { checkSweepOut, finishSweep } from './sweep-outcome.ts';

interface MergeOptions {
  out?: string;
  json?: boolean;
}

export function registerMergeCommand(program: Command): Command {
  return program
    .command('merge')
    .description('combine the output directories of `routerbench sweep --shard i/n` (or `routerbench explore --shard i/n`) into the result of one unsharded sweep (or exploration), written to --out (required); exit codes as sweep (or explore)')
    .argument('<dirs...>', 'the shards\' --out directories')
    // Commander lists a required option among the optional ones, unmarked: the usage line and text say it.
    .usage('<dirs...> --out <dir> [--json]')
    .requiredOption('--out <dir>', 'required: write the merged runs.csv, runs.json, sweep.json and sweep.html here')
    .option('--json', 'print sweep.json instead of the summary')
    .action(async (dirs: string[], opts: MergeOptions) => {
      // The shards of `explore --shard i/n` merge here too: their directories hold explore.json.
      const explore = await import('./explore-command.ts');
      if (dirs.length > 0 && dirs.every(explore.isExploreDir)) {
        checkOutIsNoShard(opts.out, dirs);
        process.exitCode = explore.mergeExploreDirs(dirs, opts.out!);
        return;
      }
      checkSweepOut(opts.out);
      checkOutIsNoShard(opts.out, dirs);
      process.exitCode = finishSweep(mergeSweepDirs(dirs.map(readSweepDir)), opts);
    });
}

/** Merging into one of the shards would overwrite its runs.json and sweep.json with the merge: refused. */
function checkOutIsNoShard(out: string | undefined, dirs: readonly string[]): void {
  if (out === undefined || !existsSync(out)) return;
  const target = realpathSync(out);
  for (const d of dirs) {
    if (existsSync(d) && realpathSync(d) === target) {
      throw new InputError('--out', `${out} is one of the shards being merged (${d}); its files would be overwritten: write the merge to another directory`);
    }
  }
}
