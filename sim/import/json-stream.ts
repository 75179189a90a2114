/**
 * Splits a stream of concatenated JSON values (what `kubectl get --watch -o json` prints: pretty-printed
 * objects one after another, no separators) into one text per top-level object, with where each starts.
 * Fed chunk by chunk, so a long watch never sits in memory whole.
 */
export interface JsonChunk {
  /** The object's text, `{` to its matching `}`. */
  text: string;
  /** 1-based line and column of its opening brace in the whole input. */
  line: number;
  column: number;
}

export interface StrayText {
  kind: 'stray';
  text: string;
  line: number;
  column: number;
}

/** Thrown when one object grows past the splitter's limit: reading on would only fill memory. */
export class ObjectTooLarge extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly maxChars: number,
  ) {
    super(`an object longer than ${maxChars} characters`);
  }
}

/**
 * Thrown when text that is no JSON object runs past the same limit without a line break (`/dev/zero`, a binary
 * file): it cannot be a watch stream, and reading on would never yield an object nor end.
 */
export class StrayTooLong extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly maxChars: number,
  ) {
    super(`more than ${maxChars} characters of text that is no JSON object, without a line break`);
  }
}

export class JsonObjectSplitter {
  /** `maxObjectChars`: the longest object kept (an unfinished one longer than it throws ObjectTooLarge). */
  constructor(private readonly maxObjectChars = Number.MAX_SAFE_INTEGER) {}

  private buf = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private start = -1;
  private startLine = 1;
  private startColumn = 1;
  private line = 1;
  private column = 1;
  private stray: StrayText | undefined;
  private strayChars = 0;

  /** Objects completed by this chunk, and any text found between objects (reported as a problem). */
  push(chunk: string): Array<JsonChunk | StrayText> {
    const out: Array<JsonChunk | StrayText> = [];
    let i = this.buf.length;
    this.buf += chunk;
    const s = this.buf;
    for (; i < s.length; i++) {
      const c = s[i]!;
      if (this.depth > 0) {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (c === '\\') this.escaped = true;
          else if (c === '"') this.inString = false;
        } else if (c === '"') this.inString = true;
        else if (c === '{' || c === '[') this.depth++;
        else if (c === '}' || c === ']') {
          this.depth--;
          if (this.depth === 0) {
            if (i + 1 - this.start > this.maxObjectChars) throw new ObjectTooLarge(this.startLine, this.startColumn, this.maxObjectChars);
            out.push({ text: s.slice(this.start, i + 1), line: this.startLine, column: this.startColumn });
            this.start = -1;
          }
        }
      } else if (c === '{') {
        this.flushStray(out);
        this.depth = 1;
        this.start = i;
        this.startLine = this.line;
        this.startColumn = this.column;
      } else if (!/\s/.test(c)) {
        if (this.stray === undefined) this.stray = { kind: 'stray', text: '', line: this.line, column: this.column };
        if (this.stray.text.length < 80) this.stray.text += c;
        if (++this.strayChars > this.maxObjectChars) throw new StrayTooLong(this.stray.line, this.stray.column, this.maxObjectChars);
      } else if (this.stray !== undefined && c === '\n') {
        this.flushStray(out);
      }
      if (c === '\n') {
        this.line++;
        this.column = 1;
      } else {
        this.column++;
      }
    }
    // Keep only the unfinished object.
    if (this.start >= 0 && s.length - this.start > this.maxObjectChars) throw new ObjectTooLarge(this.startLine, this.startColumn, this.maxObjectChars);
    if (this.start >= 0) {
      this.buf = s.slice(this.start);
      this.start = 0;
    } else {
      this.buf = '';
    }
    return out;
  }

  /** At the end of input: an object left open is truncated. */
  end(): Array<JsonChunk | StrayText> {
    const out: Array<JsonChunk | StrayText> = [];
    this.flushStray(out);
    if (this.depth > 0) out.push({ kind: 'stray', text: `${this.buf.slice(0, 40)}… (truncated: input ended inside this object)`, line: this.startLine, column: this.startColumn });
    return out;
  }

  private flushStray(out: Array<JsonChunk | StrayText>): void {
    if (this.stray !== undefined) out.push(this.stray);
    this.stray = undefined;
    this.strayChars = 0;
  }
}

export function isStray(x: JsonChunk | StrayText): x is StrayText {
  return (x as StrayText).kind === 'stray';
}
