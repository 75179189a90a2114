import { eventSubject, type InputEvent } from '../../core/events.ts';
import { pairSubject, UNDONE_BY } from './drop-pairs.ts';
import type { PassResult, Probe } from './probe.ts';

/** Fault kinds whose two spans on one subject can become one; churn is left to the other passes. */
const FAULTS = new Set(['node.fail', 'node.shutdown', 'router.fail', 'keepalived.crash', 'script.fail', 'link.down', 'network.partition']);

/**
 * Cluster events merged, two into one span: a fault, its recovery and the same fault again on the same
 * subject (node, router, keepalived, script, link, the same partition groups) become one longer fault, by dropping the
 * recovery and the second fault; two stalls of one node become one stall from the first's start to the
 * later end. Fewer events where a failure needs the subject down at two times but not up in between,
 * which neither single deletions nor dropping pairs reach. Each merge is tried once per pass, first to last.
 */
export async function mergeSpans(events: InputEvent[], probe: Probe): Promise<PassResult> {
  let current = events;
  let changed = false;
  for (let i = 0; i < current.length; i++) {
    const candidate = mergedAt(current, i);
    if (candidate === undefined) continue;
    if (await probe.shouldStop()) return { events: current, changed, stopped: true };
    if (probe.fails(candidate)) {
      current = candidate;
      changed = true;
      i--;
    }
  }
  return { events: current, changed, stopped: false };
}

/** The log with the event at `i` merged with the next span of the same fault, or undefined when there is none. */
function mergedAt(events: InputEvent[], i: number): InputEvent[] | undefined {
  const e = events[i]!;
  if (e.type === 'node.stall') {
    const k = events.findIndex((x, n) => n > i && x.type === 'node.stall' && x.node === e.node);
    if (k < 0) return undefined;
    const later = events[k] as typeof e;
    const merged: InputEvent = { ...e, durationMs: Math.max(e.at + e.durationMs, later.at + later.durationMs) - e.at };
    return events.flatMap((x, n) => (n === i ? [merged] : n === k ? [] : [x]));
  }
  if (!FAULTS.has(e.type)) return undefined;
  const undo = UNDONE_BY[e.type]!;
  const subject = pairSubject(e);
  const j = events.findIndex((x, n) => n > i && x.type === undo && pairSubject(x) === subject);
  if (j < 0) return undefined;
  const again = eventSubject(e);
  const k = events.findIndex((x, n) => n > j && x.type === e.type && eventSubject(x) === again && pairSubject(x) === subject);
  if (k < 0) return undefined;
  return events.filter((_, n) => n !== j && n !== k);
}
