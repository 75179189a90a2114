import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { FileLineCursor, fileLines, TextLineCursor, textLines } from './line-source.ts';

const dir = mkdtempSync(join(tmpdir(), 'rb-lines-'));
let files = 0;
function fileWith(content: string | Buffer): string {
  const file = join(dir, `f${files++}.txt`);
  writeFileSync(file, content);
  return file;
}

function readAll(cursor: { next(): string | undefined; no: number }): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  for (let text = cursor.next(); text !== undefined; text = cursor.next()) out.push([cursor.no, text]);
  return out;
}

/** What the reader promised before it read bytes: split on "\n", a final "\n" ends a line, "\r" before it dropped. */
function expectedLines(text: string): Array<[number, string]> {
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.map((p, i) => [i + 1, p.endsWith('\r') ? p.slice(0, -1) : p]);
}

describe('the file line cursor', () => {
  it('decodes a multi-byte character that straddles a chunk boundary', () => {
    // '€' is 3 bytes and '😀' 4: with 4-byte chunks every boundary position inside them occurs.
    const text = '{"a":"x€y"}\n{"b":"😀"}\n€€€\n';
    const file = fileWith(text);
    for (let chunk = 1; chunk <= 12; chunk++) {
      expect(readAll(new FileLineCursor(file, chunk)), `chunk ${chunk}`).toEqual(expectedLines(text));
    }
  });

  // The event reader scans a line's bytes before (or instead of) decoding it: they must be the line's.
  test.prop([fc.array(fc.oneof(fc.string(), fc.constantFrom('', '\r', 'a\r', '€\r')), { maxLength: 8 }), fc.boolean(), fc.integer({ min: 1, max: 40 })])(
    'advance hands out each line as the bytes next() would decode, at any chunk size',
    (parts, finalNewline, chunk) => {
      const text = parts.map((p) => p.replace(/\n/g, ' ')).join('\n') + (finalNewline ? '\n' : '');
      const cursor = new FileLineCursor(fileWith(text), chunk);
      const got: Array<[number, string]> = [];
      while (cursor.advance()) {
        got.push([cursor.no, cursor.bytes.subarray(cursor.lineFrom, cursor.lineTo).toString('utf8')]);
        expect(cursor.lineText()).toBe(got[got.length - 1]![1]);
      }
      expect(got).toEqual(expectedLines(text));
    },
  );

  it('hands out every line before one that is not UTF-8, then names that line and byte', () => {
    // Line 4 holds Latin-1 "é" (0xE9): byte 5 after "caf" and the quote. Lines 1–3 are valid, one of them
    // with a real U+FFFD (EF BF BD), which is text like any other.
    const good = ['{"a":"x€y"}', '"\uFFFD"', 'plain'];
    const bytes = Buffer.concat([Buffer.from(good.join('\n') + '\n'), Buffer.from([0x22, 0x63, 0x61, 0x66, 0xe9, 0x22, 0x0a]), Buffer.from('after\n')]);
    const file = fileWith(bytes);
    // Every chunk size, so that the bad line falls in the first window or in a later one.
    for (const chunk of [1, 3, 7, 16, 1 << 20]) {
      const cursor = new FileLineCursor(file, chunk);
      const seen: string[] = [];
      let error: unknown;
      try {
        for (let text = cursor.next(); text !== undefined; text = cursor.next()) seen.push(text);
      } catch (err) {
        error = err;
      }
      expect(seen, `chunk ${chunk}`).toEqual(good);
      expect((error as Error).message, `chunk ${chunk}`).toBe(`${file}:4: not UTF-8 text: byte 0xe9 at byte 5 of the line (JSON lines are UTF-8)`);
    }
  });

  it('reads a line longer than the chunk, however much longer', () => {
    const long = 'é'.repeat(5000) + 'z';
    const text = `short\n${long}\nafter\n${long}`;
    expect(readAll(new FileLineCursor(fileWith(text), 16))).toEqual([
      [1, 'short'],
      [2, long],
      [3, 'after'],
      [4, long],
    ]);
  });

  it('tolerates CRLF, keeps empty lines and reads a last line without a newline', () => {
    const text = 'a\r\n\r\n\nb\r\nlast';
    for (const chunk of [1, 2, 3, 1 << 20]) {
      expect(readAll(new FileLineCursor(fileWith(text), chunk))).toEqual([
        [1, 'a'],
        [2, ''],
        [3, ''],
        [4, 'b'],
        [5, 'last'],
      ]);
    }
  });

  it('gives nothing for an empty file and nothing more after the end or close', () => {
    const empty = new FileLineCursor(fileWith(''));
    expect(empty.next()).toBeUndefined();
    expect(empty.next()).toBeUndefined();
    const cursor = new FileLineCursor(fileWith('a\nb\n'));
    expect(cursor.next()).toBe('a');
    cursor.close();
    expect(cursor.next()).toBeUndefined();
  });

  it('opens the file only when the first line is pulled', () => {
    const cursor = new FileLineCursor(join(dir, 'missing.txt'));
    expect(() => cursor.next()).toThrow(/ENOENT/);
  });

  it('refuses a sequence cut short by the end of its line, wherever the chunks fall', () => {
    // "a", then the first two of the three bytes of "€" (E2 82 AC): byte 2 starts a sequence that never ends.
    const file = fileWith(Buffer.concat([Buffer.from('a'), Buffer.from([0xe2, 0x82]), Buffer.from('\nb'), Buffer.from([0xff]), Buffer.from('\n')]));
    for (let chunk = 1; chunk <= 6; chunk++) {
      expect(() => readAll(new FileLineCursor(file, chunk)), `chunk ${chunk}`).toThrow(`${file}:1: not UTF-8 text: byte 0xe2 at byte 2 of the line`);
    }
  });

  const piece = fc.constantFrom('a', '{', 'é', '€', '😀', '\n', '\r', '\r\n', ' ');
  test.prop([fc.array(piece, { maxLength: 60 }).map((p) => p.join('')), fc.integer({ min: 1, max: 9 })])(
    'splits any text as the text cursor does, whatever the chunk size',
    (text, chunk) => {
      const expected = expectedLines(text);
      expect(readAll(new FileLineCursor(fileWith(text), chunk))).toEqual(expected);
      expect(readAll(new TextLineCursor(text))).toEqual(expected);
    },
  );

  it('still offers Line objects to for-of callers', () => {
    const text = 'x\r\ny';
    expect([...fileLines(fileWith(text), 1)]).toEqual([
      { no: 1, text: 'x' },
      { no: 2, text: 'y' },
    ]);
    expect([...textLines(text)]).toEqual([
      { no: 1, text: 'x' },
      { no: 2, text: 'y' },
    ]);
  });

  describe('a line longer than the limit', () => {
    test.prop([fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 40 }), fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 6 })])(
      'is refused naming its line, and any line within it is read, wherever the chunks fall',
      (max, chunk, lengths) => {
        const lines = lengths.map((n, i) => String.fromCharCode(97 + i).repeat(n));
        const file = fileWith(lines.join('\n'));
        const tooLong = lines.findIndex((l) => l.length > max);
        const cursor = new FileLineCursor(file, chunk, max);
        if (tooLong === -1) {
          expect(readAll(cursor)).toEqual(expectedLines(lines.join('\n')));
          return;
        }
        // Every line before the long one is handed out, then the long one is an error with its number.
        for (let i = 0; i < tooLong; i++) expect(cursor.next()).toBe(lines[i]);
        expect(() => cursor.next()).toThrow(`${file}:${tooLong + 1}: line longer than ${max} bytes`);
        cursor.close();
      },
    );

    it('bounds memory on a file with no line break at all: /dev/zero behind a symlink is refused before it is read', () => {
      const link = join(dir, 'zero.jsonl');
      symlinkSync('/dev/zero', link);
      expect(() => new FileLineCursor(link).next()).toThrow(`${link}: an event log must be a regular file, not a character device`);
    });
  });

  it('refuses a named pipe rather than waiting on it or reading it twice', () => {
    const fifo = join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    // No writer ever opens it: the open must not wait for one.
    expect(() => new FileLineCursor(fifo).next()).toThrow(`${fifo}: an event log must be a regular file, not a named pipe`);
  });
});
