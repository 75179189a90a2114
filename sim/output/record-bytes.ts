import type { OutputRecord } from './records.ts';

/**
 * Output records as the UTF-8 bytes of their JSON lines, appended to one growing byte buffer. The sink
 * used to append each line to a string and hand the string to `writeSync`, which copied every byte four
 * times (the line, the concatenation flattened, the UTF-8 encoding, the write) and made a string per
 * record; input records, one per event, are most of a compact log. Writing them byte by byte into the
 * buffer cost about half as much in a reload-always replay of the 200,000-event churn slice (1 Dec 2026).
 * output-sink.test.ts holds the bytes equal to `JSON.stringify(record) + '\n'`.
 */
export class RecordBytes {
  private buf: Buffer;
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
    else this.appendLine(JSON.stringify(r));
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
  private appendInput(atUs: number, event: string, subject: string): void {
    // Names and subjects in the log are short: anything past this bound takes the general path.
    if (!Number.isSafeInteger(atUs) || atUs < 0 || subject.length > 512) {
      this.appendLine(JSON.stringify({ atUs, type: 'input', event, subject }));
      return;
    }
    this.reserve(INPUT_FIXED + event.length + subject.length * 6);
    this.ascii('{"atUs":');
    this.digits(atUs);
    this.ascii(',"type":"input","event":"');
    // Event types are a fixed set of plain names (core/events.ts): nothing to escape.
    this.ascii(event);
    this.ascii('","subject":');
    this.jsonString(subject);
    this.buf[this.length++] = 0x7d; // }
    this.buf[this.length++] = 0x0a;
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

  private digits(n: number): void {
    let width = 1;
    for (let m = n; m >= 10; m = Math.floor(m / 10)) width++;
    const buf = this.buf;
    let at = this.length + width;
    this.length = at;
    do {
      buf[--at] = 0x30 + (n % 10);
      n = Math.floor(n / 10);
    } while (n > 0);
  }

  /** A JSON string: printable ASCII byte for byte; anything needing escapes or UTF-8 through JSON.stringify. */
  private jsonString(text: string): void {
    const buf = this.buf;
    let at = this.length;
    buf[at++] = 0x22;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
        this.length += this.buf.write(JSON.stringify(text), this.length, 'utf8');
        return;
      }
      buf[at++] = c;
    }
    buf[at++] = 0x22;
    this.length = at;
  }
}

/** The input line's bytes besides the event type, the subject and the time's digits. */
const INPUT_FIXED = '{"atUs":,"type":"input","event":"","subject":""}\n'.length + 16;
