/**
 * How far ahead a walk of two versions of a list looks for the element it is at, in the other list. A
 * reload changes a few entries of each list (backends, their names, map lines) and keeps the rest in order,
 * so a changed entry is found within a few places or not at all.
 */
export const LOOK_AHEAD = 8;

/** The first index from `from` within LOOK_AHEAD places where `list` holds `x` (by identity), or -1. */
export function indexAhead<T>(list: readonly T[], from: number, x: T): number {
  const end = Math.min(list.length, from + LOOK_AHEAD);
  for (let k = from; k < end; k++) if (list[k] === x) return k;
  return -1;
}
