import { isUtf8 } from 'node:buffer';

/** Offset of the first byte that does not start a valid UTF-8 sequence there (for a message; `b` is not UTF-8). */
export function firstBadByte(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    const more = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    // isUtf8 of the one sequence also refuses overlong forms and surrogates.
    if (more < 0 || (more > 0 && !isUtf8(b.subarray(i, i + more + 1)))) return i;
    i += more + 1;
  }
  return b.length - 1;
}

/**
 * Where a text file stops being UTF-8, for files read whole (scenarios, manifests): line and column
 * (1-based, in bytes) and the byte. Undefined for valid UTF-8. Read as Latin-1, a name would quietly turn
 * into U+FFFD characters instead.
 */
export function notUtf8(bytes: Buffer): { line: number; column: number; message: string } | undefined {
  if (isUtf8(bytes)) return undefined;
  const at = firstBadByte(bytes);
  let line = 1;
  let lineStart = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < at; i = bytes.indexOf(0x0a, i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: at - lineStart + 1, message: `not UTF-8 text: byte 0x${bytes[at]!.toString(16).padStart(2, '0')} (save the file as UTF-8)` };
}
