import { SingleBar } from 'cli-progress';
import { formatDuration } from '../../reports/render/terminal.ts';
import { inputsCounted, type OutputRecord } from '../output/records.ts';
import type { RecordObserver } from '../run.ts';
import type { RunInput } from '../run-input.ts';
import type { GenerateSpec } from '../generate/spec.ts';

/** Where progress goes: stderr, or in a worker thread a stand-in that passes writes on to it. */
export interface ProgressStream {
  /** A terminal gets a bar rewritten in place (cli-progress); anything else a plain line now and then. */
  isTTY?: boolean;
  /** The terminal's width, for the bar. */
  columns?: number;
  write(text: string): unknown;
}

export interface RunProgressOptions {
  /** Wall-clock milliseconds (performance.now): the CLI may read real time, the simulation never does. */
  now: () => number;
  stream: ProgressStream;
}

/**
 * How often the clock is read, in records (an `input.counts` weighs as the events it counts, which would
 * otherwise have been records of their own): often enough for a steady line, rare enough to cost nothing.
 */
const CHECK_EVERY = 16_384;
/** A terminal's bar is redrawn this often; a log (CI) gets a line this often, and none for a short run. */
const TTY_EVERY_MS = 500;
const LOG_EVERY_MS = 10_000;

/**
 * How far a run is, as a fraction of its whole, from the run's position (simulated µs reached) and the input:
 * - a run with a fixed end (`sim.durationMs`): simulated time against it, exactly what the engine runs to;
 * - else an event log file (a bare .jsonl, or the one a scenario names): bytes read against its size (the
 *   reader runs ahead of the simulation by at most a chunk, 1 MiB);
 * - else generators: simulated time against their last event time and the settle time after it;
 * - else (inline events only, which are few) nothing: counts, no percent.
 */
export function progressFraction(input: RunInput & { generate?: GenerateSpec }): ((atUs: number) => number) | undefined {
  const durationMs = input.settings.sim.durationMs;
  if (durationMs !== undefined) return durationMs > 0 ? (atUs) => Math.min(1, atUs / (durationMs * 1000)) : undefined;
  const read = input.readProgress;
  if (read !== undefined) {
    return () => {
      const { done, total } = read();
      return total > 0 ? Math.min(1, done / total) : 1;
    };
  }
  const g = input.generate;
  if (g?.durationMs !== undefined) {
    const endMs = (g.startMs ?? 0) + g.durationMs + input.settings.sim.settleMs;
    return endMs > 0 ? (atUs) => Math.min(1, atUs / (endMs * 1000)) : undefined;
  }
  return undefined;
}

/**
 * Progress of one long run, from the records it makes: percent done and time left where the input says how
 * long it is (`progressFraction`), events replayed, simulated time reached, events per second of wall time.
 * On a terminal, cli-progress's bar (as `sweep` shows), cleared at the end; in a log, a plain line every 10 s.
 * Nothing is shown until the first interval has passed, so short runs print nothing.
 */
export class RunProgress implements RecordObserver {
  private events = 0;
  private untilCheck = CHECK_EVERY;
  private atUs = 0;
  private readonly started: number;
  private lastShown: number;
  private readonly every: number;
  private fraction: ((atUs: number) => number) | undefined;
  private bar: SingleBar | undefined;

  constructor(
    private readonly label: string,
    private readonly opts: RunProgressOptions,
  ) {
    this.started = opts.now();
    this.lastShown = this.started;
    this.every = opts.stream.isTTY === true ? TTY_EVERY_MS : LOG_EVERY_MS;
  }

  begin(input: RunInput): void {
    this.fraction = progressFraction(input);
  }

  add(r: OutputRecord): void {
    let weight = 1;
    if (r.type === 'input') this.events++;
    else if (r.type === 'input.counts') {
      const n = inputsCounted(r);
      this.events += n;
      weight = Math.max(1, n);
    }
    this.atUs = r.atUs;
    this.untilCheck -= weight;
    if (this.untilCheck > 0) return;
    this.untilCheck = CHECK_EVERY;
    const t = this.opts.now();
    if (t - this.lastShown < this.every) return;
    this.lastShown = t;
    this.show(t);
  }

  /** Clears a terminal's bar that was shown; a log keeps its lines. */
  done(): void {
    this.bar?.stop();
    this.bar = undefined;
  }

  private show(t: number): void {
    const seconds = (t - this.started) / 1000;
    const rate = seconds > 0 ? Math.round(this.events / seconds) : 0;
    const f = this.fraction?.(this.atUs);
    // The time left at the rate so far: the wall time per fraction done, times the fraction to go.
    const eta = f === undefined || f <= 0 ? '?' : formatSeconds((seconds * (1 - f)) / f);
    const counts = `${this.events.toLocaleString('en-US')} events, ${formatDuration(Math.floor(this.atUs / 1000))} simulated, ${rate.toLocaleString('en-US')} events/s`;
    if (this.opts.stream.isTTY !== true) {
      this.opts.stream.write(`${this.label}: ${f === undefined ? '' : `${percent(f)} done, ETA ${eta}, `}${counts}\n`);
      return;
    }
    const value = f === undefined ? 0 : Math.round(f * 1000);
    // One line that never reaches the terminal's last column: the percent and ETA always, the label cut to
    // fit (but kept to LABEL_MIN characters), then as much of the counts as is left.
    const width = (this.opts.stream.columns ?? 80) - 1;
    const head = f === undefined ? '' : ` ${'-'.repeat(BAR_SIZE)} ${percent(f)} | ETA ${eta}`;
    const label = fit(this.label, Math.max(Math.min(this.label.length, LABEL_MIN), width - head.length - 3 - counts.length));
    const countsRoom = width - label.length - head.length - 3;
    const payload = { label_text: label, percent_text: f === undefined ? '' : percent(f), eta_text: eta, counts_text: countsRoom > 1 ? `${f === undefined ? ':' : ' |'} ${fit(counts, countsRoom)}` : '' };
    if (this.bar === undefined) {
      const format = f === undefined ? '{label_text}{counts_text}' : '{label_text} {bar} {percent_text} | ETA {eta_text}{counts_text}';
      // Redrawn when this class says (update, then render), not on cli-progress's timer: the run holds the
      // thread, so a timer would only fire once it is over. The terminal's cursor and line wrapping are left
      // as they are (the line is cut to fit instead): a run stopped by Ctrl-C never reaches `done()` to
      // restore them.
      this.bar = new SingleBar({ stream: this.opts.stream as NodeJS.WriteStream, format, clearOnComplete: true, synchronousUpdate: false, barsize: BAR_SIZE, linewrap: true });
      this.bar.start(1000, value, payload);
    } else {
      this.bar.update(value, payload);
      this.bar.render();
    }
  }
}

const BAR_SIZE = 30;
/** A label is cut to no fewer characters than this; the counts give way first. */
const LABEL_MIN = 24;

/** `text` cut to `room` characters (with an ellipsis), so that the line fits the terminal and never wraps. */
function fit(text: string, room: number): string {
  if (text.length <= room) return text;
  return room > 1 ? `${text.slice(0, room - 1)}…` : '';
}

function percent(f: number): string {
  return `${Math.floor(f * 100)}%`;
}

/** Seconds as `42s`, `3m07s` or `1h05m`: what is left of a run or a sweep. */
export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  const t = Math.round(s);
  if (t < 60) return `${t}s`;
  if (t < 3600) return `${Math.floor(t / 60)}m${String(t % 60).padStart(2, '0')}s`;
  return `${Math.floor(t / 3600)}h${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * stderr as a progress stream. In a worker thread `process.stderr` is no terminal (its writes go through the
 * main thread), so whether the real one is, and its width, come from the main thread.
 */
export function stderrStream(tty = process.stderr.isTTY === true, columns = process.stderr.columns): ProgressStream {
  return { isTTY: tty, ...(columns !== undefined && { columns }), write: (text) => process.stderr.write(text) };
}

/**
 * Runs `run` with progress on this process's stderr, by the wall clock (or with no observer when `enabled`
 * is false), and clears a terminal's bar afterwards, also when the run throws.
 */
export function withStderrProgress<T>(label: string, enabled: boolean, run: (observers: RecordObserver[]) => T, stream: ProgressStream = stderrStream()): T {
  if (!enabled) return run([]);
  const progress = new RunProgress(label, { now: () => performance.now(), stream });
  try {
    return run([progress]);
  } finally {
    progress.done();
  }
}
