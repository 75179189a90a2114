import type { BackendConfig } from '../../core/haproxy/config-model.ts';
import { indexAhead } from '../../core/index-ahead.ts';
import { editsFrom, recordLineage, type ListEdit } from '../../core/list-lineage.ts';

/** Above this many dropped and added backends a reload's index is built afresh. */
const CHANGES_MAX = 64;

/**
 * The running config's backend names, in config order, and each name's position (the last backend of a
 * name wins, as in the layout's id map), carried from one load to the next. Consecutive reloads mostly list
 * the same backends in the same places, or add and drop a few routes: the lists are then walked together,
 * the backends that stay keep their place ids (renumbered in a typed array, not in the map's objects: their
 * writes missed the cache), and only the names that come and go touch the map. Renumbering every name
 * after the first change in the map cost 4.3% of a dcm-slots replay of the day slice (the saturated-day
 * bench log's first 200,000 events, commit 558c43b), a thousand map writes per reload; reading and diffing
 * the names between the first and the last change still cost 3% of a dcm-add-del replay, where a reload
 * brings several changes far apart.
 */
export class BackendIndex {
  private list: readonly BackendConfig[] | undefined;
  private listed: readonly string[] = [];
  /** The place id of the backend at each position; an id is a backend's while it stays in the list. */
  private ids: number[] = [];
  /** Position by place id. */
  private positions = new Int32Array(256);
  private readonly freeIds: number[] = [];
  private nextId = 0;
  private readonly byName = new Map<string, number>();

  /** The names of the list last indexed; the same array while a reload leaves them as they were. */
  get names(): readonly string[] {
    return this.listed;
  }

  /** The position of the backend of this name in the list last indexed. */
  position(name: string): number | undefined {
    const id = this.byName.get(name);
    return id === undefined ? undefined : this.positions[id];
  }

  /** Indexes a load's backends (the earlier load is gone: nothing else holds its positions). */
  update(list: readonly BackendConfig[]): void {
    const last = this.list;
    if (list === last) return;
    this.list = list;
    if (last === undefined || this.ids.length === 0) return this.rebuild(list);
    // The renderer's list says how it was made from the one before (core/list-lineage.ts): no walk.
    const edits = editsFrom(list, last);
    if (edits !== undefined) {
      if (!this.applyEdits(edits)) this.rebuild(list);
      return;
    }
    const dropped: number[] = [];
    const added: number[] = [];
    if (!this.changes(last, list, dropped, added) || !this.apply(list, dropped, added)) this.rebuild(list);
  }

  /**
   * The positions of `last` dropped and of `list` added, walking both together as listChanges does, but
   * pairing backends by identity first (configs are read-only, so a backend handed over again has its
   * name), and by name only when that fails: only re-rendered and moved backends are read. Every backend
   * is either paired with one of its name or listed; false when more than CHANGES_MAX are listed.
   */
  private changes(last: readonly BackendConfig[], list: readonly BackendConfig[], dropped: number[], added: number[]): boolean {
    const old = this.listed;
    let i = 0;
    let j = 0;
    while (i < last.length && j < list.length) {
      const b = list[j]!;
      if (b === last[i] || b.name === old[i]) {
        i++;
        j++;
        continue;
      }
      const inOld = indexAhead(last, i + 1, b);
      if (inOld >= 0) {
        while (i < inOld) dropped.push(i++);
      } else {
        const inNew = indexAhead(list, j + 1, last[i]!);
        if (inNew >= 0) {
          while (j < inNew) added.push(j++);
        } else {
          dropped.push(i++);
          added.push(j++);
        }
      }
      if (dropped.length + added.length > CHANGES_MAX) return false;
    }
    while (i < last.length) dropped.push(i++);
    while (j < list.length) added.push(j++);
    return dropped.length + added.length <= CHANGES_MAX;
  }

  /**
   * The renderer's edits applied in order, as the walk's changes are in `apply`: each name taken out or put
   * in where the renderer did, the backends that stay keeping their place ids. The edits' values are only
   * read for their names, which a rendered row never changes.
   */
  private applyEdits(edits: readonly ListEdit<BackendConfig>[]): boolean {
    if (edits.length === 0) return true;
    const old = this.listed;
    const names = old.slice();
    const ids = this.ids;
    const byName = this.byName;
    const nameEdits: ListEdit<string>[] = new Array(edits.length);
    let from = names.length;
    for (let k = 0; k < edits.length; k++) {
      const { at, insert, value } = edits[k]!;
      const name = value.name;
      if (insert) {
        const id = this.newId(at);
        names.splice(at, 0, name);
        ids.splice(at, 0, id);
        byName.set(name, id);
      } else {
        // Names the renderer's edits as this index has them, or they are not of its list: index afresh.
        if (names[at] !== name) return false;
        const id = ids[at]!;
        if (byName.get(name) === id) byName.delete(name);
        this.freeIds.push(id);
        names.splice(at, 1);
        ids.splice(at, 1);
      }
      nameEdits[k] = { at, insert, value: name };
      if (at < from) from = at;
    }
    this.renumberFrom(from);
    this.listed = names;
    recordLineage(names, old, nameEdits);
    return byName.size === names.length;
  }

  private renumberFrom(from: number): void {
    const positions = this.positions;
    const ids = this.ids;
    for (let j = from; j < ids.length; j++) positions[ids[j]!] = j;
  }

  private rebuild(list: readonly BackendConfig[]): void {
    const names: string[] = new Array(list.length);
    const ids: number[] = new Array(list.length);
    this.byName.clear();
    this.freeIds.length = 0;
    this.nextId = 0;
    for (let i = 0; i < list.length; i++) {
      const name = list[i]!.name;
      const id = this.newId(i);
      names[i] = name;
      ids[i] = id;
      this.byName.set(name, id);
    }
    this.listed = names;
    this.ids = ids;
  }

  private newId(pos: number): number {
    const id = this.freeIds.pop() ?? this.nextId++;
    if (id >= this.positions.length) {
      const grown = new Int32Array(this.positions.length * 2);
      grown.set(this.positions);
      this.positions = grown;
    }
    this.positions[id] = pos;
    return id;
  }

  /**
   * The walk pairs the lists in order, so taking the dropped positions out and putting the added ones in
   * leaves each backend at its new position. Exact when the names are distinct, which the map's size then
   * shows (false: index afresh). A reload that only re-rendered backends keeps the names array as it was.
   */
  private apply(list: readonly BackendConfig[], dropped: readonly number[], added: readonly number[]): boolean {
    if (dropped.length === 0 && added.length === 0) return true;
    // The names array was handed out (show backend): a new one. The ids are this index's own.
    const old = this.listed;
    const names = old.slice();
    const ids = this.ids;
    const byName = this.byName;
    const nameEdits: ListEdit<string>[] = [];
    for (let k = dropped.length - 1; k >= 0; k--) {
      const i = dropped[k]!;
      const name = names[i]!;
      const id = ids[i]!;
      if (byName.get(name) === id) byName.delete(name);
      this.freeIds.push(id);
      names.splice(i, 1);
      ids.splice(i, 1);
      nameEdits.push({ at: i, insert: false, value: name });
    }
    // Ascending, each added backend lands at its final position: those before it are all in place.
    for (const j of added) {
      const name = list[j]!.name;
      const id = this.newId(j);
      names.splice(j, 0, name);
      ids.splice(j, 0, id);
      byName.set(name, id);
      nameEdits.push({ at: j, insert: true, value: name });
    }
    this.renumberFrom(Math.min(dropped.length === 0 ? names.length : dropped[0]!, added.length === 0 ? names.length : added[0]!));
    this.listed = names;
    recordLineage(names, old, nameEdits);
    return byName.size === names.length;
  }
}
