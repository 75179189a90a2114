import type { Step } from './scheduler.ts';

/**
 * A binary min-heap of timers ordered by (time, insertion sequence), so timers due at the same
 * microsecond fire in the order they were scheduled: no tie is left to chance.
 */
export interface QueueEntry {
  atUs: number;
  seq: number;
  fire: () => Step;
  cancelled: boolean;
}

export class EventQueue {
  private heap: QueueEntry[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(atUs: number, fire: () => Step, seq = this.nextSeq++): QueueEntry {
    const entry: QueueEntry = { atUs, seq, fire, cancelled: false };
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = h[parent]!;
      if (!before(entry, p)) break;
      h[i] = p;
      i = parent;
    }
    h[i] = entry;
    return entry;
  }

  /**
   * A place in the scheduling order, taken now for an entry pushed later (`push(at, fire, seq)`): it fires
   * among same-time entries as if it had been pushed now.
   */
  reserve(): number {
    return this.nextSeq++;
  }

  /** The earliest live entry's time, dropping cancelled entries from the top. */
  peekTime(): number | undefined {
    this.dropCancelled();
    return this.heap[0]?.atUs;
  }

  pop(): QueueEntry | undefined {
    this.dropCancelled();
    return this.popRaw();
  }

  private dropCancelled(): void {
    while (this.heap.length > 0 && this.heap[0]!.cancelled) this.popRaw();
  }

  private popRaw(): QueueEntry | undefined {
    const h = this.heap;
    const top = h[0];
    if (top === undefined) return undefined;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      const n = h.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && before(h[r]!, h[l]!) ? r : l;
        if (!before(h[c]!, last)) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}

function before(a: QueueEntry, b: QueueEntry): boolean {
  return a.atUs < b.atUs || (a.atUs === b.atUs && a.seq < b.seq);
}
