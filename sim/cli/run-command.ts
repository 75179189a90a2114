import { appendFileSync, existsSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, constants } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import Tinypool from 'tinypool';
import { compareWithBaseline, parseTolerance, type Tolerance } from '../../reports/baseline.ts';
import { BudgetSyntaxError } from '../../reports/budgets.ts';
import type { Report } from '../../reports/report.ts';
import { renderHtmlReport } from '../../reports/render/html.ts';
import { renderIndexHtml } from '../../reports/render/index-html.ts';
import { renderJUnit } from '../../reports/render/junit.ts';
import { renderMarkdownSummary } from '../../reports/render/markdown.ts';
import { outcomePasses, type ScenarioOutcome } from '../../reports/render/outcome.ts';
import { renderSummaryTable } from '../../reports/render/terminal.ts';
import { InputError } from '../eventlog/input-error.ts';
import { readInputFile } from '../eventlog/regular-file.ts';
import { isWorkerOutOfMemory, workerResourceLimits } from '../limits.ts';
import { notUtf8 } from '../eventlog/utf8.ts';
import { expandInputPaths, loadRunInput, progressLabel, type InputOverrides } from '../load-input.ts';
import { shellQuote } from '../scenario/load-scenario.ts';
import { parseRouterDeployment, parseRouterEnv, ROUTER_ENV_NAMES, type RouterEnvResult } from '../router-env.ts';
import type { SettingsLayer } from '../settings-layers.ts';
import { partialLogOf, runTask, taskError, type RunTask, type RunTaskResult } from '../parallel/run-task.ts';
import { RUN_WORKER } from '../parallel/worker-url.ts';
import type { RunInput } from '../run-input.ts';
import { baselineFile, readBaseline } from './baseline-files.ts';
import { EXIT } from './exit-codes.ts';
import { explainSettings, explanationsJson, renderExplanations } from './explain-settings.ts';
import { outputDirNames } from './output-dir-names.ts';
import { earlierOutputs, removeStale, RUN_FILES, type EarlierOutputs } from './reused-out-dir.ts';
import { withStderrProgress } from './run-progress.ts';
import type { TraceName } from '../output/records.ts';
import { collectList, collectSet, collectTrace, parseSeed, TRACE_HELP } from './scenario-options.ts';
import { budgetLines } from '../scenario/budget-lines.ts';
import { checkOutDir, checkOutputFiles, makeDirs, writeFileAtomic } from './write-outputs.ts';

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
  allowLarge?: boolean;
  /** false with --no-progress. */
  progress?: boolean;
  trace?: TraceName[];
  explainSettings?: boolean;
}

export function registerRunCommand(program: Command): Command {
  return program
    .command('run')
    .description('run scenario files (.yaml), event logs (.jsonl) or directories of scenarios; exit 0 pass, 1 fail, 2 bad input, 3 internal error')
    .argument('<inputs...>', 'scenario files, event logs, or directories holding *.yaml scenarios')
    .option('--seed <n>', 'run seed, overriding the scenario (0..4294967295)', parseSeed)
    .option('--set <key=value>', 'override a setting by dotted key, e.g. router.strategy=dcm-slots, or a scenario\'s workload by generate.<path>, e.g. generate.routes.createPerHour=120 (repeatable)', collectSet)
    .option('--env <NAME=VALUE>', "a router environment variable, parsed as the router does (ROUTER_MAX_DYNAMIC_SERVERS=3; repeatable)", collectList)
    .option('--router-deployment <file>', 'take router settings from a Deployment manifest (oc get deploy/router-default -o yaml)')
    .option('--budget <expr>', "an extra budget, e.g. 'reloads.total<=2' (repeatable)", collectList)
    .option('--out <dir>', 'write report.json, output.jsonl, summary.md, junit.xml and report.html here (several inputs: index.html and a directory per input); a reused directory may hold only an earlier run\'s outputs, which are replaced, the stale ones removed')
    .option('--baseline <path>', 'compare with a baseline report.json (or a directory of <scenario>/report.json); regressions fail')
    .option('--tolerance <metric=pct>', "allowed regression for a metric that can fail the comparison: relative, e.g. failover.latencyMs.p99=5%, or absolute, e.g. reloads.total=2 (repeatable)", collectList)
    .option('--trace <what>', TRACE_HELP, collectTrace)
    .option('--json', 'print a JSON list of reports, one per input in input order (a list even for one input), instead of the table')
    .option('--allow-large', 'run a scenario whose estimated events, memory or output exceed the limits (docs/limits.md)')
    .option('--no-progress', 'no progress on stderr (a single long run shows percent done and ETA where the input tells its length, events replayed and events/s: a bar on a terminal, a line every 10 s otherwise; several runs: a line per finished run)')
    .option(
      '--explain-settings',
      'print every setting, its value and its source (default, FILE:LINE of a scenario key or event log header, --router-deployment FILE:LINE NAME=VALUE, --env, --set, --seed) and exit 0 without running; with --json as JSON',
    )
    .action(async (inputs: string[], opts: RunOptions) => {
      process.exitCode = await runCommand(inputs, opts);
    });
}

export async function runCommand(paths: string[], opts: RunOptions): Promise<number> {
  if (opts.tolerance !== undefined && opts.baseline === undefined) {
    throw new InputError('--tolerance', 'applies to a comparison with baselines: give --baseline too');
  }
  // Read before any run: a typo in a tolerance should not wait for the whole suite.
  const tolerances: Tolerance[] = (opts.tolerance ?? []).map((t) => {
    try {
      return parseTolerance(t);
    } catch (err) {
      throw err instanceof BudgetSyntaxError ? new InputError('--tolerance', err.message) : err;
    }
  });
  const overrides = buildOverrides(opts);
  // run's --out holds output logs (shrink's is an event log): their size is held to the limit.
  if (opts.out !== undefined) overrides.outputLog = { trace: opts.trace ?? [] };
  // Load and validate every input before running anything: a bad file fails fast and writes nothing.
  const files = expandInputPaths(paths);
  const inputs = files.map((p) => loadRunInput(p, overrides));
  if (opts.explainSettings) {
    const explanations = inputs.map((i) => explainSettings(i));
    process.stdout.write(opts.json ? explanationsJson(explanations) : renderExplanations(explanations));
    return EXIT.pass;
  }
  const names = outputDirNames(inputs);
  const single = inputs.length === 1;
  // Baselines are read before any run too: a wrong one should not cost the runs first.
  const baselines = opts.baseline === undefined ? undefined : loadBaselines(opts.baseline, inputs, names, single);
  const dirOf = (i: number): string | undefined => (opts.out === undefined ? undefined : single ? opts.out : join(opts.out, names[i]!));
  if (opts.out !== undefined) {
    // Everything in the way of an output is found now: a failure after the runs would leave some files written.
    checkOutDir(opts.out);
    // Each run's own directory too: a file standing where one goes.
    if (!single) files.forEach((_, i) => checkOutDir(dirOf(i)!));
    checkOutputFiles([join(opts.out, 'summary.md'), join(opts.out, 'junit.xml'), ...(single ? [] : [join(opts.out, 'index.html')]), ...files.flatMap((_, i) => RUN_FILES.map((f) => join(dirOf(i)!, f)))]);
  }
  // A reused directory: an earlier run's outputs are replaced, and what it wrote that this run does not is
  // removed afterwards; anything else in it is refused now, before any run.
  const earlier: EarlierOutputs | undefined = opts.out === undefined ? undefined : earlierOutputs(opts.out);
  const createdDirs: string[] = [];
  let tasks: RunTask[];
  try {
    tasks = files.map((file, i) => {
      const dir = dirOf(i);
      if (dir !== undefined) {
        const created = makeDirs(dir);
        if (created !== undefined) createdDirs.push(created);
      }
      const task: RunTask = dir === undefined ? { file, overrides } : { file, overrides, dir };
      if (opts.trace !== undefined) task.trace = opts.trace;
      return task;
    });
  } catch (err) {
    for (const d of createdDirs.reverse()) rmEmptyTree(d);
    // A directory that cannot be made (under /proc, on a read-only mount): the flag's value, named as such.
    const e = err as NodeJS.ErrnoException;
    if (typeof e.code === 'string' && typeof e.path === 'string') {
      const why = { ENOENT: 'no such file or directory', EACCES: 'permission denied', EPERM: 'operation not permitted', EROFS: 'read-only file system' }[e.code] ?? e.code;
      throw new InputError(e.path, `cannot create the output directory (--out ${opts.out}): ${why} (${e.code})`);
    }
    throw err;
  }
  // Leave no trace of runs that did not all complete: their partial logs, and only the directories this
  // command made, only if empty. After a SIGKILL (or the main thread's own out-of-memory) nothing runs:
  // an `output.jsonl.partial` can remain then, never an `output.jsonl` (docs/limits.md).
  const cleanUp = (): void => {
    for (const t of tasks) {
      const partial = partialLogOf(t);
      if (partial !== undefined) rmSync(partial, { force: true });
    }
    for (const d of createdDirs.reverse()) rmEmptyTree(d);
  };
  let results: RunTaskResult[];
  const wallMs: number[] = [];
  try {
    results = await runTasks(tasks, inputs.map((i) => (single ? progressLabel(i) : i.name)), opts.progress !== false, wallMs);
  } catch (err) {
    cleanUp();
    if (err instanceof Interrupted) {
      process.stderr.write(`\nrouterbench: stopped by ${err.signal}; the unfinished runs' outputs were removed\n`);
      return 128 + constants.signals[err.signal];
    }
    throw outOfMemory(err, files) ?? err;
  }
  const failed = results.find((r): r is Extract<RunTaskResult, { ok: false }> => !r.ok);
  if (failed !== undefined) {
    cleanUp();
    throw taskError(failed);
  }
  const done = results as Array<Extract<RunTaskResult, { ok: true }>>;
  const judged: ScenarioOutcome[] = done.map((r, i) => {
    const outcome: ScenarioOutcome = { report: r.report };
    const baseline = baselines?.[i];
    if (baseline !== undefined) outcome.comparison = compareWithBaseline(r.report, baseline.report, tolerances);
    return outcome;
  });
  // What is printed with --json and written as report.json alike: the verdict counts the baseline comparison.
  const reports = judged.map((o, i) => reportWithVerdict(o, baselines?.[i]?.file, tolerances));
  // Every output shows that report (its reproduce line compares with the baseline again), the file it came
  // from, where that file states each budget, and how long the run took.
  const outcomes: ScenarioOutcome[] = judged.map((o, i) => ({
    ...o,
    report: reports[i]!,
    file: files[i]!,
    ...(isScenarioFile(files[i]!) && { budgetLines: budgetLines(readFileSync(files[i]!, 'utf8')) }),
    ...(wallMs[i] !== undefined && { wallMs: wallMs[i] }),
  }));
  done.forEach((r, i) => {
    const dir = dirOf(i);
    if (dir === undefined) return;
    if (r.partialLog !== null) renameSync(r.partialLog, join(dir, 'output.jsonl'));
    writeFileAtomic(join(dir, 'report.json'), JSON.stringify(reports[i], null, 2) + '\n');
    if (r.timeline !== null) writeFileAtomic(join(dir, 'report.html'), renderHtmlReport(outcomes[i]!, r.timeline));
  });
  const markdown = renderMarkdownSummary(outcomes);
  if (opts.out !== undefined) {
    writeFileAtomic(join(opts.out, 'summary.md'), markdown);
    writeFileAtomic(join(opts.out, 'junit.xml'), renderJUnit(outcomes));
    // Several runs: a page that leads to each one's report.html.
    if (!single) writeFileAtomic(join(opts.out, 'index.html'), renderIndexHtml(outcomes, names));
    const html = done[0]!.timeline !== null ? ['report.html'] : [];
    removeStale(earlier!, new Set(single ? ['output.jsonl', 'report.json', ...html, 'summary.md', 'junit.xml'] : ['summary.md', 'junit.xml', 'index.html', ...names]));
  }
  const stepSummary = process.env['GITHUB_STEP_SUMMARY'];
  if (stepSummary) {
    try {
      appendFileSync(stepSummary, markdown);
    } catch (err) {
      // The run's own outputs are written and its verdict stands; the CI page just lacks the table.
      process.stderr.write(`routerbench: cannot append the summary to $GITHUB_STEP_SUMMARY (${stepSummary}): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    }
  }
  // One shape whatever the number of inputs: a list of reports, in input order (docs/commands.md).
  if (opts.json) process.stdout.write(JSON.stringify(reports, null, 2) + '\n');
  else process.stdout.write(renderSummaryTable(reports));
  // Where the files went (on stderr under --json, whose stdout is the JSON alone).
  if (opts.out !== undefined) (opts.json ? process.stderr : process.stdout).write(`${wroteLine(opts.out, done.length, done.some((r) => r.timeline !== null))}\n`);
  // A baseline of another seed or strategy compares numbers that were never meant to match: say so.
  for (const o of outcomes) for (const w of o.comparison?.warnings ?? []) process.stderr.write(`${o.report.scenario}: ${w}\n`);
  return outcomes.every(outcomePasses) ? EXIT.pass : EXIT.fail;
}

/**
 * One input runs in this thread; several run in parallel on worker threads, one per core, with a progress
 * line per finished run (none with --no-progress). Results come back in input order whatever the finishing
 * order.
 */
async function runTasks(tasks: RunTask[], names: string[], showProgress: boolean, wallMs: number[]): Promise<RunTaskResult[]> {
  // A run that writes no file runs in this thread: a signal that ends it leaves nothing behind.
  if (tasks.length === 1 && tasks[0]!.dir === undefined) {
    const t0 = performance.now();
    const r = withStderrProgress(names[0]!, showProgress, (observers) => runTask(tasks[0]!, observers));
    wallMs[0] = performance.now() - t0;
    return [r];
  }
  // Runs that write files run on worker threads, even alone, so that this thread stays free to stop them on
  // Ctrl-C or SIGTERM (a timeout's) and remove what they were writing; a run alone shows its own progress.
  const alone = tasks.length === 1;
  if (alone && showProgress) {
    const columns = process.stderr.columns;
    tasks = [{ ...tasks[0]!, progress: { label: names[0]!, tty: process.stderr.isTTY === true, ...(columns !== undefined && { columns }) } }];
  }
  const workers = Math.max(1, Math.min(tasks.length, availableParallelism()));
  const limits = workerResourceLimits();
  const pool = new Tinypool({ filename: RUN_WORKER.href, maxThreads: workers, minThreads: workers, ...(limits !== undefined && { resourceLimits: limits }) });
  let finished = 0;
  const started = process.hrtime.bigint();
  // The pool starts tasks in order as threads free up: the first `workers` at once, each later one when a
  // run finishes. A run's wall time is from then to its own end.
  const startedAt: number[] = tasks.map((_, i) => (i < workers ? performance.now() : NaN));
  let nextQueued = workers;
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  let stop: ((signal: NodeJS.Signals) => void) | undefined;
  const interrupted = new Promise<never>((_, reject) => {
    stop = (signal) => reject(new Interrupted(signal));
  });
  for (const s of signals) process.on(s, stop!);
  try {
    const all = Promise.all(
      tasks.map(async (t, i) => {
        const r = (await pool.run(t)) as RunTaskResult;
        const now = performance.now();
        wallMs[i] = now - startedAt[i]!;
        if (nextQueued < tasks.length) startedAt[nextQueued++] = now;
        finished++;
        const s = Number(process.hrtime.bigint() - started) / 1e9;
        const verdict = r.ok ? (r.report.pass ? 'pass' : 'FAIL') : 'error';
        if (showProgress && !alone) process.stderr.write(`[${finished}/${tasks.length}] ${names[i]} ${verdict} (${s.toFixed(1)} s, ${workers} workers)\n`);
        return r;
      }),
    );
    // Once interrupted, the runs still going are given up: destroying the pool below ends them.
    all.catch(() => undefined);
    return await Promise.race([all, interrupted]);
  } finally {
    for (const s of signals) process.off(s, stop!);
    await pool.destroy();
  }
}

/**
 * deployment < --env < --set, warnings to stderr. The deployment and --env are layers below --set, each
 * setting sourced to its env entry or flag. Exported for `sweep` and `compare`, which take the same flags.
 */
export function buildOverrides(opts: RunOptions): InputOverrides {
  const layers: SettingsLayer[] = [];
  const warnings: string[] = [];
  const warn = (w: string): void => {
    process.stderr.write(`warning: ${w}\n`);
    warnings.push(w);
  };
  if (opts.routerDeployment !== undefined) {
    const file = opts.routerDeployment;
    let bytes: Buffer;
    try {
      bytes = readInputFile(file, 'a Deployment manifest');
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw new InputError(file, 'cannot read the Deployment manifest');
    }
    const bad = notUtf8(bytes);
    if (bad !== undefined) throw new InputError(file, bad.message, bad.line, undefined, bad.column);
    let r: ReturnType<typeof parseRouterDeployment>;
    try {
      r = parseRouterDeployment(bytes.toString('utf8'));
    } catch (err) {
      // Not YAML, or not a Deployment: the user's file, so a located input error (exit 2), not an internal one.
      // The yaml library ends its message with the place ("at line 4, column 1:") and a code frame: the
      // place goes where every message puts it.
      const at = (err as { linePos?: { line: number; col: number }[] }).linePos?.[0];
      // The library's advice for this one is to call it differently; the user's fix is in the file.
      const message =
        (err as { code?: unknown }).code === 'MULTIPLE_DOCS'
          ? "a Deployment manifest holds one YAML document, and a second one starts here ('---'): give the router's Deployment alone (oc get deploy/router-default -o yaml)"
          : (err as Error).message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      throw new InputError(file, message, at?.line, undefined, at?.col);
    }
    r.warnings.forEach(warn);
    layers.push(routerEnvLayer('--router-deployment', r, (v) => `--router-deployment ${file}:${r.lines?.[v.name] ?? 1} ${v.name}=${v.value}`));
  }
  if (opts.env !== undefined) {
    const pairs = opts.env.map((e): [string, string] => {
      const eq = e.indexOf('=');
      if (eq <= 0) throw new InputError('--env', `expected NAME=VALUE, got '${e}'`);
      return [e.slice(0, eq), e.slice(eq + 1)];
    });
    // Named one by one on the command line, an unknown name is most likely a typo: say so rather than ignore it.
    for (const [name] of pairs) {
      if (!ROUTER_ENV_NAMES.includes(name)) warn(`--env ${name}: not a router variable routerbench reads (${ROUTER_ENV_NAMES.join(', ')}); ignored`);
    }
    const r = parseRouterEnv(pairs);
    r.warnings.forEach(warn);
    layers.push(routerEnvLayer('--env', r, (v) => `--env ${v.name}=${v.value}`));
  }
  const o: InputOverrides = { set: opts.set ?? {} };
  if (layers.length > 0) o.layers = layers;
  if (warnings.length > 0) o.warnings = warnings;
  if (opts.seed !== undefined) o.seed = opts.seed;
  if (opts.budget !== undefined) o.budgets = opts.budget;
  if (opts.allowLarge === true) o.allowLarge = true;
  return o;
}

/** The router settings an env gives, as a layer (values as the router's parsing typed them). */
function routerEnvLayer(origin: string, r: RouterEnvResult, source: (v: { name: string; value: string }) => string): SettingsLayer {
  return {
    origin,
    assignments: Object.entries(r.settings).map(([k, v]) => ({
      key: `router.${k}`,
      value: v,
      source: source(r.from[k as keyof RouterEnvResult['from']]!),
    })),
  };
}

/** Each input's baseline, or undefined where the directory has none (said on stderr: nothing is compared). */
function loadBaselines(path: string, inputs: readonly RunInput[], names: readonly string[], single: boolean): Array<{ file: string; report: Report } | undefined> {
  if (!existsSync(path)) throw new InputError('--baseline', `'${path}' does not exist (write baselines with \`routerbench baseline update\`)`);
  return inputs.map((input, i) => {
    const file = baselineFile(path, names[i]!, single);
    const report = readBaseline(file, input.name);
    if (report === undefined) process.stderr.write(`no baseline for ${input.name} (${file}): not compared\n`);
    return report === undefined ? undefined : { file, report };
  });
}

/**
 * The report as the command shows and writes it: with a baseline, the comparison and its verdict, and a
 * reproduce line that compares again (the scenario's own line alone would pass).
 */
function reportWithVerdict(o: ScenarioOutcome, baselineFile: string | undefined, tolerances: readonly Tolerance[]): Report {
  const c = o.comparison;
  if (c === undefined || baselineFile === undefined) return { ...o.report, pass: outcomePasses(o) };
  const tol = tolerances.map((t) => t.text);
  const reproduce = [o.report.reproduce, '--baseline', shellQuote(baselineFile), ...tol.flatMap((t) => ['--tolerance', shellQuote(t)])].join(' ');
  return {
    ...o.report,
    pass: outcomePasses(o),
    reproduce,
    baseline: { file: baselineFile, tolerances: tol, regressions: c.regressions, pass: c.pass, rows: c.rows, warnings: c.warnings },
  };
}

function rmEmptyTree(dir: string): void {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) rmEmptyTree(join(dir, e.name));
  if (readdirSync(dir).length === 0) rmdirSync(dir);
}

/** Ctrl-C, SIGTERM or SIGHUP while runs were writing their outputs. */
class Interrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
  }
}

/**
 * A worker thread that ran out of memory, as the input error it is: the input asked for more than fits (a
 * scenario past the size estimate with --allow-large, or an estimate too low). Said once, naming the inputs.
 */
function outOfMemory(err: unknown, files: readonly string[]): InputError | undefined {
  if (!isWorkerOutOfMemory(err)) return undefined;
  const which = files.length === 1 ? files[0]! : files.join(', ');
  return new InputError(which, 'the run ran out of memory: the input asks for more than this process can hold (docs/limits.md); its partial outputs were removed');
}

function isScenarioFile(file: string): boolean {
  return /\.ya?ml$/.test(file);
}

/** `wrote DIR/…`: a run's files, or with several runs the shared ones and the run directories. */
function wroteLine(out: string, runs: number, html: boolean): string {
  const each = ['report.json', 'output.jsonl', ...(html ? ['report.html'] : [])];
  if (runs === 1) return `wrote ${join(out, each[0]!)}, ${[...each.slice(1), 'summary.md', 'junit.xml'].join(', ')}`;
  return `wrote ${join(out, 'summary.md')}, junit.xml, index.html and ${runs} run directories (${each.join(', ')} in each)`;
}
