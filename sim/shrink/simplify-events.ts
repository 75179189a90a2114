import type { InputEvent } from '../../core/events.ts';
import type { PassResult, Probe } from './probe.ts';
import { simplerForms } from './simpler-forms.ts';

/**
 * Each event in turn takes the first of its simpler forms (sim/shrink/simpler-forms.ts) that still fails
 * the same way, then the first of that form's, until none does: no single optional part of any event can
 * go (a stall is as short as halving can make it).
 */
export async function simplifyEvents(events: InputEvent[], probe: Probe): Promise<PassResult> {
  let current = events;
  let changed = false;
  for (let i = 0; i < current.length; i++) {
    let simpler = true;
    while (simpler) {
      simpler = false;
      for (const form of simplerForms(current[i]!)) {
        if (await probe.shouldStop()) return { events: current, changed, stopped: true };
        const candidate = current.map((x, j) => (j === i ? form : x));
        if (probe.fails(candidate)) {
          current = candidate;
          changed = simpler = true;
          break;
        }
      }
    }
  }
  return { events: current, changed, stopped: false };
}
