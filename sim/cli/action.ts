import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The GitHub Action's step (action.yml): runs `routerbench run` over the `scenarios` input with the
 * `baseline`, `tolerance` and `budget` inputs, then turns what failed into annotations on the scenario files
 * (`::error file=…,line=…::`). The step summary is the run's own summary.md ($GITHUB_STEP_SUMMARY, which
 * `run` appends to); the exit code goes to $GITHUB_OUTPUT as `exit-code` and is the step's own.
 * Everything here but the upload of the output folder runs, and is tested, off GitHub too.
 */
export interface ActionInputs {
  scenarios: string[];
  baseline?: string;
  tolerances: string[];
  budgets: string[];
  out: string;
}

/** A list input: one item a line (commas also separate tolerances and scenarios, never budgets: `a,b` is no bound). */
function items(text: string | undefined, commas: boolean): string[] {
  return (text ?? '')
    .split(commas ? /[\n,]/ : /\n/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The inputs as GitHub passes them to a step: INPUT_<NAME> environment variables. */
export function actionInputs(env: NodeJS.ProcessEnv): ActionInputs {
  const scenarios = items(env['INPUT_SCENARIOS'], true).flatMap((s) => s.split(/\s+/));
  const baseline = env['INPUT_BASELINE']?.trim();
  return {
    scenarios: scenarios.length > 0 ? scenarios : ['scenarios'],
    ...(baseline !== undefined && baseline !== '' && { baseline }),
    tolerances: items(env['INPUT_TOLERANCE'], true),
    budgets: items(env['INPUT_BUDGET'], false),
    out: env['INPUT_OUT']?.trim() || 'routerbench-out',
  };
}

export function runArgs(inputs: ActionInputs): string[] {
  return [
    'run',
    ...inputs.scenarios,
    '--out',
    inputs.out,
    '--no-progress',
    ...(inputs.baseline === undefined ? [] : ['--baseline', inputs.baseline]),
    ...inputs.tolerances.flatMap((t) => ['--tolerance', t]),
    ...inputs.budgets.flatMap((b) => ['--budget', b]),
  ];
}

/** A workflow command's message: its own line breaks and percent signs escaped as the runner reads them. */
function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A workflow command's property (file, title): `:` and `,` separate properties, so they are escaped too. */
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export interface Annotation {
  file?: string;
  line?: number;
  title: string;
  message: string;
}

export function workflowCommand(a: Annotation): string {
  const props = [...(a.file === undefined ? [] : [`file=${escapeProperty(a.file)}`]), ...(a.line === undefined ? [] : [`line=${a.line}`]), `title=${escapeProperty(a.title)}`];
  return `::error ${props.join(',')}::${escapeData(a.message)}`;
}

function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|quot|apos|amp|#x([0-9a-fA-F]+)|#([0-9]+));/g, (_, name: string, hex?: string, dec?: string) => {
    if (hex !== undefined) return String.fromCodePoint(parseInt(hex, 16));
    if (dec !== undefined) return String.fromCodePoint(parseInt(dec, 10));
    return { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' }[name]!;
  });
}

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m === null ? undefined : unescapeXml(m[1]!);
}

/**
 * Every failed testcase of routerbench's junit.xml (reports/render/junit.ts writes it: a testcase's `file`
 * and `line` are the scenario and the line of the budget, its failure's body the explanation).
 */
export function junitAnnotations(xml: string): Annotation[] {
  const out: Annotation[] = [];
  for (const m of xml.matchAll(/<testcase\b([^>]*)>\s*<failure\b([^>]*)>([\s\S]*?)<\/failure>/g)) {
    const tc = m[1]!;
    const file = attr(tc, 'file');
    const line = attr(tc, 'line');
    const scenario = (attr(tc, 'classname') ?? '').replace(/^routerbench\./, '');
    out.push({
      ...(file !== undefined && { file }),
      ...(line !== undefined && { line: Number(line) }),
      title: `routerbench: ${scenario}: ${attr(tc, 'name') ?? ''}`,
      message: unescapeXml(m[3]!).trimEnd(),
    });
  }
  return out;
}

/** Bad input (exit 2): routerbench's `file:line:col: message` lines, annotated where they point. */
export function inputErrorAnnotations(stderr: string): Annotation[] {
  const out: Annotation[] = [];
  for (const line of stderr.split('\n')) {
    const m = /^routerbench: (.+?):(\d+):(\d+): (.*)$/.exec(line) ?? /^routerbench: (.*)$/.exec(line);
    if (m === null) continue;
    out.push(m.length === 5 ? { file: m[1]!, line: Number(m[2]), title: 'routerbench: bad input', message: m[4]! } : { title: 'routerbench: bad input', message: m[1]! });
  }
  return out;
}

/** The CLI this script runs: the package's own bin, whether this module is compiled or the sources. */
const BIN = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../../bin/routerbench.js' : '../../../bin/routerbench.js', import.meta.url));

/** The step, given the step's environment; returns the exit code (routerbench's). */
export function runAction(env: NodeJS.ProcessEnv, write: (s: string) => void = (s) => void process.stdout.write(s)): number {
  const inputs = actionInputs(env);
  const args = runArgs(inputs);
  write(`routerbench ${args.join(' ')}\n`);
  const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
  write(r.stdout);
  write(r.stderr);
  const code = r.status ?? 3;
  const junit = join(inputs.out, 'junit.xml');
  const annotations = code === 2 ? inputErrorAnnotations(r.stderr) : existsSync(junit) ? junitAnnotations(readFileSync(junit, 'utf8')) : [];
  for (const a of annotations) write(`${workflowCommand(a)}\n`);
  const output = env['GITHUB_OUTPUT'];
  if (output) appendFileSync(output, `exit-code=${code}\nout=${inputs.out}\n`);
  return code;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = runAction(process.env);
}
