import type { MapEntry } from '../../core/haproxy/config-model.ts';
import { indexAhead } from '../../core/index-ahead.ts';
import { editsFrom, type ListEdit } from '../../core/list-lineage.ts';
import { MockMapEntry, type PointerSource } from './map-state.ts';

const NONE_TAKEN_OUT: readonly MockMapEntry[] = [];

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
  /** `file`: the map's file, its key in a config's maps. */
  constructor(readonly file: string) {}

  /** The config entries of the last build, and the entries made for them, place by place. */
  private source: readonly MapEntry[] = [];
  /** Undefined where a load added a line no build has made an entry for yet (see passOver). Never handed out. */
  private built: (MockMapEntry | undefined)[] = [];
  /** The entries commands took out of the map the last build started (see builtInto); undefined: not known. */
  private takenOut: readonly MockMapEntry[] | undefined = undefined;

  /**
   * The map the last build's entries went into: its `takenOut` lists the entries its commands take out, the
   * only ones of the build that cannot be handed on. A map is built at most once a load, and a command only
   * reaches the map of the running load, so that list holds every entry taken out since the last build.
   */
  builtInto(m: { readonly takenOut: readonly MockMapEntry[] }): void {
    this.takenOut = m.takenOut;
  }

  /**
   * The entries a load starts with for these config entries, in their order, as a list of the map's own.
   * The renderer's lists say how they were made from the last one (core/list-lineage.ts): the last build's
   * entries then take the same edits and only the taken-out ones are made again, where walking both lists
   * read every entry kept (the `removed` flag of a thousand entries made reloads ago: 3% of a dcm-slots
   * replay of the saturated day).
   */
  build(entries: readonly MapEntry[], pointers: PointerSource): MockMapEntry[] {
    const takenOut = this.takenOut;
    this.takenOut = undefined;
    // Without the map's list of entries taken out, each kept entry is asked.
    if (takenOut === undefined) return this.walked(entries, pointers);
    // The same list again is no edit; a list made from it says how; any other is walked.
    const edits = editsFrom(entries, this.source);
    if (edits === undefined) return this.walked(entries, pointers);
    this.edit(entries, edits, takenOut);
    const out = this.built;
    // New entries in file order, as the walk makes them: the pointers come out in the same order.
    for (let j = 0; j < out.length; j++) {
      if (out[j] !== undefined) continue;
      const e = entries[j]!;
      out[j] = new MockMapEntry(pointers.next(), e.key, e.value, 0);
    }
    return out.slice() as MockMapEntry[];
  }

  /**
   * A load of these config entries, before any build: the last build's entries take the edits that made
   * them, so that a build is told its edits by the list just before, and a load that does not build the map
   * (no command reaches it) leaves none to walk. Lineage says how a list was made from the one just before
   * (core/list-lineage.ts), and under dcm-slots most loads build no map: a replay of the day walked a
   * thousand-line file at a quarter of its builds. A line added here has no entry until a build makes it.
   */
  passOver(entries: readonly MapEntry[]): void {
    const takenOut = this.takenOut;
    if (takenOut === undefined) return;
    const edits = editsFrom(entries, this.source);
    if (edits === undefined) return;
    this.edit(entries, edits, takenOut);
    // What the last build's map had taken out is out of the list, and no command reaches that map again.
    this.takenOut = NONE_TAKEN_OUT;
  }

  /** The last build's entries, in place, with `edits` applied and `takenOut` left out: a new line's place is undefined. */
  private edit(entries: readonly MapEntry[], edits: readonly ListEdit<MapEntry>[], takenOut: readonly MockMapEntry[]): void {
    const out = this.built;
    for (const { at, insert } of edits) {
      if (insert) out.splice(at, 0, undefined);
      else out.splice(at, 1);
    }
    for (const e of takenOut) {
      const i = out.indexOf(e);
      if (i >= 0) out[i] = undefined;
    }
    this.source = entries;
  }

  private walked(entries: readonly MapEntry[], pointers: PointerSource): MockMapEntry[] {
    const source = this.source;
    const built = this.built;
    const out: MockMapEntry[] = new Array<MockMapEntry>(entries.length);
    let i = 0;
    for (let j = 0; j < entries.length; j++) {
      const e = entries[j]!;
      // The lines before and after a changed one are still in order: look a few places ahead. A larger change
      // only makes new entries for the lines after it until the two lists meet again.
      const found = indexAhead(source, i, e);
      let entry: MockMapEntry | undefined;
      if (found >= 0) {
        i = found + 1;
        // A place a load passed over without a build has no entry yet.
        const kept = built[found];
        if (kept !== undefined && !kept.removed) entry = kept;
      }
      out[j] = entry ?? new MockMapEntry(pointers.next(), e.key, e.value, 0);
    }
    this.source = entries;
    this.built = out;
    return out.slice();
  }
}

