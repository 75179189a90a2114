import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { compareWithBaseline, reportShapeError, type Tolerance } from '../../reports/baseline.ts';
import type { Report } from '../../reports/report.ts';
import { renderHtmlReport } from '../../reports/render/html.ts';
import { renderJUnit } from '../../reports/render/junit.ts';
import { renderMarkdownSummary } from '../../reports/render/markdown.ts';
import { outcomePasses, type ScenarioOutcome } from '../../reports/render/outcome.ts';
import { renderSummaryTable } from '../../reports/render/terminal.ts';
import { createTimelineProjection } from '../../reports/timeline.ts';
import { InputError } from '../eventlog/input-error.ts';
import { expandInputPaths, loadRunInput, type InputOverrides } from '../load-input.ts';
import { JsonlFileSink, nullSink, type OutputSink } from '../output/output-sink.ts';
import { parseRouterDeployment, parseRouterEnv } from '../router-env.ts';
import { headerOf, runOne } from '../run.ts';
import type { RunInput } from '../run-input.ts';
import { EXIT } from './exit-codes.ts';
import { collectList, collectSet, parseSeed } from './scenario-options.ts';
import { writeFileAtomic } from './write-outputs.ts';

interface RunOptions {
  seed?: number;
  set?: Record<string, string>;
  env?: string[];
  routerDeployment?: string;
  budget?: string[];
  out?: string;
  baseline?: string;
  tolerance?: string[];
  json?: boolean;
}

export function registerRunCommand(program: Command): Command {
  return program
    .command('run')
    .description('run scenario files (.yaml), event logs (.jsonl) or directories of scenarios; exit 0 pass, 1 fail, 2 bad input, 3 internal error')
    .argument('<inputs...>', 'scenario files, event logs, or directories holding *.yaml scenarios')
    .option('--seed <n>', 'run seed, overriding the scenario (0..4294967295)', parseSeed)
    .option('--set <key=value>', 'override a setting by dotted key, e.g. router.strategy=dcm-slots (repeatable)', collectSet)
    .option('--env <NAME=VALUE>', "a router environment variable, parsed as the router does (ROUTER_MAX_DYNAMIC_SERVERS=3; repeatable)", collectList)
    .option('--router-deployment <file>', 'take router settings from a Deployment manifest (oc get deploy/router-default -o yaml)')
    .option('--budget <expr>', "an extra budget, e.g. 'reloads.total<=2' (repeatable)", collectList)
    .option('--out <dir>', 'write report.json, output.jsonl, summary.md, junit.xml and report.html here')
    .option('--baseline <path>', 'compare with a baseline report.json (or a directory of <scenario>/report.json); regressions fail')
    .option('--tolerance <metric=pct>', "allowed regression for a metric, e.g. failover.latencyMs.p99=5% (repeatable)", collectList)
    .option('--json', 'print the report(s) as JSON instead of the table')
    .action((inputs: string[], opts: RunOptions) => {
      process.exitCode = runCommand(inputs, opts);
    });
}

export function runCommand(paths: string[], opts: RunOptions): number {
  const overrides = buildOverrides(opts);
  // Load and validate every input before running anything: a bad file fails fast and writes nothing.
  const inputs = expandInputPaths(paths).map((p) => loadRunInput(p, overrides));
  const names = uniqueNames(inputs);
  const single = inputs.length === 1;
  const dirOf = (i: number): string | undefined => (opts.out === undefined ? undefined : single ? opts.out : join(opts.out, names[i]!));
  const tolerances: Array<Tolerance | string> = opts.tolerance ?? [];
  const outcomes: ScenarioOutcome[] = [];
  const sinks: OutputSink[] = [];
  const createdDirs: string[] = [];
  const pages: Array<[string, string]> = [];
  try {
    inputs.forEach((input, i) => {
      if (!single) process.stderr.write(`[${i + 1}/${inputs.length}] ${input.name}\n`);
      const dir = dirOf(i);
      let sink: OutputSink = nullSink;
      if (dir !== undefined) {
        const created = mkdirSync(dir, { recursive: true });
        if (created !== undefined) createdDirs.push(created);
        sink = new JsonlFileSink(join(dir, 'output.jsonl'), headerOf(input));
      }
      sinks.push(sink);
      const timeline = createTimelineProjection();
      const { report } = runOne(input, sink, dir === undefined ? [] : [timeline]);
      const outcome: ScenarioOutcome = { report };
      const baseline = opts.baseline === undefined ? undefined : readBaseline(opts.baseline, names[i]!, single);
      if (baseline !== undefined) outcome.comparison = compareWithBaseline(report, baseline, tolerances);
      outcomes.push(outcome);
      if (dir !== undefined) pages.push([join(dir, 'report.html'), renderHtmlReport(outcome, timeline.result())]);
    });
  } catch (err) {
    for (const s of sinks) s.abort();
    // Leave no trace of a run that did not complete: only directories this command made, only if empty.
    for (const d of createdDirs.reverse()) rmEmptyTree(d);
    throw err;
  }
  for (const s of sinks) s.commit();
  outcomes.forEach((o, i) => {
    const dir = dirOf(i);
    if (dir !== undefined) writeFileAtomic(join(dir, 'report.json'), JSON.stringify(o.report, null, 2) + '\n');
  });
  for (const [path, html] of pages) writeFileAtomic(path, html);
  const markdown = renderMarkdownSummary(outcomes);
  if (opts.out !== undefined) {
    writeFileAtomic(join(opts.out, 'summary.md'), markdown);
    writeFileAtomic(join(opts.out, 'junit.xml'), renderJUnit(outcomes));
  }
  if (process.env['GITHUB_STEP_SUMMARY']) appendFileSync(process.env['GITHUB_STEP_SUMMARY'], markdown);
  const reports = outcomes.map((o) => ({ ...o.report, pass: outcomePasses(o) }));
  if (opts.json) process.stdout.write(JSON.stringify(single ? reports[0] : reports, null, 2) + '\n');
  else process.stdout.write(renderSummaryTable(reports));
  for (const o of outcomes) if (o.comparison && !o.comparison.pass) process.stdout.write(describeRegression(o));
  return outcomes.every(outcomePasses) ? EXIT.pass : EXIT.fail;
}

function buildOverrides(opts: RunOptions): InputOverrides {
  const set: Record<string, string> = {};
  const warn = (w: string): void => void process.stderr.write(`warning: ${w}\n`);
  if (opts.routerDeployment !== undefined) {
    let text: string;
    try {
      text = readFileSync(opts.routerDeployment, 'utf8');
    } catch {
      throw new InputError(opts.routerDeployment, 'cannot read the Deployment manifest');
    }
    const r = parseRouterDeployment(text);
    r.warnings.forEach(warn);
    for (const [k, v] of Object.entries(r.settings)) set[`router.${k}`] = String(v);
  }
  if (opts.env !== undefined) {
    const pairs = opts.env.map((e): [string, string] => {
      const eq = e.indexOf('=');
      if (eq <= 0) throw new InputError('--env', `expected NAME=VALUE, got '${e}'`);
      return [e.slice(0, eq), e.slice(eq + 1)];
    });
    const r = parseRouterEnv(pairs);
    r.warnings.forEach(warn);
    for (const [k, v] of Object.entries(r.settings)) set[`router.${k}`] = String(v);
  }
  Object.assign(set, opts.set ?? {});
  const o: InputOverrides = { set };
  if (opts.seed !== undefined) o.seed = opts.seed;
  if (opts.budget !== undefined) o.budgets = opts.budget;
  return o;
}

function uniqueNames(inputs: readonly RunInput[]): string[] {
  const seen = new Map<string, number>();
  return inputs.map((i) => {
    const base = i.name.replace(/[^A-Za-z0-9._-]+/g, '-');
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}-${n}`;
  });
}

function readBaseline(path: string, name: string, single: boolean): Report | undefined {
  let file = path;
  if (existsSync(path) && statSync(path).isDirectory()) {
    file = single && existsSync(join(path, 'report.json')) ? join(path, 'report.json') : join(path, name, 'report.json');
    if (!existsSync(file)) return undefined;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError(file, `cannot read the baseline report (${(err as Error).message})`);
  }
  const problem = reportShapeError(raw);
  if (problem !== null) throw new InputError(file, `not a routerbench report.json: ${problem}`);
  return raw as Report;
}

function describeRegression(o: ScenarioOutcome): string {
  const c = o.comparison!;
  const lines = [`\nregression against baseline in ${o.report.scenario}:`];
  for (const m of c.rows.filter((x) => x.verdict === 'regressed')) {
    lines.push(`  ${m.path}: ${m.baseline ?? 'n/a'} → ${m.actual ?? 'n/a'}`);
  }
  lines.push(`  reproduce: ${o.report.reproduce}`);
  return lines.join('\n') + '\n';
}

function rmEmptyTree(dir: string): void {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) rmEmptyTree(join(dir, e.name));
  if (readdirSync(dir).length === 0) rmdirSync(dir);
}
