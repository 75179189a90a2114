import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { InputEvent } from '../../core/events.ts';
import { aboutDestination, prepareDestination } from './write-outputs.ts';

/** Header line of a v1 event log; `extra` adds fields such as seed and source. */
export function eventLogHeader(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ routerbench: 'eventlog', version: 1, ...extra });
}

const CHUNK_CHARS = 1 << 16;

/** Lines in chunks of about 64 KiB, so a 10-million-event log never sits in memory as one string. */
export function* eventLogChunks(header: string, events: Iterable<InputEvent>): Generator<string> {
  let buf = `${header}\n`;
  for (const e of events) {
    buf += `${JSON.stringify(e)}\n`;
    if (buf.length >= CHUNK_CHARS) {
      yield buf;
      buf = '';
    }
  }
  if (buf.length > 0) yield buf;
}

/**
 * Writes to a stream (stdout), waiting for it to drain. A reader that goes away (`| head`: EPIPE) ends the
 * writing quietly; any other stream error is thrown. An input error mid-way leaves what was written.
 */
export async function writeEventLogToStream(out: Writable, header: string, events: Iterable<InputEvent>): Promise<number> {
  let gone = false;
  let failure: Error | undefined;
  const onError = (err: NodeJS.ErrnoException): void => {
    if (err.code === 'EPIPE') gone = true;
    else failure = err;
  };
  // Left attached: an EPIPE can arrive after the last write has been handed over.
  out.on('error', onError);
  let n = 0;
  for (const chunk of eventLogChunks(header, events)) {
    if (gone) break;
    if (failure !== undefined) throw failure;
    n += chunk.length;
    if (!out.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          out.off('drain', done);
          out.off('error', done);
          out.off('close', done);
          resolve();
        };
        out.once('drain', done);
        out.once('error', done);
        out.once('close', done);
      });
    }
  }
  if (failure !== undefined) throw failure;
  return n;
}

/** Writes a file through a temporary sibling and a rename: on any error nothing is left at `path`. */
export function writeEventLogFile(path: string, header: string, events: Iterable<InputEvent>): void {
  const out = openTemporary(path);
  try {
    for (const chunk of eventLogChunks(header, events)) writeSync(out.fd, chunk);
  } catch (err) {
    abandon(out, err);
  }
  commit(out);
}

/** What Ctrl-C (SIGINT), SIGTERM or SIGHUP does to an interruptible write. */
export type OnInterrupt =
  /** End the input there: the events read so far are written and the file committed (a watch has no other end). */
  | 'keep-what-was-read'
  /** Nothing is left at the path, not even the temporary file. */
  | 'discard';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * As writeEventLogFile, but a signal stops it cleanly instead of killing the process with a temporary file left
 * behind. The writing turns the event loop after each chunk, so the signal's handler runs; a read blocked on an
 * idle pipe still waits for its writer (kubectl, killed by the same Ctrl-C, closes it). True when interrupted.
 */
export async function writeEventLogFileInterruptibly(path: string, header: string, events: Iterable<InputEvent>, onInterrupt: OnInterrupt): Promise<boolean> {
  let interrupted = false;
  const stop = (): void => {
    interrupted = true;
  };
  for (const s of STOP_SIGNALS) process.on(s, stop);
  const out = openTemporary(path);
  try {
    for (const chunk of eventLogChunks(header, until(events, () => interrupted))) {
      writeSync(out.fd, chunk);
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (interrupted && onInterrupt === 'discard') break;
    }
  } catch (err) {
    abandon(out, err);
  } finally {
    for (const s of STOP_SIGNALS) process.off(s, stop);
  }
  if (interrupted && onInterrupt === 'discard') {
    closeSync(out.fd);
    rmSync(out.tmp, { force: true });
    return true;
  }
  commit(out);
  return interrupted;
}

function* until<T>(items: Iterable<T>, stopped: () => boolean): Generator<T> {
  for (const item of items) {
    yield item;
    if (stopped()) return;
  }
}

interface Temporary {
  fd: number;
  tmp: string;
  path: string;
}

function openTemporary(path: string): Temporary {
  prepareDestination(path);
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    return { fd: openSync(tmp, 'w'), tmp, path };
  } catch (err) {
    throw aboutDestination(err, tmp, path);
  }
}

function commit(out: Temporary): void {
  try {
    closeSync(out.fd);
    renameSync(out.tmp, out.path);
  } catch (err) {
    abandon(out, err);
  }
}

function abandon(out: Temporary, err: unknown): never {
  try {
    closeSync(out.fd);
  } catch {
    // already closed
  }
  rmSync(out.tmp, { force: true });
  throw aboutDestination(err, out.tmp, out.path);
}
