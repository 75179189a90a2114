import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { InputError } from '../eventlog/input-error.ts';
import { escapeControl, excerpt } from '../eventlog/excerpt.ts';
import { firstBadByte } from '../eventlog/utf8.ts';
import { importWatch, type ImportOptions, type ImportStats } from '../import/import-watch.ts';
import { eventLogHeader, writeEventLogFileInterruptibly, writeEventLogToStream } from './event-log-writer.ts';
import { EXIT_INTERRUPTED } from './exit-codes.ts';
import { importSummary } from '../import/import-summary.ts';

interface ImportCliOptions {
  output?: string;
  strict?: boolean;
  spacingMs?: number;
  start?: number;
}

/**
 * `routerbench import [watch.json]`: a Kubernetes watch stream
 * (`kubectl get routes,endpoints -A --watch -o json --output-watch-events`) from a file or stdin → a v1
 * event log on stdout or in a file. Problems go to stderr with their line and column and are skipped; with
 * --strict the first one is an InputError (exit 2) and, with -o, nothing is written.
 */
export function registerImportCommand(program: Command): Command {
  return program
    .command('import')
    .description('turn a Kubernetes watch stream (kubectl get routes,endpoints -A --watch -o json --output-watch-events) into a v1 event log')
    .argument('[input]', 'watch output file; stdin when omitted or "-"')
    .option('-o, --output <file>', 'write to a file (atomically) instead of stdout; Ctrl-C ends the input and writes what was read (exit 0 from stdin, 130 from a file)')
    .option('--strict', 'reject the input at the first malformed or unsupported object instead of skipping it')
    .option('--spacing-ms <n>', 'space events this many ms apart instead of using the objects\u2019 timestamps', parseNonNegative)
    .option('--start <time>', 'the instant that becomes time 0 (ISO 8601); default the first event\u2019s time', parseInstant)
    .action(async (input: string | undefined, opts: ImportCliOptions) => {
      const file = input === undefined || input === '-' ? '<stdin>' : input;
      if (file !== '<stdin>' && !existsSync(file)) throw new InputError(file, 'cannot read the watch stream: no such file');
      if (file !== '<stdin>' && statSync(file).isDirectory()) throw new InputError(file, 'is a directory; give the file that holds the watch stream');
      const options: ImportOptions = { file };
      if (opts.strict) options.strict = true;
      if (opts.spacingMs !== undefined) options.spacingMs = opts.spacingMs;
      if (opts.start !== undefined) options.startEpochMs = opts.start;
      const stats: ImportStats = { objects: 0, events: 0, skipped: 0, raisedTimes: 0, beforeStart: 0 };
      const events = importWatch(readChunks(input), options, (p) => {
        // What a problem quotes came from the input: bounded and escaped, as InputError's messages are.
        process.stderr.write(`${escapeControl(file)}:${p.line}:${p.column}: ${p.field ? `field '${excerpt(p.field, 200)}': ` : ''}${excerpt(p.message)} (skipped)\n`);
      }, stats);
      const header = eventLogHeader({ source: 'kubernetes-watch', input: file });
      if (opts.output === undefined) {
        await writeEventLogToStream(process.stdout, header, events);
        process.stderr.write(importSummary(stats) + '\n');
        return;
      }
      // Ctrl-C is how a watch ends: what was read is written either way. From stdin that is the whole input
      // (exit 0); from a file it is the file's first part only, so the exit code says interrupted.
      const interrupted = await writeEventLogFileInterruptibly(opts.output, header, events, 'keep-what-was-read');
      process.stderr.write(importSummary(stats) + (interrupted ? ' (interrupted: the input read so far is written)' : '') + '\n');
      if (interrupted && file !== '<stdin>') process.exitCode = EXIT_INTERRUPTED;
    });
}

function parseNonNegative(v: string): number {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError('expected a whole number of milliseconds');
  return Number(v);
}

function parseInstant(v: string): number {
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new InvalidArgumentError('expected an ISO 8601 time, e.g. 2026-11-29T19:00:00Z');
  return t;
}

/** The input in 1 MiB chunks, read synchronously (file or stdin pipe). */
function* readChunks(input: string | undefined): Generator<string> {
  const fd = input === undefined || input === '-' ? 0 : openSync(input, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  // kubectl writes UTF-8; other bytes would quietly become U+FFFD in names.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  try {
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        // A non-blocking stdin with nothing yet: wait a little (CLI code; the simulation never does this).
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
          continue;
        }
        if ((err as NodeJS.ErrnoException).code === 'EOF') break;
        if ((err as NodeJS.ErrnoException).code === 'EISDIR') throw new InputError(input ?? '<stdin>', 'is a directory; give the file that holds the watch stream');
        throw err;
      }
      if (n === 0) break;
      const chunk = buf.subarray(0, n);
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        const at = firstBadByte(chunk);
        throw new InputError(input ?? '<stdin>', `not UTF-8 text: byte 0x${chunk[at]!.toString(16).padStart(2, '0')} at byte ${offset + at + 1} of the input`);
      }
      offset += n;
      yield text;
    }
    let rest: string;
    try {
      rest = decoder.decode();
    } catch {
      throw new InputError(input ?? '<stdin>', 'not UTF-8 text: the input ends inside a multi-byte character');
    }
    if (rest.length > 0) yield rest;
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}
