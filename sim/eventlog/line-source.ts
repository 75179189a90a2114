import { isAscii, isUtf8 } from 'node:buffer';
import { closeSync, readSync } from 'node:fs';
import { formatBytes, limit } from '../limits.ts';
import { InputError } from './input-error.ts';
import { openRegularFile } from './regular-file.ts';
import { firstBadByte } from './utf8.ts';

/** Bytes of a file read so far, counted a chunk at a time (progress: read against the file's size). */
export interface ReadPosition {
  bytes: number;
}

/** One line of a text file, numbered from 1, without its line terminator. */
export interface Line {
  no: number;
  text: string;
}

/**
 * A pull cursor over lines: `next()` gives the next line (without "\n" or "\r\n") or undefined at the end,
 * and `no` is the number of the line it last gave. The event reader pulls through this rather than through
 * a generator of `Line` objects, so a line costs no allocation but its own string.
 */
export interface LineCursor {
  readonly no: number;
  next(): string | undefined;
  /** Releases the file early; idempotent, and implied once `next()` has returned undefined. */
  close(): void;
}

export const CHUNK_BYTES = 1 << 20;
/**
 * How many bytes are checked for ASCII or UTF-8 at a time. Windows were once decoded whole, and a string
 * above V8's regular object size goes to large-object space (a megabyte string per chunk made reading
 * several times slower); lines are decoded one by one now, and the window stays at 64 KiB.
 */
const WINDOW_BYTES = 1 << 16;
const LF = 10;
const CR = 13;
const EMPTY = Buffer.alloc(0);

/**
 * Streams a file's lines synchronously, a chunk at a time: a 10-million-event log replays in constant
 * memory, and the engine's loop stays synchronous (no promise per event).
 *
 * Bytes are checked a window of whole lines at a time (ASCII, else UTF-8) and each line is decoded from
 * them on its own when asked for, with no `StringDecoder` or string concatenation; `advance` hands out a
 * line's bytes without decoding it. A window always ends just after a "\n" byte (or at the end of the
 * file), and that byte never occurs inside a multi-byte UTF-8 sequence, so no character is split however
 * the chunks fall.
 *
 * The file is opened on the first `next()` or `advance()`, so creating a cursor for a missing file does not
 * throw yet. It must be a regular file (see `openRegularFile`). A line longer than `maxLineBytes` is bad
 * input naming the line: the buffer never grows past that limit and a byte, so a file with no line break
 * (or `/dev/zero` behind a symlink) cannot fill memory.
 */
export class FileLineCursor implements LineCursor {
  no = 0;
  private fd = -1;
  private buf: Buffer;
  /** `buf` up to the bytes read, so a search never sees stale bytes beyond them. */
  private view: Buffer = EMPTY;
  /** First byte of `view` after the current window. */
  private pos = 0;
  /**
   * The window being read: lines are cut from `view` between `linePos` (where the next line starts) and
   * `lineEnd` (just after the window's last "\n"), each decoded on its own as `lineEncoding` says. A line
   * of its own is a flat string; lines cut from a decoded window were views of it in V8 (sliced strings),
   * read more slowly, and a decode per line measured no dearer than one per window.
   */
  private linePos = 0;
  private lineEnd = 0;
  private lineEncoding: 'latin1' | 'utf8' = 'latin1';
  /** The current line, in `view` (see `advance`). */
  lineFrom = 0;
  lineTo = 0;
  private eof = false;
  private closed = false;
  /** The first line whose bytes are not UTF-8 (0: none seen), thrown when `next()` reaches it, not before. */
  private badLine = 0;
  private badDetail = '';

  constructor(
    private readonly path: string,
    chunkBytes = CHUNK_BYTES,
    private readonly maxLineBytes = limit('lineBytes'),
    private readonly what = 'an event log',
    private readonly position?: ReadPosition,
  ) {
    if (!Number.isInteger(chunkBytes) || chunkBytes < 1) throw new RangeError(`chunkBytes must be a positive integer, got ${chunkBytes}`);
    if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1) throw new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`);
    // A buffer of at most the limit and one byte: a line found whole in it is within the limit.
    this.buf = Buffer.allocUnsafe(Math.min(chunkBytes, maxLineBytes + 1));
  }

  /**
   * Moves to the next line without decoding it (false at the end): its bytes are `bytes` from `lineFrom`
   * to `lineTo`, without "\n" or "\r\n", valid until the next move. The event reader reads most lines
   * from their bytes and decodes only the others (`lineText`).
   */
  advance(): boolean {
    for (;;) {
      const from = this.linePos;
      if (from < this.lineEnd) {
        const view = this.view;
        // The window ends with "\n" except at the end of a file without one.
        let nl = view.indexOf(LF, from);
        if (nl === -1) nl = this.lineEnd;
        this.linePos = nl + 1;
        if (++this.no === this.badLine) throw new InputError(this.path, this.badDetail, this.no);
        this.lineFrom = from;
        this.lineTo = nl > from && view[nl - 1] === CR ? nl - 1 : nl;
        return true;
      }
      if (!this.nextWindow()) return false;
    }
  }

  /** The bytes of the file the current line is in (see `advance`). */
  get bytes(): Buffer {
    return this.view;
  }

  /** The line `advance()` moved to, decoded. */
  lineText(): string {
    return this.view.toString(this.lineEncoding, this.lineFrom, this.lineTo);
  }

  next(): string | undefined {
    return this.advance() ? this.lineText() : undefined;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.view = EMPTY;
    this.pos = 0;
    this.linePos = 0;
    this.lineEnd = 0;
    this.lineFrom = 0;
    this.lineTo = 0;
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  /** Makes the next window of whole lines current, reading as needed; false (and closed) at the end. */
  private nextWindow(): boolean {
    for (;;) {
      if (this.closed) return false;
      const view = this.view;
      const pos = this.pos;
      if (pos < view.length) {
        const limit = Math.min(pos + WINDOW_BYTES, view.length);
        let last = view.lastIndexOf(LF, limit - 1);
        // A line longer than the window makes a window of its own.
        if (last < pos) last = view.indexOf(LF, limit);
        if (last === -1) {
          if (!this.eof) {
            this.fill();
            continue;
          }
          // The last line needs no "\n" to count.
          if (view.length - pos > this.maxLineBytes) throw this.lineTooLong();
          last = view.length - 1;
        }
        this.lineEncoding = this.encodingOf(view.subarray(pos, last + 1));
        this.linePos = pos;
        this.lineEnd = last + 1;
        this.pos = last + 1;
        return true;
      }
      if (this.eof) {
        this.close();
        return false;
      }
      this.fill();
    }
  }

  /**
   * How a window's lines decode. Event logs are nearly always ASCII, and for ASCII the Latin-1 decoder gives
   * the same string at well under half the cost (a 317 MB log: about 100 ms less), so a window is checked
   * first. Bytes that are not UTF-8 would decode to U+FFFD and pass unnoticed into names: the first such
   * line is found here and becomes an input error when its turn comes.
   */
  private encodingOf(window: Buffer): 'latin1' | 'utf8' {
    if (isAscii(window)) return 'latin1';
    if (this.badLine === 0 && !isUtf8(window)) this.findBadLine(window);
    return 'utf8';
  }

  /** Only on the error path: the window's lines one by one, numbered after those already handed out. */
  private findBadLine(window: Buffer): void {
    let from = 0;
    for (let k = 1; from < window.length; k++) {
      let to = window.indexOf(LF, from);
      if (to === -1) to = window.length;
      const line = window.subarray(from, to);
      if (!isUtf8(line)) {
        const at = firstBadByte(line);
        this.badLine = this.no + k;
        this.badDetail = `not UTF-8 text: byte 0x${line[at]!.toString(16).padStart(2, '0')} at byte ${at + 1} of the line (JSON lines are UTF-8)`;
        return;
      }
      from = to + 1;
    }
  }

  /** The line after those handed out, found longer than the limit before its end. */
  private lineTooLong(): InputError {
    const max = formatBytes(this.maxLineBytes);
    return new InputError(this.path, `line longer than ${max} (docs/limits.md; ROUTERBENCH_MAX_LINE_BYTES raises it): every line is one JSON value`, this.no + 1);
  }

  /** Moves the undecoded bytes to the front and reads after them, growing the buffer if they fill it. */
  private fill(): void {
    if (this.fd < 0) this.fd = openRegularFile(this.path, this.what);
    const rest = this.view.length - this.pos;
    if (this.pos > 0 && rest > 0) this.buf.copy(this.buf, 0, this.pos, this.view.length);
    this.pos = 0;
    if (rest === this.buf.length) {
      // The buffer holds one unfinished line: the next line to hand out, after those of the window.
      if (rest > this.maxLineBytes) throw this.lineTooLong();
      // Otherwise double the buffer rather than fail; memory stays bounded by the longest line.
      const bigger = Buffer.allocUnsafe(Math.min(this.buf.length * 2, this.maxLineBytes + 1));
      this.buf.copy(bigger, 0, 0, rest);
      this.buf = bigger;
    }
    let n: number;
    try {
      n = readSync(this.fd, this.buf, rest, this.buf.length - rest, null);
    } catch (err) {
      // A read by descriptor names no file (EISDIR for a directory opened as a log): name it.
      (err as NodeJS.ErrnoException).path ??= this.path;
      throw err;
    }
    if (n === 0) this.eof = true;
    if (this.position !== undefined) this.position.bytes += n;
    this.view = this.buf.subarray(0, rest + n);
  }
}

/** The same cursor over text already in memory. A final "\n" ends the last line; it does not start another. */
export class TextLineCursor implements LineCursor {
  no = 0;
  private start = 0;

  constructor(private text: string) {}

  next(): string | undefined {
    const text = this.text;
    if (this.start >= text.length) {
      this.close();
      return undefined;
    }
    let end = text.indexOf('\n', this.start);
    if (end === -1) end = text.length;
    const from = this.start;
    this.start = end + 1;
    this.no++;
    return text.charCodeAt(end - 1) === CR && end > from ? text.slice(from, end - 1) : text.slice(from, end);
  }

  close(): void {
    this.text = '';
    this.start = 0;
  }
}

/** `Line` objects for callers that prefer a for-of loop over speed (the output log reader). */
export function* fileLines(path: string, chunkBytes = CHUNK_BYTES, maxLineBytes = limit('lineBytes'), what = 'an output log'): Generator<Line> {
  yield* cursorLines(new FileLineCursor(path, chunkBytes, maxLineBytes, what));
}

export function* textLines(text: string): Generator<Line> {
  yield* cursorLines(new TextLineCursor(text));
}

function* cursorLines(cursor: LineCursor): Generator<Line> {
  try {
    for (let text = cursor.next(); text !== undefined; text = cursor.next()) yield { no: cursor.no, text };
  } finally {
    cursor.close();
  }
}
