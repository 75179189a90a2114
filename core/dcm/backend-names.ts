import { indexAhead } from '../index-ahead.ts';
import { editsFrom } from '../list-lineage.ts';

/**
 * The backend names of the last `show backend`, as a set. A reload adds or drops a few backends at most and
 * the list keeps its order, so a new listing is applied as the names it drops and adds (listChanges); names
 * are counted, so a name listed twice stays known while one copy remains. A list that changed more than a
 * little is counted again whole.
 */
export class BackendNames {
  private names: readonly string[] = [];
  private readonly counts = new Map<string, number>();

  get size(): number {
    return this.counts.size;
  }

  has(name: string): boolean {
    return this.counts.has(name);
  }

  update(names: readonly string[]): void {
    const old = this.names;
    if (names === old) return;
    this.names = names;
    // A listing that says how it was made from the one before (the in-process mock's, core/list-lineage.ts).
    const edits = editsFrom(names, old);
    if (edits !== undefined) {
      for (const { insert, value } of edits) {
        if (insert) this.add(value);
        else this.drop(value);
      }
      return;
    }
    const changes = listChanges(old, names, CHANGED_NAMES_MAX);
    if (changes === undefined) {
      this.counts.clear();
      for (const n of names) this.add(n);
      return;
    }
    for (const i of changes.dropped) this.drop(old[i]!);
    for (const j of changes.added) this.add(names[j]!);
  }

  private drop(name: string): void {
    const c = this.counts.get(name)!;
    if (c === 1) this.counts.delete(name);
    else this.counts.set(name, c - 1);
  }

  private add(name: string): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }
}

const CHANGED_NAMES_MAX = 64;

/** How a list became another: positions of `old` dropped, of `next` added, and the first position that differs. */
export interface ListChanges {
  readonly dropped: number[];
  readonly added: number[];
  readonly first: number;
}

/**
 * `old` → `next` as dropped and added positions, walking both lists together: where they disagree, what
 * the other list has a few places ahead was added or dropped, anything else replaced. Every element is
 * either paired with an equal one or listed, so applying the changes to a count of the elements is exact
 * however the walk pairs them; undefined when more than `max` positions change.
 */
export function listChanges<T>(old: readonly T[], next: readonly T[], max: number): ListChanges | undefined {
  const dropped: number[] = [];
  const added: number[] = [];
  let first = -1;
  let i = 0;
  let j = 0;
  while (i < old.length && j < next.length) {
    if (old[i] === next[j]) {
      i++;
      j++;
      continue;
    }
    if (first < 0) first = j;
    const inOld = indexAhead(old, i + 1, next[j]!);
    if (inOld >= 0) {
      while (i < inOld) dropped.push(i++);
    } else {
      const inNext = indexAhead(next, j + 1, old[i]!);
      if (inNext >= 0) {
        while (j < inNext) added.push(j++);
      } else {
        dropped.push(i++);
        added.push(j++);
      }
    }
    if (dropped.length + added.length > max) return undefined;
  }
  if (first < 0 && (i < old.length || j < next.length)) first = j;
  while (i < old.length) dropped.push(i++);
  while (j < next.length) added.push(j++);
  if (dropped.length + added.length > max) return undefined;
  return { dropped, added, first: first < 0 ? next.length : first };
}

