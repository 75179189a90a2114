import { Document, isMap, isSeq } from 'yaml';
import type { InputEvent } from '../../core/events.ts';
import { parseBudget } from '../../reports/budgets.ts';
import type { RunInput } from '../run-input.ts';

/**
 * A shrunk log as a scenario file (scenarios/SCENARIO-FORMAT.md): the run's seed, every setting, the cluster,
 * the budgets and the events inline, one flow map per line. Undefined with the reason when the scenario
 * format cannot hold it: a scenario's budgets are a map, one bound per metric, and it has no place for the
 * command line's warnings (`--env`), which only a budget on warnings would miss.
 */
export function scenarioYaml(input: RunInput, events: readonly InputEvent[], description: string): { text: string } | { reason: string } {
  const budgets: Record<string, string> = {};
  for (const text of input.budgets) {
    const b = parseBudget(text);
    if (b.path.startsWith('warnings.') && (input.warnings?.length ?? 0) > 0) {
      return { reason: `the budget ${b.text} counts the command line's warnings, which a scenario cannot hold; the event log's header carries them` };
    }
    if (budgets[b.path] !== undefined && budgets[b.path] !== `${b.op} ${b.value}`) {
      return { reason: `two budgets bound ${b.path} and a scenario holds one per metric; the event log alone carries both` };
    }
    budgets[b.path] = `${b.op} ${b.value}`;
  }
  const { seed, router, sim, haproxy } = input.settings;
  const doc = new Document({
    name: input.name,
    description,
    seed,
    router,
    sim,
    haproxy,
    ...(input.cluster !== undefined && { cluster: input.cluster }),
    events,
    ...(Object.keys(budgets).length > 0 && { budgets }),
  });
  const list = doc.get('events', true);
  if (isSeq(list)) for (const item of list.items) if (isMap(item)) item.flow = true;
  return { text: doc.toString({ lineWidth: 0 }) };
}
