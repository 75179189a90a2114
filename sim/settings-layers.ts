import { applyPatches, enablePatches, type Patch } from 'immer';
import { fieldName } from './eventlog/field-name.ts';
import { InputError } from './eventlog/input-error.ts';
import { coerceSettingValue, defaultSettings, HaproxySettingsSchema, RouterSettingsSchema, SettingsSchema, SimSettingsSchema, type Settings } from './settings.ts';

enablePatches();

/**
 * Where one setting's value came from, as a person reads it and can go and look:
 *   `default`                                   the schema's default (sim/settings.ts)
 *   `scenarios/x.yaml:7`                        the key's line in a scenario file
 *   `events.jsonl:1`                            an event log's header (line 1)
 *   `--router-deployment d.yaml:31 NAME=VALUE`  the env entry of a Deployment manifest
 *   `--env NAME=VALUE`, `--set key=value`, `--seed N`, `--grid key`, `--seeds N`
 */
export type SettingSource = string;

export const DEFAULT_SOURCE: SettingSource = 'default';

/** One setting given a value by one layer: a dotted key (`router.maxDynamicServers`), its value, why. */
export interface SettingAssignment {
  key: string;
  value: unknown;
  source: SettingSource;
}

/**
 * One layer of the precedence, lowest first: the scenario file or event log header, `--router-deployment`,
 * `--env`, `--set`, a sweep's grid point, `--seed`. Plain data, so a layer crosses to a worker thread as is.
 * `origin` names the layer in an error message: the flag, or the file's own kind.
 */
export interface SettingsLayer {
  origin: string;
  assignments: SettingAssignment[];
}

/** Settings and, for every key they hold, the source of its value. */
export interface LayeredSettings {
  settings: Settings;
  /** Dotted key → source, every key of `settings`, in settingKeys() order. */
  sources: Record<string, SettingSource>;
}

const GROUPS = { router: RouterSettingsSchema, sim: SimSettingsSchema, haproxy: HaproxySettingsSchema } as const;

/** Every setting's dotted key, in the order the settings print: seed, then router.*, sim.*, haproxy.*. */
export function settingKeys(): readonly string[] {
  return SETTING_KEYS;
}

const SETTING_KEYS: readonly string[] = [
  'seed',
  ...Object.entries(GROUPS).flatMap(([group, schema]) => Object.keys(schema.shape).map((k) => `${group}.${k}`)),
];
const KNOWN = new Set<string>([...SETTING_KEYS, ...Object.keys(GROUPS)]);

/** Whether `--set key=…` names a setting (a group such as `router` too: its value is then checked as a whole). */
export function isSettingKey(key: string): boolean {
  return KNOWN.has(key);
}

/**
 * One assignment as immer patches on the settings tree as it stands: a `replace` (or an `add` for a key the
 * tree lacks, such as sim.durationMs), after turning a non-object in the way into one, as `--set` always
 * has (`--set router=x --set router.maxDynamicServers=3` ends with a router group again).
 */
function patchesOf(state: unknown, a: SettingAssignment): Patch[] {
  const patches: Patch[] = [];
  const path = a.key.split('.');
  let node = state as Record<string, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const next = node[path[i]!];
    if (!isRecord(next)) {
      patches.push({ op: 'replace', path: path.slice(0, i + 1), value: {} });
      node = {};
    } else {
      node = next;
    }
  }
  patches.push({ op: Object.hasOwn(node, path[path.length - 1]!) ? 'replace' : 'add', path, value: a.value });
  return patches;
}

/** Why validation failed, with the layer that gave the value at fault (the highest one touching the field). */
export interface LayerError {
  field: string;
  message: string;
  /** The layer to blame, undefined where only defaults touch the field (a bug, not input). */
  layer: SettingsLayer | undefined;
  assignment: SettingAssignment | undefined;
}

/**
 * The settings from the defaults with each layer's patches applied in order (later wins), validated as a
 * whole by SettingsSchema, with every key's source. Unknown keys and bad values call `onError` with the
 * layer at fault, so the message can name the file, header or flag that gave the value. Runs once per run
 * when its input is loaded, never per event.
 */
export function layerSettings(layers: readonly SettingsLayer[], onError: (e: LayerError) => never): LayeredSettings {
  let state: unknown = defaultSettings();
  const given = new Map<string, { layer: SettingsLayer; assignment: SettingAssignment }>();
  for (const layer of layers) {
    for (const a of layer.assignments) {
      // Checked before patching: a made-up key (or Object.prototype's own names) never reaches the tree.
      if (!isSettingKey(a.key)) return onError({ field: a.key, message: `unknown setting '${a.key}'`, layer, assignment: a });
      // A key given again moves to the end: the map's order is the order of precedence.
      given.delete(a.key);
      given.set(a.key, { layer, assignment: a });
      // Each result is frozen and shares every untouched branch with the one before.
      state = applyPatches(state as object, patchesOf(state, a));
    }
  }
  const parsed = SettingsSchema.safeParse(state);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
    const field = fieldName(path);
    const message = issue.code === 'unrecognized_keys' ? `unknown setting '${field}'` : issue.message;
    const blamed = blame(given, path);
    return onError({ field, message, layer: blamed?.layer, assignment: blamed?.assignment });
  }
  const settings = parsed.data;
  const sources: Record<string, SettingSource> = {};
  for (const key of SETTING_KEYS) {
    if (valueAt(settings, key) === undefined) continue;
    sources[key] = sourceOf(given, key);
  }
  return { settings, sources };
}

/** The source of a key: the last layer that gave it or the whole group holding it; else the default. */
function sourceOf(given: ReadonlyMap<string, { assignment: SettingAssignment }>, key: string): SettingSource {
  const group = key.split('.')[0]!;
  let source: SettingSource = DEFAULT_SOURCE;
  for (const [k, g] of given) if (k === key || k === group) source = g.assignment.source;
  return source;
}

/** The highest assignment at, above or below the failing field (a group's check, e.g. rates adding up, concerns its keys). */
function blame(
  given: ReadonlyMap<string, { layer: SettingsLayer; assignment: SettingAssignment }>,
  path: ReadonlyArray<PropertyKey>,
): { layer: SettingsLayer; assignment: SettingAssignment } | undefined {
  const names: string[] = [];
  for (const seg of path) {
    if (typeof seg !== 'string') break;
    names.push(seg);
  }
  const key = names.join('.');
  let found: { layer: SettingsLayer; assignment: SettingAssignment } | undefined;
  for (const [k, g] of given) {
    if (key === '' || k === key || k.startsWith(`${key}.`) || key.startsWith(`${k}.`)) found = g;
  }
  return found;
}

function valueAt(settings: Settings, key: string): unknown {
  let v: unknown = settings;
  for (const p of key.split('.')) v = isRecord(v) ? v[p] : undefined;
  return v;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `--set key=value` flags as a layer: text values read as numbers and booleans where they look like them. */
export function setLayer(set: Readonly<Record<string, unknown>>, origin = '--set'): SettingsLayer {
  return {
    origin,
    assignments: Object.entries(set).map(([key, value]) => ({ key, value: coerceSettingValue(value), source: `${origin} ${key}=${String(value)}` })),
  };
}

/** `--seed N` as the top layer. */
export function seedLayer(seed: number): SettingsLayer {
  return { origin: '--seed', assignments: [{ key: 'seed', value: seed, source: `--seed ${seed}` }] };
}

/**
 * A settings object read from a file (an event log header's `settings`) as assignments: each group's keys
 * one by one, anything else (a key outside the groups, a group that is not a mapping) as it stands, to be
 * found wrong by validation.
 */
export function assignmentsOf(settings: Readonly<Record<string, unknown>>, source: (key: string) => SettingSource): SettingAssignment[] {
  const out: SettingAssignment[] = [];
  for (const [group, value] of Object.entries(settings)) {
    if (Object.hasOwn(GROUPS, group) && isRecord(value)) {
      for (const [k, v] of Object.entries(value)) out.push({ key: `${group}.${k}`, value: v, source: source(`${group}.${k}`) });
    } else {
      out.push({ key: group, value, source: source(group) });
    }
  }
  return out;
}

/** The command-line layers flattened to what `--set` would say (key order as first given, later values win). */
export function flattenLayers(layers: readonly SettingsLayer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const l of layers) for (const a of l.assignments) out[a.key] = a.value;
  return out;
}

/** What the command line lays over an input's own settings, lowest first: `layers`, then `set`, then `seed`. */
export interface SettingsOverrides {
  seed?: number;
  /** Dotted settings keys → values (`--set`); numeric strings become numbers. */
  set?: Readonly<Record<string, unknown>>;
  /**
   * Layers below `--set`: `--router-deployment` and `--env` (run, compare), a sweep's grid point. Their
   * assignments are also what the reproduce line repeats as `--set`.
   */
  layers?: readonly SettingsLayer[];
}

/**
 * An input's settings: defaults < its own (`file`, a scenario's keys or an event log header) < the command
 * line. A value at fault in the file is the file's error (`fileError`); one from the command line is an
 * InputError naming the flag and the key.
 */
export function inputSettings(file: SettingsLayer, o: SettingsOverrides, fileError: (field: string, message: string, a: SettingAssignment) => never): LayeredSettings {
  const layers = [file, ...(o.layers ?? [])];
  if (o.set !== undefined) layers.push(setLayer(o.set));
  if (o.seed !== undefined) layers.push(seedLayer(o.seed));
  return layerSettings(layers, (e) => {
    if (e.layer === file && e.assignment !== undefined) return fileError(e.field, e.message, e.assignment);
    throw new InputError(e.layer?.origin ?? '--set', e.message, undefined, e.field);
  });
}
