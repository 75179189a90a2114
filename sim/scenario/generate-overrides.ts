import { fieldName } from '../eventlog/field-name.ts';
import { InputError } from '../eventlog/input-error.ts';
import type { SettingAssignment, SettingsOverrides } from '../settings-layers.ts';
import { coerceSettingValue } from '../settings.ts';

/**
 * `--set generate.<path>=<value>`: a change to the scenario's own `generate` section, made before it is
 * validated and expanded, so that one scenario file serves a workload at several sizes (twice the route
 * churn, ten times the services) without a copy per size. These keys are no settings: they reach the
 * settings layers' loaders, which take them out here and hand them to the scenario loader.
 */
export const GENERATE_PREFIX = 'generate.';

export function isGenerateKey(key: string): boolean {
  return key.startsWith(GENERATE_PREFIX) && key.length > GENERATE_PREFIX.length;
}

/** One change to the generate section, with the flag that made it (for its error message). */
export interface GenerateOverride {
  origin: string;
  assignment: SettingAssignment;
}

/**
 * The overrides without their `generate.*` keys, and those keys' changes, lowest precedence first (the
 * layers in order, then `--set`), so that applying them in order lets the last win as for settings.
 */
export function splitGenerateOverrides<T extends SettingsOverrides>(o: T): { rest: T; generate: GenerateOverride[] } {
  const generate: GenerateOverride[] = [];
  const layers = o.layers?.map((l) => {
    if (!l.assignments.some((a) => isGenerateKey(a.key))) return l;
    const kept: SettingAssignment[] = [];
    for (const a of l.assignments) {
      if (isGenerateKey(a.key)) generate.push({ origin: l.origin, assignment: a });
      else kept.push(a);
    }
    return { ...l, assignments: kept };
  });
  let set = o.set;
  if (set !== undefined && Object.keys(set).some(isGenerateKey)) {
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(set)) {
      if (isGenerateKey(key)) generate.push({ origin: '--set', assignment: { key, value: coerceSettingValue(value), source: `--set ${key}=${String(value)}` } });
      else kept[key] = value;
    }
    set = kept;
  }
  if (generate.length === 0) return { rest: o, generate };
  const rest: T = { ...o };
  if (layers !== undefined) rest.layers = layers;
  if (set !== undefined) rest.set = set;
  return { rest, generate };
}

/** An input that has no generate section to change: the first change's flag and key are the error. */
export function noGenerateSection(generate: readonly GenerateOverride[], what: string): never {
  const { origin, assignment } = generate[0]!;
  throw new InputError(origin, `${what} has no generate section to change: --set generate.* changes what a scenario's generate section says`, undefined, assignment.key);
}

/**
 * The scenario as written with the changes applied to its generate section, in order: a value in the way
 * of a deeper key is made a mapping, as `--set` does for settings. The result is validated afterwards by
 * the scenario schema as a whole, so every rule of the section (and its checks against the rest of the
 * scenario) holds for the changed workload.
 */
export function withGenerateChanges(raw: Readonly<Record<string, unknown>>, generate: readonly GenerateOverride[]): Record<string, unknown> {
  const out = structuredClone(raw) as Record<string, unknown>;
  for (const { origin, assignment } of generate) {
    const path = assignment.key.split('.');
    // Names only, looked up as own keys: `__proto__` would reach Object.prototype, and a list (a fault
    // schedule, `at` times) is changed in the file, not piece by piece.
    const bad = path.find((seg) => !KEY_SEGMENT.test(seg) || seg === '__proto__');
    if (bad !== undefined) throw new InputError(origin, `'${bad}' is no key of a generate section: a path of key names, e.g. generate.routes.initial`, undefined, assignment.key);
    let node = out;
    for (let i = 0; i < path.length - 1; i++) {
      const next = Object.hasOwn(node, path[i]!) ? node[path[i]!] : undefined;
      if (Array.isArray(next)) {
        throw new InputError(origin, `${path.slice(0, i + 1).join('.')} is a list: change it in the scenario file`, undefined, assignment.key);
      }
      if (!isRecord(next)) node[path[i]!] = {};
      node = node[path[i]!] as Record<string, unknown>;
    }
    node[path[path.length - 1]!] = assignment.value;
  }
  return out;
}

const KEY_SEGMENT = /^[A-Za-z_$][\w$]*$/;

/**
 * The change to blame for a validation issue at `path` (from the scenario's root): the last one at, above
 * or below that field; else the last of all (a check across fields, such as routes.max against
 * routes.initial, fails on the changed workload as a whole).
 */
export function blameGenerateChange(generate: readonly GenerateOverride[], path: readonly PropertyKey[], message: string): InputError {
  const field = fieldName([...path]);
  let blamed = generate[generate.length - 1]!;
  for (const g of generate) {
    const key = g.assignment.key;
    if (key === field || field.startsWith(`${key}.`) || field.startsWith(`${key}[`) || key.startsWith(`${field}.`)) blamed = g;
  }
  return new InputError(blamed.origin, `${blamed.assignment.key}=${JSON.stringify(blamed.assignment.value)}: ${message}`, undefined, field);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
