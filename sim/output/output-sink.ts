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
  private fd: number;
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
    this.buffer += JSON.stringify(r) + '\n';
    if (this.buffer.length >= FLUSH_CHARS) this.flush();
  }

  private flush(): void {
    writeSync(this.fd, this.buffer);
    this.buffer = '';
  }

  commit(): void {
    this.flush();
    closeSync(this.fd);
    renameSync(this.partial, this.path);
  }

  abort(): void {
    closeSync(this.fd);
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
