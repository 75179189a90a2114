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
  /** How many lineages lead back from this list, when it was recorded (later cuts may shorten the chain). */
  readonly depth: number;
}

/**
 * Lists a lineage leads back through, at least (and at most twice as many: the chain is cut every
 * LINEAGE_DEPTH lists, not at each). Each keeps the list before it alive, so a chain without end would keep
 * every list ever made (a dcm replay of the day slice grew to 417 MiB so); a reader further behind walks. A
 * reader that does not look at every list (the mock builds a map only when a command reaches it) is a few
 * lists behind.
 */
export const LINEAGE_DEPTH = 16;

const lineages = new WeakMap<readonly unknown[], ListLineage<unknown>>();

/**
 * Says that `list` is `from` with `edits` applied. Lists handed from one part to another at every reload
 * (the renderer's backends and map files, the mock's backend names) change by a few elements among
 * thousands; a reader that holds an earlier list applies the edits since to what it keeps, where walking
 * both lists to find them read thousands of elements that had left the cache (several percent of a dcm
 * replay of the saturated day). Nothing else changes: a reader whose list is not among the last
 * LINEAGE_DEPTH, or a list that came some other way (decoded from HAProxy's text), is compared whole as
 * before.
 */
export function recordLineage<T>(list: readonly T[], from: readonly T[], edits: readonly ListEdit<T>[]): void {
  let depth = (lineages.get(from)?.depth ?? 0) + 1;
  if (depth > 2 * LINEAGE_DEPTH) {
    // The chain back from `from` cut behind its LINEAGE_DEPTH-th list: the lists before that one may go.
    let oldest: readonly unknown[] = from;
    for (let k = 1; k < LINEAGE_DEPTH; k++) {
      const lineage = lineages.get(oldest);
      if (lineage === undefined) break;
      oldest = lineage.from;
    }
    lineages.delete(oldest);
    depth = LINEAGE_DEPTH;
  }
  lineages.set(list, { from, edits, depth });
}

/** How `list` was made, if its maker said so. */
export function lineageOf<T>(list: readonly T[]): ListLineage<T> | undefined {
  return lineages.get(list) as ListLineage<T> | undefined;
}

/**
 * The edits that make `list` from `earlier`, in order (those of each list between, oldest first: splices
 * applied one after another), or undefined when `earlier` is not among the lists `list`'s lineage leads
 * back to. The same list is no edit.
 */
export function editsSince<T>(list: readonly T[], earlier: readonly T[]): readonly ListEdit<T>[] | undefined {
  if (list === earlier) return NO_EDITS;
  const first = lineages.get(list) as ListLineage<T> | undefined;
  if (first === undefined) return undefined;
  if (first.from === earlier) return first.edits;
  const steps: (readonly ListEdit<T>[])[] = [first.edits];
  for (let l: readonly T[] = first.from; l !== earlier; ) {
    const lineage = lineages.get(l) as ListLineage<T> | undefined;
    if (lineage === undefined) return undefined;
    steps.push(lineage.edits);
    l = lineage.from;
  }
  return steps.reverse().flat();
}

const NO_EDITS: readonly ListEdit<never>[] = [];
