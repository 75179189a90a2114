import type { InputEventType } from '../../core/events.ts';
import type { OutputRecord } from './records.ts';

/**
 * Output records as the UTF-8 bytes of their JSON lines, appended to one growing byte buffer. The sink
 * used to append each line to a string and hand the string to `writeSync`, which copied every byte four
 * times (the line, the concatenation flattened, the UTF-8 encoding, the write) and made a string per
 * record; input records, one per event, are most of a compact log, and are written without JSON.stringify
 * (the time's digits, then the rest of the line as kept bytes). The sink's share of a reload-always replay
 * of the 200,000-event churn slice fell from 17% to 10% (1 Dec 2026). record-bytes.test.ts holds the bytes
 * equal to `JSON.stringify(record) + '\n'`.
 */
export class RecordBytes {
  private buf: Buffer;
  private readonly tails = new Map<InputEventType, Map<string, Buffer>>();
  /** Bytes of `buf` in use. */
  length = 0;

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  /** The bytes appended since the last `clear`: a view of the buffer, valid until the next append. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }

  clear(): void {
    this.length = 0;
  }

  append(r: OutputRecord): void {
    if (r.type === 'input') this.appendInput(r.atUs, r.event, r.subject);
    else if (r.type === 'input.counts') this.appendCounts(r, INPUT_COUNTS_HEAD, r.events);
    else if (r.type === 'reload.counts') this.appendCounts(r, RELOAD_COUNTS_HEAD, r.requests);
    else if (r.type === 'runtime.counts') this.appendCounts(r, RUNTIME_COUNTS_HEAD, r.ok);
    else this.appendLine(JSON.stringify(r));
  }

  /**
   * `{"atUs":…,"type":…,"<field>":{"<key>":n,…}}` and a newline, as JSON.stringify writes it. The compact
   * log writes up to three such records per simulated second: through JSON.stringify, reload-always's two
   * were 6% of its replay of the saturated day (3 Dec 2026). Keys are written as they are, in the order
   * JSON.stringify takes them (`for…in`), so a record with a key that would need escaping, or a count that
   * is not a safe integer, goes to JSON.stringify instead.
   */
  private appendCounts(r: OutputRecord, head: Buffer, counts: Readonly<Record<string, number | undefined>>): void {
    let size = 8 + 16 + head.length + 3;
    for (const key in counts) {
      const n = counts[key];
      if (n === undefined || !Number.isSafeInteger(n) || n < 0 || !plainKey(key)) {
        this.appendLine(JSON.stringify(r));
        return;
      }
      size += key.length + 3 + 17;
    }
    if (!Number.isSafeInteger(r.atUs) || r.atUs < 0) {
      this.appendLine(JSON.stringify(r));
      return;
    }
    this.reserve(size);
    this.ascii('{"atUs":');
    this.digits(r.atUs);
    this.buf.set(head, this.length);
    this.length += head.length;
    let first = true;
    for (const key in counts) {
      this.buf[this.length++] = first ? 0x22 : 0x2c;
      if (!first) this.buf[this.length++] = 0x22;
      first = false;
      this.ascii(key);
      this.ascii('":');
      this.digits(counts[key]!);
    }
    this.ascii('}}\n');
  }

  /** A line of text: its UTF-8 and a newline (the newline appended apart, which spares a string per line). */
  appendLine(text: string): void {
    this.appendText(text);
    this.buf[this.length++] = 0x0a;
  }

  /** Any text, UTF-8 encoded (lone surrogates become U+FFFD, as a string written to a file does). */
  private appendText(text: string): void {
    this.reserve(text.length * 3 + 1);
    this.length += this.buf.write(text, this.length, 'utf8');
  }

  /** `{"atUs":…,"type":"input","event":"…","subject":…}` and a newline, as JSON.stringify writes it. */
  appendInput(atUs: number, event: InputEventType, subject: string): void {
    if (!Number.isSafeInteger(atUs) || atUs < 0 || subject.length > TAIL_SUBJECT_MAX) {
      this.appendLine(JSON.stringify({ atUs, type: 'input', event, subject }));
      return;
    }
    // The subject's characters from the string itself when they need no escaping (the string was just
    // used, so it is in the cache; a kept tail of every subject is not).
    const head = this.headOf(event);
    this.reserve(8 + 16 + head.length + subject.length + 3);
    this.ascii('{"atUs":');
    this.digits(atUs);
    const buf = this.buf;
    let at = this.length;
    buf.set(head, at);
    at += head.length;
    for (let i = 0; i < subject.length; i++) {
      const c = subject.charCodeAt(i);
      if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) {
        // Rare: back to the kept tail, written whole after the time.
        const tail = this.tailOf(event, subject);
        at = this.length;
        this.reserve(tail.length);
        this.buf.set(tail, at);
        this.length = at + tail.length;
        return;
      }
      buf[at++] = c;
    }
    buf[at++] = 0x22;
    buf[at++] = 0x7d;
    buf[at++] = 0x0a;
    this.length = at;
  }

  private readonly heads = new Map<InputEventType, Buffer>();

  /** `,"type":"input","event":"…","subject":"` for an event type. */
  private headOf(event: InputEventType): Buffer {
    let head = this.heads.get(event);
    if (head === undefined) this.heads.set(event, (head = Buffer.from(`,"type":"input","event":${JSON.stringify(event)},"subject":"`, 'utf8')));
    return head;
  }

  /**
   * Everything of an input line after its time, as bytes, kept per event type and subject, for subjects
   * that need escaping. Ordinary subjects were written this way too until 2 Dec 2026: alone it cost two
   * thirds of writing a line a character at a time (200,000 records: 68 against 107 ms), but inside a
   * replay the kept tails are cold in the cache while the subject string was just used, and writing its
   * characters made a 1M-event reload-always replay of the churn log 3–4% faster (bundled, best of 3:
   * 3,030 against 2,922 ms of CPU; dcm-add-del on the day slice 4,365 against 4,185). A table past
   * TAILS_MAX subjects starts over.
   */
  private tailOf(event: InputEventType, subject: string): Buffer {
    let tails = this.tails.get(event);
    if (tails === undefined) this.tails.set(event, (tails = new Map()));
    let tail = tails.get(subject);
    if (tail === undefined) {
      if (tails.size >= TAILS_MAX) tails.clear();
      tail = Buffer.from(`,"type":"input","event":${JSON.stringify(event)},"subject":${JSON.stringify(subject)}}\n`, 'utf8');
      tails.set(subject, tail);
    }
    return tail;
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + bytes));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }

  private ascii(text: string): void {
    const buf = this.buf;
    let at = this.length;
    for (let i = 0; i < text.length; i++) buf[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /**
   * A safe non-negative integer's decimal digits. Times past 2^31 µs (36 minutes) are not small integers
   * to V8, and `%` on a double is a call into C: done digit by digit on the double, the 11 digits of a
   * day's times cost 108 ns a number, against 26 split at 10^9 into two small integers (3M numbers, 2 Dec
   * 2026), 3% of a 1M-event reload-always replay of the saturated day.
   */
  private digits(n: number): void {
    if (n <= SMALL_MAX) {
      this.smallDigits(n | 0);
      return;
    }
    const high = Math.floor(n / 1e9);
    let low = (n - high * 1e9) | 0;
    this.smallDigits(high);
    const buf = this.buf;
    let at = this.length + 9;
    this.length = at;
    for (let k = 0; k < 9; k++) {
      const q = (low / 10) | 0;
      buf[--at] = 0x30 + (low - q * 10);
      low = q;
    }
  }

  /** The digits of an integer up to SMALL_MAX, in small-integer arithmetic. */
  private smallDigits(n: number): void {
    let width = 1;
    for (let m = n; m >= 10; m = (m / 10) | 0) width++;
    const buf = this.buf;
    let at = this.length + width;
    this.length = at;
    do {
      const q = (n / 10) | 0;
      buf[--at] = 0x30 + (n - q * 10);
      n = q;
    } while (n > 0);
  }
}

/** A key JSON.stringify writes as it is: printable ASCII but for the quote and the backslash. */
function plainKey(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) return false;
  }
  return true;
}

const INPUT_COUNTS_HEAD = Buffer.from(',"type":"input.counts","events":{', 'utf8');
const RELOAD_COUNTS_HEAD = Buffer.from(',"type":"reload.counts","requests":{', 'utf8');
const RUNTIME_COUNTS_HEAD = Buffer.from(',"type":"runtime.counts","ok":{', 'utf8');

/** The largest integer `| 0` keeps. */
const SMALL_MAX = 0x7fff_ffff;

/** Subjects longer than this (none in practice) are written without a kept tail. */
const TAIL_SUBJECT_MAX = 512;
const TAILS_MAX = 16_384;
