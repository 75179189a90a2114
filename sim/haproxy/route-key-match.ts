/**
 * The map keys the router writes (core/haproxy/route-regexp.ts), matched without a regular expression.
 * Each route has a key of its own, so each lookup of a new route compiled a new RegExp: about 20 µs in V8,
 * most of the invariant checker's time at the end of a replay, and most of an `add map`'s. A key of one of
 * the router's shapes is read into its literal parts once; matching it is then a few string comparisons,
 * with the answer `new RegExp(key).test(input)` would give (JavaScript's semantics: `$` only at the end,
 * `.` not across a line terminator, `[^\.]` across anything but a dot). A key of any other shape gets
 * undefined, and its caller compiles it.
 *
 * The shapes, `H` a host quoted by quoteMeta and `P` a quoted path (either may need the other forms):
 * - `^H\.?(:[0-9]+)?P(/.*)?$` and `^H\.?(:[0-9]+)?P(.*)?$` (routeRegexp; P may be empty);
 * - `^H$` (sniRegexp);
 * - each with `[^\.]*` after the `^` and H starting with a quoted dot (a wildcard route's).
 */
export type RouteKeyMatch = (input: string) => boolean;

const PORT_INFIX = '\\.?(:[0-9]+)?';
const ANY_SUBPATH = '(/.*)?$';
const ANY_REST = '(.*)?$';
const WILDCARD_LABEL = '[^\\.]*';
/** quoteMeta's characters: escaped, each is itself; unescaped, each is syntax. */
const META = '\\.+*?()|[]{}^$';

export function routeKeyMatch(key: string): RouteKeyMatch | undefined {
  if (!key.startsWith('^')) return undefined;
  const wildcard = key.startsWith(WILDCARD_LABEL, 1);
  const from = wildcard ? 1 + WILDCARD_LABEL.length : 1;
  const infix = key.indexOf(PORT_INFIX, from);
  if (infix < 0) {
    if (!key.endsWith('$')) return undefined;
    const host = unquote(key, from, key.length - 1);
    if (host === undefined || (wildcard && !host.startsWith('.'))) return undefined;
    return wildcard ? (s) => hostEnd(s, host, true) === s.length : (s) => s === host;
  }
  const host = unquote(key, from, infix);
  if (host === undefined || (wildcard && !host.startsWith('.'))) return undefined;
  const rest = infix + PORT_INFIX.length;
  const subpath = key.endsWith(ANY_SUBPATH);
  if (!subpath && !key.endsWith(ANY_REST)) return undefined;
  const path = unquote(key, rest, key.length - (subpath ? ANY_SUBPATH : ANY_REST).length);
  if (path === undefined) return undefined;
  return (s) => {
    const end = hostEnd(s, host, wildcard);
    return end >= 0 && afterHost(s, end, path, subpath);
  };
}

/** The literal text `key[from, to)` stands for, or undefined when it holds anything but literals. */
function unquote(key: string, from: number, to: number): string | undefined {
  let out = '';
  for (let i = from; i < to; i++) {
    const c = key[i]!;
    if (c === '\\') {
      const next = key[i + 1];
      if (i + 1 >= to || next === undefined || !META.includes(next)) return undefined;
      out += next;
      i++;
    } else if (META.includes(c)) {
      return undefined;
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * Where the host part of a match ends in `s`, or -1. A wildcard's `[^\.]*` cannot pass a dot and its host
 * text starts with one, so the text can only start at the first dot.
 */
function hostEnd(s: string, host: string, wildcard: boolean): number {
  const at = wildcard ? s.indexOf('.') : 0;
  return at >= 0 && s.startsWith(host, at) ? at + host.length : -1;
}

/** `\.?(:[0-9]+)?<path>(/.*)?$` (or `(.*)?$`) from `i`, trying every way the optional parts can match. */
function afterHost(s: string, i: number, path: string, subpath: boolean): boolean {
  for (let dot = s.charCodeAt(i) === 0x2e ? 1 : 0; dot >= 0; dot--) {
    const p = i + dot;
    let digits = 0;
    if (s.charCodeAt(p) === 0x3a) while (isDigit(s.charCodeAt(p + 1 + digits))) digits++;
    // The port as the digits there, each shorter run of them, or no port at all.
    for (let n = digits; n >= 0; n--) {
      const q = n === 0 ? p : p + 1 + n;
      if (s.startsWith(path, q) && tailMatches(s, q + path.length, subpath)) return true;
    }
  }
  return false;
}

function tailMatches(s: string, i: number, subpath: boolean): boolean {
  if (i === s.length) return true;
  if (subpath && s.charCodeAt(i) !== 0x2f) return false;
  for (let k = subpath ? i + 1 : i; k < s.length; k++) if (isLineTerminator(s.charCodeAt(k))) return false;
  return true;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** What `.` does not match in a JavaScript regular expression without the `s` flag. */
function isLineTerminator(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
}
