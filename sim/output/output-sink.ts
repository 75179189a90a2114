import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { RecordBytes } from './record-bytes.ts';
import type { InputEventType } from '../../core/events.ts';
import type { OutputHeader, OutputRecord } from './records.ts';

/** Where a run's output log goes. */
export interface OutputSink {
  record(r: OutputRecord): void;
  /**
   * An `input` record given by its fields, for sinks that write it without the object: a run hands its churn
   * inputs (most of a long log's records) here when nothing else watches its records.
   */
  recordInput?(atUs: number, event: InputEventType, subject: string): void;
  /** The run completed: make the log visible. */
  commit(): void;
  /** The run failed: leave nothing half-written. */
  abort(): void;
}

const FLUSH_BYTES = 1 << 16;

/**
 * JSON Lines into `<path>.partial`, renamed onto `<path>` only when the run completes, so a crashed or
 * rejected run never leaves a truncated log where a report would read it. Buffered: one write per 64 KiB.
 */
export class JsonlFileSink implements OutputSink {
  private readonly partial: string;
  private fd: number | null;
  private readonly buffer = new RecordBytes(FLUSH_BYTES + 4096);

  constructor(
    private readonly path: string,
    header: OutputHeader,
  ) {
    this.partial = `${path}.partial`;
    this.fd = openSync(this.partial, 'w');
    this.buffer.appendLine(JSON.stringify(header));
  }

  record(r: OutputRecord): void {
    this.buffer.append(r);
    if (this.buffer.length >= FLUSH_BYTES) this.flush();
  }

  recordInput(atUs: number, event: InputEventType, subject: string): void {
    this.buffer.appendInput(atUs, event, subject);
    if (this.buffer.length >= FLUSH_BYTES) this.flush();
  }

  private flush(): void {
    if (this.fd === null) throw new Error('output log already closed');
    const bytes = this.buffer.bytes();
    for (let done = 0; done < bytes.length; ) done += writeSync(this.fd, bytes, done, bytes.length - done);
    this.buffer.clear();
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

export const nullSink: OutputSink = { record() {}, recordInput() {}, commit() {}, abort() {} };
