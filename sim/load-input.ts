import { readdirSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { ClusterSchema } from './cluster/cluster-schema.ts';
import { logReadProgress, readEventLogFile, readEventLogHeader } from './eventlog/event-log-reader.ts';
import { fieldName } from './eventlog/field-name.ts';
import { InputError } from './eventlog/input-error.ts';
import type { RunInput } from './run-input.ts';
import { loadScenario, reproduceCommand } from './scenario/load-scenario.ts';
import { assignmentsOf, inputSettings, type SettingsOverrides } from './settings-layers.ts';
import { noGenerateSection, splitGenerateOverrides } from './scenario/generate-overrides.ts';
import { scenarioName } from './scenario/scenario-name.ts';
import { estimateSize, overLimit, type SizeEstimate, type Written } from './scenario/size-estimate.ts';
import type { GenerateSpec } from './generate/spec.ts';
import type { TraceName } from './output/records.ts';
import { parseBudget } from '../reports/budgets.ts';

/** What the command line lays over every input: seed, dotted settings, extra budgets. */
export interface InputOverrides extends SettingsOverrides {
  budgets?: string[];
  /**
   * What the command line's own input made the tool ignore or replace (`--env`, `--router-deployment`): kept
   * in every run's output log and report as `warning` records, so a `warnings.total` budget sees them too.
   */
  warnings?: string[];
  /** `--allow-large`: run a scenario whose size estimate is past the limits (docs/limits.md). */
  allowLarge?: boolean;
  /** The output log the run writes (`--out`), with its `--trace`: its estimated size is held to the limit too. */
  outputLog?: { trace: readonly TraceName[] };
}

const SCENARIO_EXTS = new Set(['.yaml', '.yml']);
const LOG_EXTS = new Set(['.jsonl']);

/** Files and directories on the command line → the runnable files, a directory's in name order. */
export function expandInputPaths(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new InputError(p, 'no such file or directory');
    }
    if (st.isDirectory()) {
      const files = readdirSync(p)
        .filter((f) => SCENARIO_EXTS.has(extname(f)))
        .sort()
        .map((f) => join(p, f));
      if (files.length === 0) throw new InputError(p, 'the directory holds no scenario files (*.yaml)');
      out.push(...files);
    } else {
      out.push(p);
    }
  }
  return out;
}

/** A scenario file or a bare event log, as one run's input. */
export function loadRunInput(file: string, overrides: InputOverrides = {}): RunInput {
  const ext = extname(file);
  const input = SCENARIO_EXTS.has(ext) ? loadScenario(file, overrides) : LOG_EXTS.has(ext) ? loadEventLogInput(file, overrides) : undefined;
  if (input === undefined) throw new InputError(file, `unknown input kind '${ext}': give a scenario (.yaml) or an event log v1 (.jsonl)`);
  if (overrides.allowLarge !== true) checkSize(file, input, overrides.outputLog === undefined ? undefined : { kind: 'output log', trace: overrides.outputLog.trace });
  if (overrides.warnings !== undefined && overrides.warnings.length > 0) input.warnings = [...(input.warnings ?? []), ...overrides.warnings];
  return input;
}

/** A bare event log runs with default settings, or those its header carries, under the overrides. */
function loadEventLogInput(file: string, overrides: InputOverrides): RunInput {
  const changes = splitGenerateOverrides(overrides).generate;
  if (changes.length > 0) noGenerateSection(changes, `the event log ${file}`);
  const header = readEventLogHeader(file);
  // The header is line 1: its own mistakes name it, so that only what the command line adds blames --set.
  const headerError = (field: string, message: string): never => {
    throw new InputError(file, `header: ${message}`, 1, field);
  };
  if (header['settings'] !== undefined && !isRecord(header['settings'])) headerError('settings', 'settings must be an object of settings');
  // The whole header is line 1: every setting it gives is sourced there. Its own `seed` wins over
  // `settings.seed`, as the later assignment.
  const source = `${file}:1`;
  const own = { origin: file, assignments: assignmentsOf(isRecord(header['settings']) ? header['settings'] : {}, () => source) };
  if (header['seed'] !== undefined) own.assignments.push({ key: 'seed', value: header['seed'], source });
  // A value the command line sets replaces the header's (so --set can also stand in for a bad one); any
  // other bad value came from the header: name the field read.
  const seedOwnField = header['seed'] !== undefined;
  const { settings, sources } = inputSettings(own, overrides, (field, message) =>
    headerError(field === 'seed' && seedOwnField ? 'seed' : `settings.${field}`, message),
  );
  // A log written by `routerbench expand` carries its scenario's budgets and cluster: run it the same way.
  const raw = header['budgets'];
  if (raw !== undefined && !Array.isArray(raw)) headerError('budgets', 'budgets must be a list of budget strings such as "reloads.total<=2"');
  const budgets = ((raw ?? []) as unknown[]).map((b, i) => {
    if (typeof b !== 'string') return headerError(`budgets[${i}]`, `a budget is a string such as "reloads.total<=2", got ${JSON.stringify(b)}`);
    try {
      return parseBudget(b).text;
    } catch (err) {
      return headerError(`budgets[${i}]`, (err as Error).message);
    }
  });
  for (const b of overrides.budgets ?? []) {
    try {
      budgets.push(parseBudget(b).text);
    } catch (err) {
      throw new InputError('--budget', (err as Error).message);
    }
  }
  if (header['scenario'] !== undefined) {
    const named = scenarioName.safeParse(header['scenario']);
    if (!named.success) headerError('scenario', named.error.issues[0]!.message);
  }
  const name = typeof header['scenario'] === 'string' ? header['scenario'] : basename(file, ext(file));
  const position = { bytes: 0 };
  const input: RunInput = {
    name,
    source: file,
    settings,
    settingSources: sources,
    budgets,
    events: () => readEventLogFile(file, { position }),
    readProgress: logReadProgress(file, position),
    reproduce: reproduceCommand(file, settings.seed, overrides),
  };
  // A log written by `routerbench shrink` carries the warnings of the command line it ran under (`--env`).
  const warnings = header['warnings'];
  if (warnings !== undefined) {
    if (!Array.isArray(warnings)) headerError('warnings', 'warnings must be a list of strings');
    (warnings as unknown[]).forEach((w, i) => {
      if (typeof w !== 'string') headerError(`warnings[${i}]`, `a warning is a string, got ${JSON.stringify(w)}`);
    });
    if ((warnings as string[]).length > 0) input.warnings = [...(warnings as string[])];
  }
  if (header['cluster'] !== undefined) {
    const cluster = ClusterSchema.safeParse(header['cluster']);
    if (!cluster.success) {
      const issue = cluster.error.issues[0]!;
      throw new InputError(file, `header: ${issue.message}`, 1, fieldName(['cluster', ...issue.path]));
    }
    input.cluster = cluster.data;
  }
  return input;
}

/** The size estimate of a loaded input (docs/limits.md): a scenario's generators and durations, a log's cluster. */
export function sizeOf(input: RunInput & { generate?: GenerateSpec }, written?: Written): SizeEstimate {
  return estimateSize(input.generate, input.cluster, input.settings.sim.durationMs, written);
}

/**
 * A progress line's label: the input's name, and the events its generators are expected to make when that
 * is known, so that a run that will not end soon says so from its first line.
 */
export function progressLabel(input: RunInput): string {
  const events = sizeOf(input).events;
  return events >= 1 ? `${input.name} (about ${Math.round(events).toLocaleString('en-US')} events expected)` : input.name;
}

/**
 * Refuses an input whose generators or durations ask for more than the limits (SIZE_LIMITS), before it runs;
 * `written`, the file the command writes that grows with the events, if any.
 */
export function checkSize(file: string, input: RunInput, written?: Written): void {
  const estimate = sizeOf(input, written);
  const over = overLimit(estimate);
  if (over === undefined) return;
  const [field, what] = estimate.largest;
  throw new InputError(
    file,
    `this run would take about ${over}, mostly from ${field} (${what}): make it smaller, or run it anyway with --allow-large (docs/limits.md explains the estimate)`,
    undefined,
    field,
  );
}

function ext(file: string): string {
  return extname(file);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
