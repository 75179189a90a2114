import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { type Document, LineCounter, parseDocument, visit, type YAMLError } from 'yaml';
import type { InputEvent } from '../../core/events.ts';
import { parseBudget } from '../../reports/budgets.ts';
import type { ClusterConfig } from '../cluster/cluster-schema.ts';
import { logReadProgress, readEventLogFile, readEventLogHeader } from '../eventlog/event-log-reader.ts';
import { InputError, inputErrorOf } from '../eventlog/input-error.ts';
import { readInputFile } from '../eventlog/regular-file.ts';
import { notUtf8 } from '../eventlog/utf8.ts';
import { expandGenerators } from '../generate/expand.ts';
import type { GenerateSpec } from '../generate/spec.ts';
import type { RunInput } from '../run-input.ts';
import { settingText, type Settings } from '../settings.ts';
import { flattenLayers, inputSettings, type SettingsLayer, type SettingsOverrides } from '../settings-layers.ts';
import { fieldName } from '../eventlog/field-name.ts';
import { inlineEventsOf } from './event-nodes.ts';
import { blameGenerateChange, noGenerateSection, splitGenerateOverrides, withGenerateChanges, type GenerateOverride } from './generate-overrides.ts';
import { mergeByAt } from './merge-events.ts';
import { clusterNodeNames, ScenarioSchema, scenarioJsonSchema, type ScenarioFile } from './scenario-schema.ts';
import { allowedKeysAt, issueToInputError, positionOf, suggestion } from './yaml-positions.ts';

export { InputError };

/** What the command line adds on top of a scenario file (later wins: defaults < file < overrides). */
export interface ScenarioOverrides extends SettingsOverrides {
  /** Extra budgets (`--budget 'reloads.total<=2'`), added after the file's. */
  budgets?: string[];
}

/** A RunInput plus what a scenario carries that RunInput has no field for yet. */
export interface ScenarioRunInput extends RunInput {
  description?: string;
  /** The `cluster` section, validated by ClusterSchema (defaults filled). */
  cluster?: ClusterConfig;
  /** The resolved generator spec, if any (for `routerbench expand`). */
  generate?: GenerateSpec;
}

/** Reads and validates a scenario file; every problem is an InputError naming file, line, column and key. */
export function loadScenario(file: string, overrides: ScenarioOverrides = {}): ScenarioRunInput {
  let bytes: Buffer;
  try {
    bytes = readInputFile(file, 'a scenario');
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(file, `cannot read scenario file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const bad = notUtf8(bytes);
  if (bad !== undefined) throw new InputError(file, bad.message, bad.line, undefined, bad.column);
  return parseScenario(bytes.toString('utf8'), file, overrides);
}

let jsonSchemaCache: unknown;

/** The same from text already read; `file` names it in messages and anchors relative event-log paths. */
export function parseScenario(text: string, file: string, overrides: ScenarioOverrides = {}): ScenarioRunInput {
  const { rest, generate: changes } = splitGenerateOverrides(overrides);
  const { doc, lines, raw, scenario } = changes.length === 0 ? validated(text, file) : withChangedGenerate(validated(text, file), changes, file);
  const at = (path: PropertyKey[], atKey = false) => positionOf(doc, lines, path, atKey);

  // A cluster alone is something to run: keepalived elects masters and adverts flow with no event at all.
  if (scenario.events === undefined && scenario.generate === undefined && scenario.cluster === undefined) {
    throw new InputError(file, 'nothing to run: give `events` (inline or a .jsonl log), `generate` or a `cluster`', 1, undefined, 1);
  }

  const { settings, sources } = settingsOf(scenario, raw, file, at, rest);
  const budgets = [...Object.entries(scenario.budgets ?? {}).map(([p, b]) => parseBudget(p, b).text)];
  for (const b of overrides.budgets ?? []) {
    try {
      budgets.push(parseBudget(b).text);
    } catch (err) {
      throw new InputError('--budget', (err as Error).message);
    }
  }

  // Events: inline ones, then the log file's, then generated ones (that order on equal `at`).
  const { inline, logFile, logPath } = splitEvents(scenario.events, file);
  if (logFile !== undefined) checkLogFile(logFile, file, at(logPath));
  const generate = resolveGenerate(scenario, settings);
  const seed = settings.seed;
  const position = { bytes: 0 };
  const events = (): Iterable<InputEvent> => {
    const sources: Iterable<InputEvent>[] = [inline];
    if (logFile !== undefined) sources.push(readEventLogFile(logFile, { position }));
    if (generate !== undefined) sources.push(expandGenerators(generate, seed));
    return sources.length === 1 ? inline : mergeByAt(sources);
  };

  const name = scenario.name ?? basename(file, extname(file));
  const result: ScenarioRunInput = {
    name,
    source: file,
    settings,
    settingSources: sources,
    budgets,
    events,
    reproduce: reproduceCommand(file, settings.seed, overrides),
  };
  if (logFile !== undefined) result.readProgress = logReadProgress(logFile, position);
  if (scenario.description !== undefined) result.description = scenario.description;
  if (scenario.cluster !== undefined) result.cluster = scenario.cluster;
  if (generate !== undefined) result.generate = generate;
  return result;
}

/**
 * The last text parsed and validated, deep-frozen. A sweep loads the same scenario for every run; the
 * freeze makes sure no run can change what the next one reads.
 */
let lastValidated: Validated | undefined;

/** `raw` is the file as written (before defaults): which settings the file itself gives. */
interface Validated {
  text: string;
  doc: Document.Parsed;
  lines: LineCounter;
  raw: Readonly<Record<string, unknown>>;
  scenario: ScenarioFile;
}

function validated(text: string, file: string): Validated {
  if (lastValidated !== undefined && lastValidated.text === text) return lastValidated;
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    // Every syntax error the parser found, each at its place (it goes on after one where it can).
    throw inputErrorOf(
      doc.errors.map((e) => {
        const pos = lines.linePos(e.pos[0]);
        return new InputError(file, yamlErrorMessage(e), pos.line, undefined, pos.col);
      }),
    );
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // The yaml library stops here a file whose aliases expand without bound ("billion laughs"), or an alias
    // with no anchor before it: the unresolved alias, or else the first alias of all, is the place to look.
    const alias = unresolvedAlias(doc) ?? firstAlias(doc);
    const pos = alias === undefined ? undefined : lines.linePos(alias);
    throw new InputError(file, `YAML: ${firstLine((err as Error).message)}`, pos?.line, undefined, pos?.col);
  }
  if (raw === null || raw === undefined) throw new InputError(file, 'empty scenario; expected a mapping with at least `events` or `generate`', 1, undefined, 1);
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InputError(file, `a scenario is a mapping of keys (name, router, events, …), not ${Array.isArray(raw) ? 'a list' : 'a single value'}`, 1, undefined, 1);
  }
  const parsed = ScenarioSchema.safeParse(raw);
  if (!parsed.success) {
    jsonSchemaCache ??= scenarioJsonSchema();
    throw issueToInputError(parsed.error, raw, file, doc, lines, jsonSchemaCache);
  }
  lastValidated = { text, doc, lines, raw: deepFreeze(raw as Record<string, unknown>), scenario: deepFreeze(parsed.data) };
  return lastValidated;
}

/**
 * The scenario with `--set generate.*` applied to its generate section, validated again as a whole: a
 * change the schema refuses is the flag's error, naming its key and value.
 */
function withChangedGenerate(v: Validated, changes: readonly GenerateOverride[], file: string): Validated {
  if (v.raw['generate'] === undefined) noGenerateSection(changes, `the scenario ${file}`);
  const raw = withGenerateChanges(v.raw, changes);
  const parsed = ScenarioSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
    throw blameGenerateChange(changes, path, issue.code === 'unrecognized_keys' ? unknownKeyMessage(issue.keys[0]!, issue.path) : issue.message);
  }
  return { ...v, raw, scenario: parsed.data };
}

/** `unknown key 'x'`, with the keys the schema allows there and the closest, as the file's own errors say it. */
function unknownKeyMessage(key: string, at: readonly PropertyKey[]): string {
  jsonSchemaCache ??= scenarioJsonSchema();
  return `unknown key '${key}' in ${fieldName([...at])}${suggestion(key, allowedKeysAt(jsonSchemaCache, [...at]))}`;
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** The library's message, except where it advises calling the library differently: that is ours to do. */
function yamlErrorMessage(error: YAMLError): string {
  if (error.code === 'MULTIPLE_DOCS') {
    return "a scenario file holds one YAML document, and a second one starts here; remove the document marker ('---' or '...') or give each scenario its own file";
  }
  return `YAML: ${firstLine(error.message)}`;
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.trim();
}

function splitEvents(events: ScenarioFile['events'], file: string): { inline: InputEvent[]; logFile?: string; logPath: PropertyKey[] } {
  const { inline, logFile } = inlineEventsOf(events);
  const logPath = typeof events === 'string' ? ['events'] : ['events', 'file'];
  return logFile === undefined ? { inline, logPath } : { inline, logFile: resolve(dirname(file), logFile), logPath };
}

/** The event log must exist and start with a v1 header now; its lines are validated as the run reads them. */
function checkLogFile(logFile: string, file: string, pos: { line: number; column: number }): void {
  if (!existsSync(logFile) || !statSync(logFile).isFile()) {
    throw new InputError(file, `event log not found: ${logFile}`, pos.line, 'events', pos.column);
  }
  readEventLogHeader(logFile);
}

function resolveGenerate(scenario: ScenarioFile, settings: Settings): GenerateSpec | undefined {
  const g = scenario.generate;
  if (g === undefined) return undefined;
  const durationMs = g.durationMs ?? settings.sim.durationMs;
  // The schema guarantees a horizon exists before overrides; an override cannot remove sim.durationMs.
  const resolved: GenerateSpec = { ...g, durationMs: durationMs! };
  if (g.faults !== undefined && g.faults.nodes === undefined) {
    const nodes = clusterNodeNames(scenario.cluster);
    if (nodes !== undefined) resolved.faults = { ...g.faults, nodes };
  }
  return resolved;
}

/**
 * defaults < scenario file < overrides (`--router-deployment`, `--env`, `--set`, `--seed`), validated as a
 * whole by SettingsSchema. The file's layer holds only the keys it writes, each sourced to its line.
 */
function settingsOf(
  scenario: ScenarioFile,
  raw: Readonly<Record<string, unknown>>,
  file: string,
  at: (path: PropertyKey[], atKey?: boolean) => { line: number; column: number },
  overrides: ScenarioOverrides,
): { settings: Settings; sources: Record<string, string> } {
  const own: SettingsLayer = { origin: file, assignments: [] };
  const where = (path: string[]): string => `${file}:${at(path, true).line}`;
  if (scenario.seed !== undefined) own.assignments.push({ key: 'seed', value: scenario.seed, source: where(['seed']) });
  for (const group of ['router', 'sim', 'haproxy'] as const) {
    const written = raw[group];
    const values = scenario[group] as Record<string, unknown> | undefined;
    if (written === null || typeof written !== 'object' || values === undefined) continue;
    for (const key of Object.keys(written)) own.assignments.push({ key: `${group}.${key}`, value: values[key], source: where([group, key]) });
  }
  // The file was validated above: what fails now came from the command line, or the file in combination.
  return inputSettings(own, overrides, (field, message, a) => {
    const [group, key] = a.key.split('.');
    const pos = at(key === undefined ? [group!] : [group!, key], true);
    throw new InputError(file, message, pos.line, field, pos.column);
  });
}

/** `routerbench run <file> --seed N [--set k=v]... [--budget '…']...`: reproduces the run exactly. */
export function reproduceCommand(file: string, seed: number, overrides: ScenarioOverrides): string {
  const parts = ['routerbench', 'run', shellQuote(file), '--seed', String(seed)];
  // A layer's values are typed (an --env string stays a string); --set's are the text as given.
  const texts: Record<string, string> = {};
  for (const [k, v] of Object.entries(flattenLayers(overrides.layers ?? []))) texts[k] = settingText(v);
  for (const [k, v] of Object.entries(overrides.set ?? {})) texts[k] = String(v);
  for (const [k, text] of Object.entries(texts)) {
    if (k === 'seed') continue;
    parts.push('--set', shellQuote(`${k}=${text}`));
  }
  for (const b of overrides.budgets ?? []) parts.push('--budget', shellQuote(b));
  return parts.join(' ');
}

export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Offset of the first alias that names no anchor defined before it, if any. */
function firstAlias(doc: Document.Parsed): number | undefined {
  let at: number | undefined;
  visit(doc, {
    Alias(_, node) {
      at = node.range?.[0];
      return visit.BREAK;
    },
  });
  return at;
}

function unresolvedAlias(doc: Document.Parsed): number | undefined {
  let at: number | undefined;
  visit(doc, {
    Alias(_, node) {
      if (node.resolve(doc) !== undefined) return undefined;
      at = node.range?.[0];
      return visit.BREAK;
    },
  });
  return at;
}
