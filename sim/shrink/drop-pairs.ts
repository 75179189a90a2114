import { eventSubject, type InputEvent, type InputEventType } from '../../core/events.ts';
import type { PassResult, Probe } from './probe.ts';

/** Each kind that a later event of another kind undoes, for the same subject. */
export const UNDONE_BY: Partial<Record<InputEventType, InputEventType>> = {
  'route.upsert': 'route.delete',
  'blueprint.upsert': 'blueprint.delete',
  'endpoints.set': 'endpoints.delete',
  'node.fail': 'node.recover',
  'node.shutdown': 'node.recover',
  'router.fail': 'router.recover',
  'script.fail': 'script.recover',
  'link.down': 'link.up',
  'keepalived.crash': 'keepalived.restart',
  'network.partition': 'network.heal',
  'node.join': 'node.leave',
};

/** The subject an event and the one undoing it share: a script's node and name; any partition and the next heal. */
export function pairSubject(e: InputEvent): string {
  if (e.type === 'script.fail' || e.type === 'script.recover') return `${e.node}/${e.script}`;
  if (e.type === 'network.partition') return '';
  return eventSubject(e);
}

/**
 * Cluster faults and their recovery (a node failing and recovering, a partition and its heal, a join and
 * the leave) and churn and its undoing (an upsert and the delete) dropped two at a time: each event with the
 * first later event that undoes it for the same subject. Either alone may be needed (a recovery without its
 * fault is a warning, a fault without its recovery lasts to the end), so ddmin over single events keeps
 * both; together they may go. Each pair is tried once per pass, first to last.
 */
export async function dropPairs(events: InputEvent[], probe: Probe): Promise<PassResult> {
  let current = events;
  let changed = false;
  for (let i = 0; i < current.length; i++) {
    const e = current[i]!;
    const undo = UNDONE_BY[e.type];
    if (undo === undefined) continue;
    const subject = pairSubject(e);
    const j = current.findIndex((x, k) => k > i && x.type === undo && pairSubject(x) === subject);
    if (j < 0) continue;
    if (await probe.shouldStop()) return { events: current, changed, stopped: true };
    const without = current.filter((_, k) => k !== i && k !== j);
    if (probe.fails(without)) {
      current = without;
      changed = true;
      i--;
    }
  }
  return { events: current, changed, stopped: false };
}
