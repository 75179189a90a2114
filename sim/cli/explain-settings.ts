import { loadRunInput } from '../load-input.ts';
import type { RunInput } from '../run-input.ts';
import { taskAt, type SweepDefinition } from '../sweep/plan.ts';
import { sweepTaskOverrides } from '../sweep/task.ts';
import { DEFAULT_SOURCE, settingKeys } from '../settings-layers.ts';

/** One row of `--explain-settings`: a setting, its value in the run, and where that value came from. */
export interface ExplainedSetting {
  key: string;
  value: unknown;
  source: string;
}

/** What `--explain-settings --json` prints for one input. */
export interface SettingsExplanation {
  scenario: string;
  input: string;
  settings: ExplainedSetting[];
}

/** Every setting the input runs with (settingKeys order), with its source; an unset optional key is left out. */
export function explainSettings(input: RunInput, label = input.name): SettingsExplanation {
  const settings: ExplainedSetting[] = [];
  for (const key of settingKeys()) {
    const value = valueAt(input.settings, key);
    if (value === undefined) continue;
    settings.push({ key, value, source: input.settingSources?.[key] ?? DEFAULT_SOURCE });
  }
  return { scenario: label, input: input.source, settings };
}

/**
 * A sweep's settings: its first point's, with each swept key's value the grid's list of values and the
 * seed the list of seeds (their sources `--grid KEY` and `--seeds N`).
 */
export function explainSweep(def: SweepDefinition): SettingsExplanation {
  const { task } = taskAt(def, 0);
  const e = explainSettings(loadRunInput(task.file, sweepTaskOverrides(task)), def.scenario.name);
  const swept = new Map<string, unknown>(def.grid.map((a) => [a.key, a.values]));
  swept.set('seed', def.seeds);
  return { ...e, settings: e.settings.map((s) => (swept.has(s.key) ? { ...s, value: swept.get(s.key) } : s)) };
}

/** One aligned table per input (`key  value  source`), a heading line above each when there are several. */
export function renderExplanations(explanations: readonly SettingsExplanation[]): string {
  const blocks = explanations.map((e) => {
    const rows = [['setting', 'value', 'source'], ...e.settings.map((s) => [s.key, formatValue(s.value), s.source])];
    const widths = [0, 1].map((c) => Math.max(...rows.map((r) => r[c]!.length)));
    const table = rows.map((r) => `${r[0]!.padEnd(widths[0]!)}  ${r[1]!.padEnd(widths[1]!)}  ${r[2]}`.trimEnd()).join('\n');
    return explanations.length === 1 ? `${table}\n` : `${e.scenario} (${e.input})\n${table}\n`;
  });
  return blocks.join('\n');
}

/** `--json`: a list of explanations, one per input (or strategy), whatever their number: one shape to parse. */
export function explanationsJson(explanations: readonly SettingsExplanation[]): string {
  return JSON.stringify(explanations, null, 2) + '\n';
}

/** Text as it is (an empty one quoted, so it shows), anything else as JSON. */
function formatValue(v: unknown): string {
  if (typeof v === 'string') return v === '' ? '""' : v;
  return JSON.stringify(v);
}

function valueAt(settings: unknown, key: string): unknown {
  let v = settings;
  for (const p of key.split('.')) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}
