import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { OutputHeader, OutputRecord } from './records.ts';

/** Where a run's output log goes. */
export interface OutputSink {
  record(r: OutputRecord): void;
  /** The run completed: make the log visible. */
  commit(): void;
  /** The run failed: leave nothing half-written. */
  abort(): void;
}

const FLUSH_CHARS = 1 << 16;

/**
 * JSON Lines into `<path>.partial`, renamed onto `<path>` only when the run completes, so a crashed or
 * rejected run never leaves a truncated log where a report would read it. Buffered: one write per 64 KiB.
 */
export class JsonlFileSink implements OutputSink {
  private readonly partial: string;
  private fd: number | null;
  private buffer = '';

  constructor(
    private readonly path: string,
    header: OutputHeader,
  ) {
    this.partial = `${path}.partial`;
    this.fd = openSync(this.partial, 'w');
    this.buffer = JSON.stringify(header) + '\n';
  }

  record(r: OutputRecord): void {
    this.buffer += recordLine(r);
    if (this.buffer.length >= FLUSH_CHARS) this.flush();
  }

  private flush(): void {
    if (this.fd === null) throw new Error('output log already closed');
    writeSync(this.fd, this.buffer);
    this.buffer = '';
  }

  commit(): void {
    if (this.fd === null) return;
    renameSync(this.close(), this.path);
  }

  /** Writes everything out and closes, leaving the log under its partial name (another thread may commit it). */
  close(): string {
    if (this.fd !== null) {
      this.flush();
      closeSync(this.fd);
      this.fd = null;
    }
    return this.partial;
  }

  /** Idempotent: a failed run may be aborted by the run and again by the command that started it. */
  abort(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    rmSync(this.partial, { force: true });
  }
}

/** Keeps records in memory (tests, and HTML timelines of small runs). */
export class MemorySink implements OutputSink {
  readonly records: OutputRecord[] = [];
  record(r: OutputRecord): void {
    this.records.push(r);
  }
  commit(): void {}
  abort(): void {}
}

export const nullSink: OutputSink = { record() {}, commit() {}, abort() {} };

/**
 * One record as its line. Input records are most of a compact log, one per event: they are written by
 * hand, the same bytes `JSON.stringify` gives for the object run.ts makes (keys in that order; the event
 * type is one of a fixed set of plain names; only the subject, free text, needs JSON's escaping), without
 * walking the object's properties. output-sink.test.ts holds the two equal.
 */
export function recordLine(r: OutputRecord): string {
  if (r.type === 'input') return `{"atUs":${r.atUs},"type":"input","event":"${r.event}","subject":${JSON.stringify(r.subject)}}\n`;
  return JSON.stringify(r) + '\n';
}
