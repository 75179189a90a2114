import type { MapEntry } from '../../core/haproxy/config-model.ts';
import { indexAhead } from '../../core/index-ahead.ts';
import { MockMapEntry, type PointerSource } from './map-state.ts';

/**
 * The entries one map file starts each load with, handed on from load to load where nothing changed them.
 *
 * A process loads a map's entries from its file, each with a pointer of its own. The router rewrites a map
 * file at most a few lines per reload and its renderer hands the lines that stay over as the same objects,
 * so the entries the last load started with are mostly those this load starts with again: an entry made
 * then from the very same config entry, which no command has taken out since, is handed on as it is,
 * pointer included (a new process that reads the same line at the same place is as likely to put it at the
 * same address as anywhere else). Only the lines the renderer changed make new entries. Under dcm-slots a
 * saturated day rebuilt about 850 entries a reload, 14 objects per input event (docs/performance.md,
 * 3 Dec 2026).
 *
 * Entries are immutable but for `removed`, which only ever becomes true, so one handed on is the entry a
 * fresh build would make; the map's own list is a copy (commands add to it and take from it).
 */
export class MapEntriesAtLoad {
  /** The config entries of the last build, and the entries made for them, place by place. */
  private source: readonly MapEntry[] = [];
  private built: readonly MockMapEntry[] = [];

  /** The entries a load starts with for these config entries, in their order, as a list of the map's own. */
  build(entries: readonly MapEntry[], pointers: PointerSource): MockMapEntry[] {
    const source = this.source;
    const built = this.built;
    const out: MockMapEntry[] = new Array(entries.length);
    let i = 0;
    for (let j = 0; j < entries.length; j++) {
      const e = entries[j]!;
      // The lines before and after a changed one are still in order: look a few places ahead. A larger change
      // only makes new entries for the lines after it until the two lists meet again.
      const found = indexAhead(source, i, e);
      let entry: MockMapEntry | undefined;
      if (found >= 0) {
        i = found + 1;
        const kept = built[found]!;
        if (!kept.removed) entry = kept;
      }
      out[j] = entry ?? new MockMapEntry(pointers.next(), e.key, e.value, 0);
    }
    this.source = entries;
    this.built = out;
    return out.slice();
  }
}
