import type { ReloadReason } from '../../core/reload-reason.ts';
import type { InputEventType } from '../../core/events.ts';
import type { CountedInputType, OutputRecord } from './records.ts';

const SECOND_US = 1_000_000;

/**
 * What the compact output log counts instead of writing line by line, per simulated second:
 * - endpoint events (`input.counts`), unless `inputs` is 'traced'. A long log's inputs are nearly all
 *   endpoint churn, one `input` line each, which made its output log over a quarter of the input's size
 *   and writing it 5–14% of a reload-always replay of the saturated day (docs/performance.md, 3 Dec 2026);
 *   the report reads them as counts per time bucket or not at all. Route and cluster inputs stay lines.
 * - successful runtime commands, per verb (`runtime.counts`). Under churn a dcm strategy sends several
 *   commands per event, and their lines were most of the log (12× the input's size on a saturated day);
 *   what a reader needs of a successful command is that it happened. Failed attempts are not counted here:
 *   the router records them in full.
 * - reload requests folded into a reload already asked for (`reload.counts`): a `reload.request` without a
 *   detail that comes while another request waits (one was made since the last `reload.start`). The first
 *   request after each reload start, the one that leads to the next reload, stays a line, and so does
 *   every request with a detail; under endpoint churn the rest were one line per event (reload-always
 *   writes a request for nearly every endpoints change), and the report needs only their number per reason.
 *
 * Every record of the run passes through `pass` before it is written, so the counts go out before the
 * first record of a later second and the log's times never go backwards: a counts record takes the latest
 * time seen so far. In one second the inputs' record comes first, then the commands', then the requests'.
 */
export class CompactTally {
  /** Endpoint events counted since the last flush: `endpoints.set`, `endpoints.delete`. */
  private sets = 0;
  private deletes = 0;
  /**
   * Successful commands by verb since the last flush, as two lists searched in place: a second sees only a
   * few verbs, each a constant string (the same object every time, so each comparison is one of pointers),
   * where a map cost a lookup and a store per command.
   */
  private readonly verbs: string[] = [];
  private readonly verbCounts: number[] = [];
  private requests = new Map<ReloadReason, number>();
  private total = 0;
  /** End of the second the pending counts belong to (exclusive). */
  private windowEndUs = 0;
  private lastUs = 0;
  /** A reload request was made since the last reload started: later ones fold into the same reload. */
  private requestWaits = false;

  constructor(
    private readonly write: (r: OutputRecord) => void,
    private readonly inputs: 'counted' | 'traced' = 'counted',
  ) {}

  /** Whether an input of this type is counted rather than written (the caller then calls countInput). */
  counts(event: InputEventType): boolean {
    return this.inputs === 'counted' && (event === 'endpoints.set' || event === 'endpoints.delete');
  }

  /** One endpoint event applied at `atUs` (see `counts`). */
  countInput(atUs: number, event: CountedInputType): void {
    this.open(atUs);
    if (event === 'endpoints.set') this.sets++;
    else this.deletes++;
    this.total++;
  }

  /** One successful command at `atUs`, by its verb (`set server`, `show servers`, …). */
  count(atUs: number, verb: string): void {
    this.open(atUs);
    const i = this.verbs.indexOf(verb);
    if (i >= 0) this.verbCounts[i]!++;
    else {
      this.verbs.push(verb);
      this.verbCounts.push(1);
    }
    this.total++;
  }

  /**
   * Called with every other record before it is written; true when the record was counted instead (an
   * endpoint input, or a folded reload request), and must then not be written.
   */
  pass(r: OutputRecord): boolean {
    if (r.type === 'input' && this.counts(r.event)) {
      this.countInput(r.atUs, r.event as CountedInputType);
      return true;
    }
    if (r.type === 'reload.request') {
      if (r.detail === undefined && this.foldRequest(r.atUs, r.reason)) return true;
      this.requestWaits = true;
    } else if (r.type === 'reload.start') {
      this.requestWaits = false;
    }
    if (this.total > 0 && r.type === 'run.end') this.flush();
    this.passInput(r.atUs);
    return false;
  }

  /** What `pass` does with an `input` record at `atUs` that is not counted, without the record. */
  passInput(atUs: number): void {
    if (this.total > 0 && atUs >= this.windowEndUs) this.flush();
    if (atUs > this.lastUs) this.lastUs = atUs;
  }

  /**
   * A reload request without a detail at `atUs`: counted, and true, when it folds into one that waits;
   * otherwise false, and the caller writes it as a record (which then passes here). The router asks this
   * before it makes the record, so a folded request costs no object.
   */
  foldRequest(atUs: number, reason: ReloadReason): boolean {
    if (!this.requestWaits) return false;
    this.open(atUs);
    this.requests.set(reason, (this.requests.get(reason) ?? 0) + 1);
    this.total++;
    return true;
  }

  private open(atUs: number): void {
    if (atUs >= this.windowEndUs) {
      this.flush();
      this.windowEndUs = (Math.floor(atUs / SECOND_US) + 1) * SECOND_US;
    }
    if (atUs > this.lastUs) this.lastUs = atUs;
  }

  private flush(): void {
    if (this.total === 0) return;
    // Keys in a fixed order, so that the same run writes the same bytes.
    if (this.sets + this.deletes > 0) {
      const events: Partial<Record<CountedInputType, number>> = {};
      if (this.deletes > 0) events['endpoints.delete'] = this.deletes;
      if (this.sets > 0) events['endpoints.set'] = this.sets;
      this.write({ atUs: this.lastUs, type: 'input.counts', events });
      this.sets = 0;
      this.deletes = 0;
    }
    if (this.verbs.length > 0) {
      const ok = sortedCounts(new Map(this.verbs.map((v, i) => [v, this.verbCounts[i]!])));
      this.write({ atUs: this.lastUs, type: 'runtime.counts', ok });
      this.verbs.length = 0;
      this.verbCounts.length = 0;
    }
    if (this.requests.size > 0) {
      this.write({ atUs: this.lastUs, type: 'reload.counts', requests: sortedCounts(this.requests) });
      this.requests = new Map();
    }
    this.total = 0;
  }
}

function sortedCounts<K extends string>(counts: Map<K, number>): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const key of [...counts.keys()].sort()) out[key] = counts.get(key)!;
  return out;
}

/**
 * A command line's verb: its first two words (`set server`, `add map`, `show servers`), the unit the
 * counts are kept by. A line of one word is its own verb.
 */
export function commandVerb(line: string): string {
  const first = line.indexOf(' ');
  if (first < 0) return line;
  const second = line.indexOf(' ', first + 1);
  return second < 0 ? line : line.slice(0, second);
}
