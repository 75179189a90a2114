/**
 * How HAProxy 2.6's CLI cuts one request line into commands and words (measured on 2.6.12):
 * - an unescaped `;` ends a command; each command's reply is followed by the CLI's own "\n";
 * - blanks (space, tab) separate words; a backslash makes the next character literal and is removed,
 *   so `\;` is a `;` inside a word and `\\` is one backslash;
 * - a line ending in `<<` carries a payload: the following lines up to an empty line, given to the last
 *   command. Quotes mean nothing.
 */
export interface CliCommand {
  words: string[];
  /** Payload lines (without their newlines), for the last command of a `<<` line only. */
  payload?: string[];
}

const BACKSLASH = 0x5c;
const SEMICOLON = 0x3b;
const SPACE = 0x20;
const TAB = 0x09;

/** Up to this many words are parsed; the rest of a command is ignored (MAX_CLI_ARGS). */
const WORDS_MAX = 64;

export function parseCliRequest(request: string): CliCommand[] {
  let line = request;
  let payload: string[] | undefined;
  const nl = request.indexOf('\n');
  if (nl >= 0) line = request.slice(0, nl);
  if (line.endsWith('\r')) line = line.slice(0, -1);
  if (line.endsWith('<<')) {
    line = line.slice(0, -2);
    payload = nl >= 0 ? payloadLines(request.slice(nl + 1)) : [];
  }
  const commands: CliCommand[] = [];
  let start = 0;
  for (let i = 0; i <= line.length; i++) {
    const c = i < line.length ? line.charCodeAt(i) : SEMICOLON;
    if (c === BACKSLASH) {
      i++;
      continue;
    }
    if (c === SEMICOLON) {
      commands.push({ words: splitWords(line, start, Math.min(i, line.length)) });
      start = i + 1;
    }
  }
  if (payload !== undefined) commands[commands.length - 1]!.payload = payload;
  return commands;
}

function payloadLines(text: string): string[] {
  const lines: string[] = [];
  let from = 0;
  while (from < text.length) {
    let to = text.indexOf('\n', from);
    if (to < 0) to = text.length;
    const l = text.slice(from, to);
    if (l === '' || l === '\r') break;
    lines.push(l);
    from = to + 1;
  }
  return lines;
}

function splitWords(line: string, from: number, to: number): string[] {
  const words: string[] = [];
  let i = from;
  while (i < to && words.length < WORDS_MAX) {
    while (i < to && isBlank(line.charCodeAt(i))) i++;
    if (i >= to) break;
    let word = '';
    let chunkStart = i;
    while (i < to) {
      const c = line.charCodeAt(i);
      if (isBlank(c)) break;
      if (c === BACKSLASH) {
        word += line.slice(chunkStart, i);
        // A trailing lone backslash is dropped.
        if (i + 1 < to) word += line[i + 1];
        i += 2;
        chunkStart = i;
        continue;
      }
      i++;
    }
    word += line.slice(chunkStart, Math.min(i, to));
    words.push(word);
  }
  return words;
}

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB;
}
