/**
 * How HAProxy 2.6's CLI cuts one request line into commands and words (measured on 2.6.12):
 * - an unescaped `;` ends a command; each command's reply is followed by the CLI's own "\n";
 * - blanks (space, tab) separate words; a backslash makes the next character literal and is removed,
 *   so `\;` is a `;` inside a word and `\\` is one backslash;
 * - a line ending in `<<` carries a payload: the following lines up to an empty line (CRs dropped), given
 *   to the last command; a `<<` glued to the last word stays part of it, and the lines become more words.
 *   Quotes mean nothing;
 * - several request lines sent at once are all answered, in order.
 */
/**
 * One CLI connection's mode. `prompt` makes it interactive: every command's reply is followed by `> `, and
 * the connection stays open once everything sent is answered; a second `prompt` turns that off.
 */
export interface CliSession {
  interactive: boolean;
  /** Set by `quit`: the connection ends without a word, and nothing after it is read. */
  closed?: boolean;
}

export interface CliCommand {
  words: string[];
  /** Payload lines (without their newlines), for the last command of a `<<` line only. */
  payload?: string[];
}

const BACKSLASH = 0x5c;
const SEMICOLON = 0x3b;
const SPACE = 0x20;
const TAB = 0x09;
const NEWLINE = 0x0a;

/** Up to this many words are parsed; the rest of a command is ignored (MAX_CLI_ARGS). */
const WORDS_MAX = 64;

/** Length of the first complete request in `buffered` (a line, or a `<<` line and its payload), or -1. */
export function completeRequestLength(buffered: string): number {
  const nl = buffered.indexOf('\n');
  if (nl < 0) return -1;
  const lineEnd = nl > 0 && buffered.charCodeAt(nl - 1) === 0x0d ? nl - 1 : nl;
  if (!buffered.startsWith('<<', lineEnd - 2) || lineEnd < 2) return nl + 1;
  // A payload ends at the first empty line; a lone CR counts as empty.
  let from = nl + 1;
  for (;;) {
    const to = buffered.indexOf('\n', from);
    if (to < 0) return -1;
    if (to === from || (to === from + 1 && buffered.charCodeAt(from) === 0x0d)) return to + 1;
    from = to + 1;
  }
}

/**
 * Cuts text into requests. A last request that is not terminated is still a request here (the simulation
 * sends bare lines); the socket server decides separately what a real client has finished sending.
 */
export function splitRequests(text: string): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    const n = completeRequestLength(rest);
    if (n < 0) {
      out.push(rest);
      break;
    }
    out.push(rest.slice(0, n));
    rest = rest.slice(n);
  }
  return out;
}

export function parseCliRequest(request: string): CliCommand[] {
  // The simulation's hot path: one plain command, nothing to unescape.
  const plain = plainWords(request);
  if (plain !== undefined) return [{ words: plain }];
  let line = request;
  let payload: string[] | undefined;
  const nl = request.indexOf('\n');
  if (nl >= 0) line = request.slice(0, nl);
  if (line.endsWith('\r')) line = line.slice(0, -1);
  let moreWords: string[] | undefined;
  if (line.endsWith('<<') && line.length > 2 && !isBlank(line.charCodeAt(line.length - 3))) {
    // A `<<` glued to a word stays in it, and the payload's lines are read as more words (measured).
    moreWords = nl >= 0 ? payloadLines(request.slice(nl + 1)) : [];
  } else if (line.endsWith('<<')) {
    line = line.slice(0, -2);
    payload = nl >= 0 ? payloadLines(request.slice(nl + 1)) : [];
    // An empty line right after `<<` still hands the command a payload: a lone newline (measured).
    if (payload.length === 0 && nl >= 0) payload = ['\n'];
  }
  const commands: CliCommand[] = [];
  if (line.indexOf(';') < 0) {
    commands.push({ words: splitWords(line, 0, line.length) });
  } else {
    let start = 0;
    for (let i = 0; i <= line.length; i++) {
      const c = i < line.length ? line.charCodeAt(i) : SEMICOLON;
      // A backslash hides the next character from the cut; a last one hides nothing, and the line's end
      // still ends its command (`show map \;\` is one command, `show map ;`: measured on 2.6.12).
      if (c === BACKSLASH && i + 1 < line.length) {
        i++;
        continue;
      }
      if (c === SEMICOLON) {
        commands.push({ words: splitWords(line, start, Math.min(i, line.length)) });
        start = i + 1;
      }
    }
  }
  const last = commands[commands.length - 1]!;
  if (payload !== undefined) last.payload = payload;
  if (moreWords !== undefined) {
    for (const l of moreWords) last.words.push(...splitWords(l, 0, l.length));
    if (last.words.length > WORDS_MAX) last.words.length = WORDS_MAX;
  }
  return commands;
}

/**
 * The words of a request that is one plain command (no backslash, `;`, newline or `<<` payload), as the
 * general parser would cut it; undefined for any other request. One pass, no regular expression: every
 * simulated command comes this way.
 */
export function plainWords(request: string): string[] | undefined {
  const n = request.length;
  if (n >= 2 && request.charCodeAt(n - 1) === 0x3c && request.charCodeAt(n - 2) === 0x3c) return undefined;
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i < n; i++) {
    const c = request.charCodeAt(i);
    if (c === SPACE || c === TAB) {
      if (start >= 0) {
        words.push(request.slice(start, i));
        start = -1;
      }
    } else if (c === BACKSLASH || c === SEMICOLON || c === NEWLINE) {
      return undefined;
    } else if (start < 0) {
      start = i;
    }
  }
  if (start >= 0) words.push(request.slice(start));
  if (words.length > WORDS_MAX) words.length = WORDS_MAX;
  return words;
}

function payloadLines(text: string): string[] {
  const lines: string[] = [];
  let from = 0;
  while (from < text.length) {
    let to = text.indexOf('\n', from);
    if (to < 0) to = text.length;
    const l = text.slice(from, to);
    if (l === '' || l === '\r') break;
    // HAProxy reads the payload a line at a time and drops a line's CR.
    lines.push(l.endsWith('\r') ? l.slice(0, -1) : l);
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
    const start = i;
    let escaped = false;
    while (i < to) {
      const c = line.charCodeAt(i);
      if (isBlank(c)) break;
      if (c === BACKSLASH) {
        escaped = true;
        i += 2;
        continue;
      }
      i++;
    }
    const raw = line.slice(start, Math.min(i, to));
    words.push(escaped ? unescape(raw) : raw);
  }
  return words;
}

/** Drops each backslash and keeps the character after it (a lone trailing backslash is dropped). */
function unescape(raw: string): string {
  let out = '';
  let from = 0;
  let i = raw.indexOf('\\');
  while (i >= 0) {
    out += raw.slice(from, i);
    if (i + 1 < raw.length) out += raw[i + 1];
    from = i + 2;
    i = from < raw.length ? raw.indexOf('\\', from) : -1;
  }
  return out + raw.slice(Math.min(from, raw.length));
}

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB;
}
