import { InputError } from '../eventlog/input-error.ts';
import { coerceSettingValue } from '../settings.ts';
import { isGenerateKey } from '../scenario/generate-overrides.ts';
import { layerSettings } from '../settings-layers.ts';

/** A setting value a grid can take: numbers from ranges and lists, strings and booleans from lists. */
export type GridValue = number | string | boolean;

/** One `--grid key=spec` flag: a dotted settings key and the values it sweeps, in the order written. */
export interface GridAxis {
  key: string;
  /** The spec as written after `=`, e.g. `0..20:2` or `1,2,5,10`. */
  spec: string;
  values: GridValue[];
}

/** Most values one axis may have (a typo like `0..1000000` is an input error, not an hour of runs). */
export const MAX_AXIS_VALUES = 10_000;

const RANGE_RE = /^(-?\d+)\.\.(-?\d+)(?::(\d+))?$/;

/**
 * Reads `key=spec`: spec is a comma-separated list of items, each a value or an integer range `a..b`
 * (inclusive) or `a..b:step`. Every value is validated against SettingsSchema as `--set key=value` would be;
 * anything wrong is an InputError naming the flag and the key.
 */
export function parseGridAxis(flag: string): GridAxis {
  const eq = flag.indexOf('=');
  if (eq <= 0) throw new InputError('--grid', `expected key=values, e.g. router.blueprintPoolSize=0..20 (got '${flag}')`);
  const key = flag.slice(0, eq).trim();
  const spec = flag.slice(eq + 1).trim();
  const fail = (detail: string): never => {
    throw new InputError('--grid', detail, undefined, key);
  };
  if (key === 'seed') fail('the seed is not a grid key: use --seeds N (and --seed for the first seed)');
  if (isGenerateKey(key)) {
    fail("a generate.* key is not a grid key: each value would be another workload, and a sweep recommends router settings for one; run one sweep per workload with --set generate.…=…");
  }
  if (spec === '') fail('no values after =');
  const values: GridValue[] = [];
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    if (item === '') fail(`empty item in '${spec}'`);
    const m = RANGE_RE.exec(item);
    if (m !== null) {
      const from = Number(m[1]);
      const to = Number(m[2]);
      const step = m[3] === undefined ? 1 : Number(m[3]);
      // Past 2^53 `v += step` stops moving and the loop below would never end.
      if (![from, to, step].every(Number.isSafeInteger)) fail(`range '${item}': bounds and step must be integers below 2^53`);
      if (step === 0) fail(`range '${item}': the step must be at least 1`);
      if (to < from) fail(`range '${item}' is empty: ${from} > ${to}`);
      if ((to - from) / step + values.length >= MAX_AXIS_VALUES) fail(`more than ${MAX_AXIS_VALUES} values`);
      for (let v = from; v <= to; v += step) values.push(v);
    } else if (item.includes('..')) {
      fail(`'${item}' is not a range: write a..b or a..b:step with integers`);
    } else {
      values.push(coerceSettingValue(item) as GridValue);
    }
  }
  const seen = new Set<string>();
  for (const v of values) {
    const id = JSON.stringify(v);
    if (seen.has(id)) fail(`value ${String(v)} appears twice`);
    seen.add(id);
    layerSettings([{ origin: '--grid', assignments: [{ key, value: v, source: `--grid ${key}` }] }], ({ message }) =>
      fail(message.startsWith('unknown setting') ? message : `value ${JSON.stringify(v)}: ${message}`),
    );
  }
  return { key, spec, values };
}

/** Several `--grid` flags; a key given twice is an input error. */
export function parseGrid(flags: readonly string[]): GridAxis[] {
  const axes = flags.map(parseGridAxis);
  const keys = new Set<string>();
  for (const a of axes) {
    if (keys.has(a.key)) throw new InputError('--grid', `'${a.key}' is given twice; list all its values in one flag`, undefined, a.key);
    keys.add(a.key);
  }
  return axes;
}

/** Number of points of the cartesian grid (1 for no axes: the scenario's own settings). */
export function pointCount(axes: readonly GridAxis[]): number {
  return axes.reduce((n, a) => n * a.values.length, 1);
}

/** Point i of the grid in canonical order: the first axis varies slowest, the last fastest. */
export function pointAt(axes: readonly GridAxis[], index: number): GridValue[] {
  const out = new Array<GridValue>(axes.length);
  let rest = index;
  for (let a = axes.length - 1; a >= 0; a--) {
    const vs = axes[a]!.values;
    out[a] = vs[rest % vs.length]!;
    rest = Math.floor(rest / vs.length);
  }
  return out;
}

/** A point as `{key: value}` in axis order. */
export function pointSettings(axes: readonly GridAxis[], values: readonly GridValue[]): Record<string, GridValue> {
  const o: Record<string, GridValue> = {};
  axes.forEach((a, i) => (o[a.key] = values[i]!));
  return o;
}
