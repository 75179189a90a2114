import { formatDuration } from '../../reports/render/terminal.ts';
import type { OutputRecord } from '../output/records.ts';
import type { RecordObserver } from '../run.ts';

export interface RunProgressOptions {
  /** Wall-clock milliseconds (performance.now): the CLI may read real time, the simulation never does. */
  now: () => number;
  write: (text: string) => void;
  /** A terminal gets one line rewritten in place; anything else gets a plain line now and then. */
  tty: boolean;
}

/** How often the clock is read, in records: often enough for a steady line, rare enough to cost nothing. */
const CHECK_EVERY = 16_384;
/** A terminal line is rewritten this often; a log (CI) gets a line this often, and none for a short run. */
const TTY_EVERY_MS = 500;
const LOG_EVERY_MS = 10_000;

/**
 * Progress of one long run, from the records it makes: events replayed, simulated time reached, events per
 * second of wall time. A streamed event log has no known length, so there is no bar and no ETA. Nothing is
 * shown until the first interval has passed, so short runs print nothing.
 */
export class RunProgress implements RecordObserver {
  private events = 0;
  private records = 0;
  private atUs = 0;
  private readonly started: number;
  private lastShown: number;
  private shown = false;
  private readonly every: number;

  constructor(
    private readonly label: string,
    private readonly opts: RunProgressOptions,
  ) {
    this.started = opts.now();
    this.lastShown = this.started;
    this.every = opts.tty ? TTY_EVERY_MS : LOG_EVERY_MS;
  }

  add(r: OutputRecord): void {
    if (r.type === 'input') this.events++;
    this.atUs = r.atUs;
    if (++this.records % CHECK_EVERY !== 0) return;
    const t = this.opts.now();
    if (t - this.lastShown < this.every) return;
    this.lastShown = t;
    this.show(t);
  }

  /** Clears a terminal line that was shown; a log keeps its lines. */
  done(): void {
    if (this.shown && this.opts.tty) this.opts.write('\r\x1b[K');
  }

  private show(t: number): void {
    const seconds = (t - this.started) / 1000;
    const rate = seconds > 0 ? Math.round(this.events / seconds) : 0;
    const line = `${this.label}: ${this.events.toLocaleString('en-US')} events, ${formatDuration(Math.floor(this.atUs / 1000))} simulated, ${rate.toLocaleString('en-US')} events/s`;
    this.opts.write(this.opts.tty ? `\r\x1b[K${line}` : `${line}\n`);
    this.shown = true;
  }
}

/**
 * Runs `run` with a progress line on this process's stderr, by the wall clock (or with no observer when
 * `enabled` is false), and clears a terminal line afterwards, also when the run throws.
 */
export function withStderrProgress<T>(label: string, enabled: boolean, run: (observers: RecordObserver[]) => T, tty = process.stderr.isTTY === true): T {
  if (!enabled) return run([]);
  const progress = new RunProgress(label, { now: () => performance.now(), write: (t) => void process.stderr.write(t), tty });
  try {
    return run([progress]);
  } finally {
    progress.done();
  }
}
