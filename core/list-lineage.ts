/** One element taken out of a list at `at`, or put in at `at`, as a splice of one does it. */
export interface ListEdit<T> {
  readonly at: number;
  readonly insert: boolean;
  /** The element put in, or the one taken out. */
  readonly value: T;
}

/** How a list was made: the list before it, and the edits that turn that one into this one, in order. */
export interface ListLineage<T> {
  readonly from: readonly T[];
  readonly edits: readonly ListEdit<T>[];
}

const lineages = new WeakMap<readonly unknown[], ListLineage<unknown>>();

/**
 * Says that `list` is `from` with `edits` applied. Lists handed from one part to another at every reload
 * (the renderer's backends, the mock's backend names) change by a few elements among thousands; a reader
 * that holds `from` applies the edits to what it keeps, where walking both lists to find them read thousands
 * of elements that had left the cache (4–5% of a dcm replay of the saturated day). Nothing else changes:
 * a reader that does not hold `from`, or a list that came some other way (decoded from HAProxy's text),
 * is compared whole as before. A list's lineage is kept until a list is made from it.
 */
export function recordLineage<T>(list: readonly T[], from: readonly T[], edits: readonly ListEdit<T>[]): void {
  // One step only: `from`'s own lineage would keep every list before it alive through this one (a dcm
  // replay of the day slice grew to 417 MiB so). A reader more than one list behind walks.
  lineages.delete(from);
  lineages.set(list, { from, edits });
}

/** How `list` was made, if its maker said so. */
export function lineageOf<T>(list: readonly T[]): ListLineage<T> | undefined {
  return lineages.get(list) as ListLineage<T> | undefined;
}

/**
 * The edits that make `list` from `earlier`: none when they are the same list, its recorded edits when it
 * was made from `earlier`, undefined otherwise (the reader then compares the lists whole).
 */
export function editsFrom<T>(list: readonly T[], earlier: readonly T[]): readonly ListEdit<T>[] | undefined {
  if (list === earlier) return NO_EDITS;
  const lineage = lineages.get(list) as ListLineage<T> | undefined;
  return lineage !== undefined && lineage.from === earlier ? lineage.edits : undefined;
}

const NO_EDITS: readonly ListEdit<never>[] = [];
