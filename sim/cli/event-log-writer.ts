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
  prepareDestination(path);
  const tmp = `${path}.tmp-${process.pid}`;
  let fd: number;
  try {
    fd = openSync(tmp, 'w');
  } catch (err) {
    throw aboutDestination(err, tmp, path);
  }
  try {
    for (const chunk of eventLogChunks(header, events)) writeSync(fd, chunk);
    closeSync(fd);
    renameSync(tmp, path);
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(tmp, { force: true });
    throw aboutDestination(err, tmp, path);
  }
}
