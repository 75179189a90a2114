import type { OutputRecord } from './records.ts';

const SECOND_US = 1_000_000;

/**
 * The compact output log's successful runtime commands: counted per verb and written as one
 * `runtime.counts` record per simulated second that had any, instead of one `runtime.command` line each.
 * Under churn a dcm strategy sends several commands per event, and their lines were most of the log (12×
 * the input's size on a saturated day); what a reader needs of a successful command is that it happened.
 * Failed attempts are not counted here: the router records them in full.
 *
 * Every record of the run passes through `pass` before it is written, so the counts go out before the
 * first record of a later second and the log's times never go backwards: the counts record takes the
 * latest time seen so far.
 */
export class CommandTally {
  private counts = new Map<string, number>();
  private total = 0;
  /** End of the second the pending counts belong to (exclusive). */
  private windowEndUs = 0;
  private lastUs = 0;

  constructor(private readonly write: (r: OutputRecord) => void) {}

  /** One successful command at `atUs`, by its verb (`set server`, `show servers`, …). */
  count(atUs: number, verb: string): void {
    if (atUs >= this.windowEndUs) {
      this.flush();
      this.windowEndUs = (Math.floor(atUs / SECOND_US) + 1) * SECOND_US;
    }
    if (atUs > this.lastUs) this.lastUs = atUs;
    this.counts.set(verb, (this.counts.get(verb) ?? 0) + 1);
    this.total++;
  }

  /** Called with every other record before it is written. */
  pass(r: OutputRecord): void {
    if (this.total > 0 && (r.atUs >= this.windowEndUs || r.type === 'run.end')) this.flush();
    if (r.atUs > this.lastUs) this.lastUs = r.atUs;
  }

  private flush(): void {
    if (this.total === 0) return;
    // Verbs in a fixed order, so that the same run writes the same bytes.
    const ok: Record<string, number> = {};
    for (const verb of [...this.counts.keys()].sort()) ok[verb] = this.counts.get(verb)!;
    this.counts = new Map();
    this.total = 0;
    this.write({ atUs: this.lastUs, type: 'runtime.counts', ok });
  }
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
