/**
 * A memo of what was used lately: two generations of at most `max` entries each. A long run keeps
 * inventing names (routes come and go all day), and a memo cleared only when full holds every name since
 * it last filled: a dcm-slots replay of the saturated day held 11,500 backend names at 1M events and
 * 30,900 at 3M, and its memory grew with the log's length. Here an entry used during the last generation
 * is carried into the next; one unused for a whole generation goes with it. So memory is at most
 * 2 × `max` entries, whatever the length of the run, and a working set smaller than `max` is never lost.
 */
export class RecentMap<K, V> {
  private current = new Map<K, V>();
  private previous = new Map<K, V>();

  constructor(private readonly max: number) {
    if (!(max >= 1)) throw new Error(`RecentMap needs max >= 1 (got ${max})`);
  }

  get(key: K): V | undefined {
    const value = this.current.get(key);
    if (value !== undefined) return value;
    const old = this.previous.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: K, value: V): void {
    if (this.current.size >= this.max) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }

  /** Entries held, both generations counted (a key in both counts twice). */
  get size(): number {
    return this.current.size + this.previous.size;
  }
}
