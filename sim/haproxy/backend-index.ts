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
 * the same backends in the same places, or add and drop a route or two: the lists are then compared, the
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

  /**
   * Indexes a load's backends (the earlier load is gone: nothing else holds its positions). The lists
   * are compared from both ends, by backend identity first (configs are read-only, so a backend handed
   * over again has its name): only the names between the first and the last change are read and diffed.
   */
  update(list: readonly BackendConfig[]): void {
    const last = this.list;
    if (list === last) return;
    this.list = list;
    const old = this.listed;
    if (last === undefined || this.places.length === 0) return this.rebuild(list);
    const n = list.length;
    const oldN = old.length;
    const shorter = Math.min(n, oldN);
    let head = 0;
    while (head < shorter && (list[head] === last[head] || list[head]!.name === old[head])) head++;
    if (head === n && n === oldN) return;
    let tail = 0;
    while (tail < shorter - head && (list[n - 1 - tail] === last[oldN - 1 - tail] || list[n - 1 - tail]!.name === old[oldN - 1 - tail])) tail++;
    const middle: string[] = new Array(n - tail - head);
    for (let j = head; j < n - tail; j++) middle[j - head] = list[j]!.name;
    const changes = listChanges(old.slice(head, oldN - tail), middle, CHANGES_MAX);
    if (changes === undefined || !this.applyChanges(old, head, oldN - tail, middle, changes.dropped, changes.added)) this.rebuild(list);
  }

  private rebuild(list: readonly BackendConfig[]): void {
    const names: string[] = new Array(list.length);
    const places: Place[] = new Array(list.length);
    this.byName.clear();
    for (let i = 0; i < list.length; i++) {
      const name = list[i]!.name;
      const p = { pos: i };
      names[i] = name;
      places[i] = p;
      this.byName.set(name, p);
    }
    this.listed = names;
    this.places = places;
  }

  /**
   * The new list is the old one with `old[from, to)` replaced by `middle`, whose changes listChanges found
   * (positions within the windows). It pairs the windows in order, so the places that stay map onto the
   * positions of `middle` that were not added, in order; the places after the window move by the
   * difference in length. Exact when the names are distinct, which the map's size then shows (false:
   * index afresh).
   */
  private applyChanges(old: readonly string[], from: number, to: number, middle: readonly string[], dropped: readonly number[], added: readonly number[]): boolean {
    const oldPlaces = this.places;
    const byName = this.byName;
    for (const i of dropped) if (byName.get(old[from + i]!) === oldPlaces[from + i]) byName.delete(old[from + i]!);
    const n = old.length - (to - from) + middle.length;
    const names: string[] = new Array(n);
    const places: Place[] = new Array(n);
    for (let j = 0; j < from; j++) {
      names[j] = old[j]!;
      places[j] = oldPlaces[j]!;
    }
    let i = from;
    let d = 0;
    let a = 0;
    for (let k = 0; k < middle.length; k++) {
      const j = from + k;
      names[j] = middle[k]!;
      if (a < added.length && added[a] === k) {
        a++;
        const p = { pos: j };
        places[j] = p;
        byName.set(middle[k]!, p);
        continue;
      }
      while (d < dropped.length && from + dropped[d]! === i) {
        d++;
        i++;
      }
      const p = oldPlaces[i++]!;
      p.pos = j;
      places[j] = p;
    }
    const shift = from + middle.length - to;
    for (let k = to; k < old.length; k++) {
      const p = oldPlaces[k]!;
      if (shift !== 0) p.pos += shift;
      names[k + shift] = old[k]!;
      places[k + shift] = p;
    }
    this.listed = names;
    this.places = places;
    return byName.size === n;
  }
}
