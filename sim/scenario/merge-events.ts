import type { InputEvent } from '../../core/events.ts';

/**
 * Merges event streams that are each in non-decreasing `at` into one, lazily. On equal `at`, the stream
 * listed first goes first (a scenario's inline events, then its event log, then generated events), and
 * each stream keeps its own order, so "events with the same `at` apply in file order" still holds.
 */
export function mergeByAt(sources: ReadonlyArray<Iterable<InputEvent>>): Iterable<InputEvent> {
  return new MergedEvents(sources);
}

/** A class rather than an object literal, for the reason given at sim/generate/expand.ts's GeneratedEvents. */
class MergedEvents implements Iterable<InputEvent> {
  constructor(private readonly sources: ReadonlyArray<Iterable<InputEvent>>) {}

  *[Symbol.iterator](): Iterator<InputEvent> {
    const its = this.sources.map((s) => s[Symbol.iterator]());
    const heads: Array<InputEvent | undefined> = its.map((it) => next(it));
    try {
      for (;;) {
        let best = -1;
        for (let i = 0; i < heads.length; i++) {
          const h = heads[i];
          if (h !== undefined && (best === -1 || h.at < heads[best]!.at)) best = i;
        }
        if (best === -1) return;
        yield heads[best]!;
        heads[best] = next(its[best]!);
      }
    } finally {
      for (const it of its) it.return?.();
    }
  }
}

function next(it: Iterator<InputEvent>): InputEvent | undefined {
  const r = it.next();
  return r.done ? undefined : r.value;
}
