import { existsSync } from 'node:fs';
import { readInputFile } from '../eventlog/regular-file.ts';
import { join } from 'node:path';
import type { Command } from 'commander';
import { compareWithBaseline, reportShapeError } from '../../reports/baseline.ts';
import type { Report } from '../../reports/report.ts';
import { expandInputPaths, loadRunInput } from '../load-input.ts';
import { runOne } from '../run.ts';
import { EXIT } from './exit-codes.ts';
import { outputDirNames } from './output-dir-names.ts';
import { buildOverrides } from './run-command.ts';
import { collectList, collectSet, parseSeed } from './scenario-options.ts';
import { writeFileAtomic } from './write-outputs.ts';

interface UpdateOptions {
  baseline: string;
  seed?: number;
  set?: Record<string, string>;
  env?: string[];
  routerDeployment?: string;
}

/**
 * `routerbench baseline update <inputs...> --baseline DIR`: runs the inputs and rewrites their baseline
 * reports, in the layout `run --baseline DIR` reads: DIR/<scenario>/report.json, for one input as for several,
 * so that updating one scenario leaves the suite's other baselines in place. Every input loads and runs before anything is written; prints what moved against the old
 * baseline. Accepting new numbers is the point, so a failing budget does not stop it (exit 0).
 */
export function registerBaselineCommand(program: Command): Command {
  const baseline = program.command('baseline').description('manage baseline reports for `run --baseline`');
  baseline
    .command('update')
    .description('run the inputs and rewrite their baseline report.json files')
    .argument('<inputs...>', 'scenario files, event logs, or directories holding *.yaml scenarios')
    .requiredOption('--baseline <dir>', 'the baseline directory (as given to run --baseline)')
    .option('--seed <n>', 'run seed, overriding the scenario', parseSeed)
    .option('--set <key=value>', 'override a setting by dotted key (repeatable)', collectSet)
    .option('--env <NAME=VALUE>', "a router environment variable, parsed as the router does (ROUTER_MAX_DYNAMIC_SERVERS=3; repeatable)", collectList)
    .option('--router-deployment <file>', 'take router settings from a Deployment manifest (oc get deploy/router-default -o yaml)')
    .action((inputs: string[], opts: UpdateOptions) => {
      process.exitCode = updateBaselines(inputs, opts, (line) => process.stdout.write(`${line}\n`));
    });
  return baseline;
}

export function updateBaselines(paths: string[], opts: UpdateOptions, say: (line: string) => void): number {
  // The same precedence and warnings as `run` (deployment < --env < --set), so that a baseline written under a
  // router's environment is the report `run` gives under that environment.
  const overrides = buildOverrides(opts);
  const inputs = expandInputPaths(paths).map((p) => loadRunInput(p, overrides));
  const names = outputDirNames(inputs);
  const written = inputs.map((input, i) => {
    const file = join(opts.baseline, names[i]!, 'report.json');
    return { file, report: runOne(input).report };
  });
  for (const { file, report } of written) {
    const old = readOld(file);
    writeFileAtomic(file, `${JSON.stringify(report, null, 2)}\n`);
    if (old === undefined) {
      const p99 = report.failover.latencyMs.p99;
      say(`${file}: new baseline (${report.reloads.total} reloads, ${p99 === null ? 'no failover' : `failover p99 ${p99} ms`})`);
      continue;
    }
    const moved = compareWithBaseline(report, old).rows.filter((r) => r.verdict !== 'same');
    say(`${file}: ${moved.length === 0 ? 'unchanged' : moved.map((r) => `${r.path} ${r.baseline ?? '-'} → ${r.actual ?? '-'}`).join(', ')}`);
  }
  return EXIT.pass;
}

/** The old baseline, if one is there and readable as a report; anything else is simply replaced. */
function readOld(file: string): Report | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const raw: unknown = JSON.parse(readInputFile(file, 'a baseline report').toString('utf8'));
    return reportShapeError(raw) === null ? (raw as Report) : undefined;
  } catch {
    return undefined;
  }
}
