import type { BackendConfig } from '../../core/haproxy/config-model.ts';
import { listChanges } from '../../core/dcm/backend-names.ts';

/** Above this many dropped and added backends a reload's index is built afresh. */
const CHANGES_MAX = 64;

/** A backend's position in the running config; a reload that moves the backend moves it here, in place. */
interface Place {
  pos: number;
}

/**
 * The running config's backend names, in config order, and each name's position (the last backend of a
 * name wins, as in the layout's id map), carried from one load to the next. Consecutive reloads mostly list
 * the same names in the same places, or add and drop a route or two: the names are then compared, the
 * places of the backends that stay are renumbered in place, and only the names that come and go touch the
 * map. Renumbering every name after the first change in the map instead cost 4.3% of a dcm-slots replay of
 * the day slice (/tmp/day200k.jsonl, commit 558c43b), a thousand map writes per reload.
 */
export class BackendIndex {
  private list: readonly BackendConfig[] | undefined;
  private listed: readonly string[] = [];
  private places: Place[] = [];
  private readonly byName = new Map<string, Place>();

  /** The names of the list last indexed; the same array while a reload leaves them as they were. */
  get names(): readonly string[] {
    return this.listed;
  }

  /** The position of the backend of this name in the list last indexed. */
  position(name: string): number | undefined {
    return this.byName.get(name)?.pos;
  }

  /** Indexes a load's backends (the earlier load is gone: nothing else holds its positions). */
  update(list: readonly BackendConfig[]): void {
    if (list === this.list) return;
    this.list = list;
    const old = this.listed;
    if (old.length === list.length) {
      let same = true;
      for (let i = 0; same && i < list.length; i++) same = old[i] === list[i]!.name;
      if (same) return;
    }
    const names: string[] = new Array(list.length);
    for (let i = 0; i < list.length; i++) names[i] = list[i]!.name;
    this.listed = names;
    const changes = this.places.length === 0 ? undefined : listChanges(old, names, CHANGES_MAX);
    if (changes !== undefined && this.applyChanges(old, names, changes.dropped, changes.added)) return;
    this.byName.clear();
    const places: Place[] = new Array(names.length);
    for (let i = 0; i < names.length; i++) {
      const p = { pos: i };
      places[i] = p;
      this.byName.set(names[i]!, p);
    }
    this.places = places;
  }

  /**
   * listChanges pairs the old and new lists in order, so the places that stay map onto the new list's
   * positions that were not added, in order. Exact when the names are distinct, which the map's size then
   * shows (false: index afresh).
   */
  private applyChanges(old: readonly string[], names: readonly string[], dropped: readonly number[], added: readonly number[]): boolean {
    const oldPlaces = this.places;
    const byName = this.byName;
    for (const i of dropped) if (byName.get(old[i]!) === oldPlaces[i]) byName.delete(old[i]!);
    const places: Place[] = new Array(names.length);
    let i = 0;
    let d = 0;
    let a = 0;
    for (let j = 0; j < names.length; j++) {
      if (a < added.length && added[a] === j) {
        a++;
        const p = { pos: j };
        places[j] = p;
        byName.set(names[j]!, p);
        continue;
      }
      while (d < dropped.length && dropped[d] === i) {
        d++;
        i++;
      }
      const p = oldPlaces[i++]!;
      p.pos = j;
      places[j] = p;
    }
    this.places = places;
    return byName.size === names.length;
  }
}
