import { RecentMap } from './recent-map.ts';

/**
 * One string object per distinct text, for names that several parts of a run make on their own (a backend
 * name in the renderer and in a config manager, a service key in the state, the strategies' index and the
 * renderer). Maps keyed by such a name then find it by identity; with two copies of one text, every lookup
 * compares the characters of the copy it was given with its own, which is cold in the cache by the time the
 * name comes again.
 *
 * Bounded: it keeps the texts used lately (RecentMap, at most 2 × `max`), so a run that keeps inventing names
 * does not keep them all; a text forgotten costs only the shared identity until it is made again. The answer
 * is always a string equal to the text, so nothing but speed depends on the table.
 */
export class OneString {
  private readonly texts: RecentMap<string, string>;

  constructor(max: number) {
    this.texts = new RecentMap(max);
  }

  of(text: string): string {
    const kept = this.texts.get(text);
    if (kept !== undefined) return kept;
    this.texts.set(text, text);
    return text;
  }
}
