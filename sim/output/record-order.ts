import type { OutputRecord } from './records.ts';

/**
 * The order a run writes its records in, checked as they are read back: virtual time never goes backwards,
 * reloads are numbered 1, 2, 3 … as they start, and each ends (with its own number) before the next starts,
 * since the router runs one reload at a time. A log edited by hand or joined from two runs breaks one of
 * these, and a report folded from it would count a reload twice or measure a split brain across the seam.
 * A run may stop during its last reload, so one reload still open at the end is allowed.
 */
export class RecordOrder {
  private lastAtUs = 0;
  private lastAtLine = 0;
  /** Number of the last reload started, and whether it has ended. */
  private reloads = 0;
  private open = false;
  private openLine = 0;

  /** What is wrong with this record coming next, as [field, message], or undefined. */
  check(r: OutputRecord, no: number): [string, string] | undefined {
    if (r.atUs < this.lastAtUs) return ['atUs', `time goes backwards: ${r.atUs} µs after ${this.lastAtUs} µs at line ${this.lastAtLine}; a run writes its records in time order`];
    this.lastAtUs = r.atUs;
    this.lastAtLine = no;
    if (r.type === 'reload.start') {
      if (this.open) return ['type', `reload ${r.n} starts while reload ${this.reloads} (started at line ${this.openLine}) has not ended; reloads run one at a time`];
      if (r.n !== this.reloads + 1) return ['n', `reload ${r.n} starts after reload ${this.reloads}; reloads are numbered 1, 2, 3 … as they start`];
      this.reloads = r.n;
      this.open = true;
      this.openLine = no;
    } else if (r.type === 'reload.end') {
      if (!this.open || r.n !== this.reloads) {
        const running = this.open ? `reload ${this.reloads} is the one running` : this.reloads === 0 ? 'no reload has started' : `reload ${this.reloads} has already ended`;
        return ['n', `reload ${r.n} ends but ${running}`];
      }
      this.open = false;
    }
    return undefined;
  }
}
