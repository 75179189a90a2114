import type { MapEntryRow } from '../../core/haproxy/commands.ts';
import type { MapEntry } from '../../core/haproxy/config-model.ts';
import type { MapKind, MapLayout, MapMatch, MapValues } from './haproxy-cfg.ts';
import { RecentMap } from '../../core/recent-map.ts';
import { routeKeyMatch, type RouteKeyMatch } from './route-key-match.ts';

/**
 * Map files as HAProxy 2.6 holds them at runtime: one pattern reference per file, entries in file order
 * (runtime additions land last), each entry tagged with the map version it belongs to. Only entries of the
 * current version are live; `prepare`/`commit` build and swap in a new version atomically.
 */
/**
 * One entry. Its own fields are exactly a `show map` row's, so `show map` hands the entries out as its rows
 * (a row per entry listed cost 1.5% of a dcm-slots replay of the day slice, commit 558c43b, where a map
 * of a thousand entries is listed after most reloads): an entry never changes once made, `set map` puts
 * a new one in its place. Its version and whether it was taken out are the mock's own.
 */
export class MockMapEntry implements MapEntryRow {
  readonly #version: number;
  #removed = false;

  constructor(
    /** `show map`'s first column; also accepted as `#<ref>` by `del map` and `set map`. */
    readonly ref: string,
    readonly key: string,
    readonly value: string,
    version: number,
  ) {
    this.#version = version;
  }

  get version(): number {
    return this.#version;
  }

  /** Whether `del map` took the entry out or `set map` replaced it: a reader that kept it must look again. */
  get removed(): boolean {
    return this.#removed;
  }

  markRemoved(): void {
    this.#removed = true;
  }

  /** The entry `set map` puts in this one's place. */
  withValue(value: string): MockMapEntry {
    return new MockMapEntry(this.ref, this.key, value, this.#version);
  }
}

export interface MockMap {
  id: number;
  path: string;
  /** Base name, the key in `HaproxyConfig.maps`. */
  file: string;
  match: MapMatch;
  values: MapValues;
  cfgFile: string;
  line: number;
  /** Later references to the file (MapLayout.alsoAt); the same empty list when there are none. */
  alsoAt: readonly number[];
  /** MapLayout.kinds, never empty: each entry counts once per kind in `entry_cnt`. */
  kinds: readonly MapKind[];
  currVer: number;
  nextVer: number;
  entries: MockMapEntry[];
  /** Entries of its load's start that commands took out (`removed`): MapEntriesAtLoad makes them again. */
  readonly takenOut: MockMapEntry[];
  /**
   * HAProxy 2.6 decrements its entry counter once more than it increments it when `add map` refuses an
   * entry (a key that does not compile, a value that does not parse), so `entry_cnt` drifts below the real
   * count and wraps around as an unsigned 64-bit number (measured).
   */
  entryCountSkew: number;
  /** Bumped by every command that changes the entries or versions: derived indexes stay valid while it stands. */
  rev: number;
  /**
   * Coarser than `rev`, for readers that kept a lookup's answer. An appended entry cannot change a hit (the
   * first match stays first) and a deleted or replaced one changes only its own (it is marked `removed`), so
   * those count in `appends` or not at all; every other change (clear, commit) moves `shape`; prepare changes
   * nothing a lookup sees.
   */
  shape: number;
  appends: number;
  /**
   * An entry of a version other than the current one may be in `entries` (one was added with another
   * version): `show map` then picks the version's entries one by one. Until then every entry is of the
   * current version (a commit of a later one takes them all out), as the config managers, which never name
   * a version, leave a map, and `show map` copies the list whole: reading each of two thousand entries for
   * its version was 2% of a dcm-slots replay of the day.
   */
  versioned: boolean;
}

/** `entry_cnt` as `show map` prints it. */
export function entryCount(m: MockMap): string {
  return entryCountText(m.entries.length * m.kinds.length + m.entryCountSkew);
}

/** A counter HAProxy prints unsigned 64-bit, so a negative drift wraps around. */
function entryCountText(n: number): string {
  return n >= 0 ? String(n) : (2n ** 64n + BigInt(n)).toString();
}

/**
 * Deterministic stand-ins for the entries' heap addresses: distinct, stable for a run, shaped like the
 * real ones (12 hex digits). The conformance test normalises them.
 */
export class PointerSource {
  /** The pointer's digits above its low 16 bits, and its slot among the 1024 low values a step apart. */
  private high = POINTER_BASE / 0x10000;
  private highText = `0x${this.high.toString(16)}`;
  private low = 0;

  next(): string {
    // A reload makes an entry, with a pointer, for each map line it did not have before (MapEntriesAtLoad):
    // the high digits change once every 1024 pointers and the low four come from a table, instead of a
    // number-to-hex conversion per entry.
    if (this.low === LOW_HEX.length) {
      this.low = 0;
      this.high++;
      this.highText = `0x${this.high.toString(16)}`;
    }
    return this.highText + LOW_HEX[this.low++]!;
  }
}

const POINTER_BASE = 0x55d0c0a00000;
/** The base's low 16 bits are zero, so a pointer's low 16 bits are a multiple of the step. */
const POINTER_STEP = 0x40;
const LOW_HEX: readonly string[] = Array.from({ length: 0x10000 / POINTER_STEP }, (_, i) => (i * POINTER_STEP).toString(16).padStart(4, '0'));

/** An integer map value as HAProxy parses it: optional sign, decimal digits, nothing else. */
export function isIntValue(value: string): boolean {
  return INT_VALUE.test(value);
}
const INT_VALUE = /^[+-]?[0-9]+$/;

/** HAProxy refuses to start on a map whose values its converter cannot read. */
export function checkMapValues(layout: MapLayout, entries: readonly MapEntry[]): void {
  if (layout.values !== 'int') return;
  const bad = entries.find((e) => !isIntValue(e.value));
  if (bad !== undefined) throw new Error(`map ${layout.path}: value '${bad.value}' of key '${bad.key}' is not an integer`);
}

const NO_LINES: readonly number[] = [];

/**
 * The map a load starts with, its entries made by MapEntriesAtLoad. Its values were checked when the config was loaded (checkConfig), or come
 * from the router's renderer, valid by construction (a trusted load): checking them again at every build
 * cost 0.4% of a dcm-slots replay of the day slice.
 */
export function mapFromLayout(layout: MapLayout, entries: MockMapEntry[]): MockMap {
  return {
    id: layout.id,
    path: layout.path,
    file: layout.file,
    match: layout.match,
    values: layout.values,
    cfgFile: layout.cfgFile,
    line: layout.line,
    alsoAt: layout.alsoAt ?? NO_LINES,
    kinds: layout.kinds ?? [{ match: layout.match, values: layout.values }],
    currVer: 0,
    nextVer: 0,
    entries,
    takenOut: [],
    entryCountSkew: 0,
    rev: 0,
    shape: 0,
    appends: 0,
    versioned: false,
  };
}

/** Versions are 32-bit counters compared with wrap-around, as HAProxy compares generation ids. */
export function versionAfter(a: number, b: number): boolean {
  return ((a - b) | 0) > 0;
}

/** `@<n>`: HAProxy reads the digits after `@` and takes no digits as 0. */
export function parseVersion(word: string): number {
  let v = 0;
  for (let i = 1; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 0x30 || c > 0x39) break;
    v = (v * 10 + (c - 0x30)) >>> 0;
  }
  return v;
}

/** Keys repeat across reloads, but a long churn run keeps inventing hosts: the caches keep the keys used lately. */
const CACHE_ENTRIES_MAX = 16_384;
const regexCache = new RecentMap<string, RegExp | Error>(CACHE_ENTRIES_MAX);
const prefixCache = new RecentMap<string, string>(CACHE_ENTRIES_MAX);

/**
 * The text every string a `^`-anchored key matches must start with (`^a\.b\.?…` → `a.b`), or "" when
 * unknown. Lookups test it before running the regex: most router keys are host regexes, so most entries
 * are ruled out by one `startsWith`.
 */
export function literalPrefixOf(key: string): string {
  let p = prefixCache.get(key);
  if (p === undefined) {
    p = computeLiteralPrefix(key);
    prefixCache.set(key, p);
  }
  return p;
}

function computeLiteralPrefix(key: string): string {
  if (!key.startsWith('^')) return '';
  let out = '';
  for (let i = 1; i < key.length; i++) {
    const c = key[i]!;
    if (c === '\\') {
      const next = key[i + 1];
      // Only an escaped punctuation character is a literal; `\d`, `\w`… are classes.
      if (next === undefined || /[0-9A-Za-z]/.test(next)) break;
      out += next;
      i++;
      continue;
    }
    if (c === '?' || c === '*' || c === '{') {
      // The character before is optional or repeated: it is not part of every match.
      out = out.slice(0, -1);
      break;
    }
    if ('.[]()+|^$'.includes(c)) break;
    out += c;
  }
  // An alternation anywhere could start with anything.
  return key.includes('|') ? '' : out;
}

/** PCRE escapes that are letters; any other `\<letter>` is an error in PCRE (and JS's legacy mode accepts it). */
const PCRE_LETTER_ESCAPES = new Set('dDwWsSbBAzZGQEnrtfvaehHkKNpPRXxcugoCL'.split(''));

/**
 * The map key compiled as HAProxy's `map_reg` would, cached per key (keys repeat across reloads).
 * JavaScript's regex dialect stands in for PCRE; the router's keys use the common subset.
 */
export function compileMapRegex(key: string): RegExp | Error {
  let r = regexCache.get(key);
  if (r === undefined) {
    r = compileUncached(key);
    regexCache.set(key, r);
  }
  return r;
}

const testCache = new RecentMap<string, RouteKeyMatch | null>(CACHE_ENTRIES_MAX);

/**
 * How a `map_reg` entry with this key tests an input, cached per key: read without a regex when it is one
 * of the router's own shapes (routeKeyMatch), else the compiled key's `test`; undefined for a key that does
 * not compile (it matches nothing).
 */
export function mapKeyTest(key: string): RouteKeyMatch | undefined {
  let t = testCache.get(key);
  if (t === undefined) {
    t = routeKeyMatch(key) ?? null;
    if (t === null) {
      const re = compileMapRegex(key);
      if (!(re instanceof Error)) t = (input) => re.test(input);
    }
    testCache.set(key, t);
  }
  return t ?? undefined;
}

function compileUncached(key: string): RegExp | Error {
  for (let i = 0; i < key.length - 1; i++) {
    if (key[i] !== '\\') continue;
    const next = key[i + 1]!;
    if (/[A-Za-z]/.test(next) && !PCRE_LETTER_ESCAPES.has(next)) {
      return new Error(`unrecognized character follows \\, erroffset=${i + 1}`);
    }
    i++;
  }
  try {
    return new RegExp(key);
  } catch (e) {
    return new Error(pcreStyleError(key, (e as Error).message));
  }
}

/** PCRE2's wording and offset for the syntax errors router keys can plausibly contain (measured on 2.6.12). */
function pcreStyleError(key: string, jsMessage: string): string {
  if (jsMessage.includes('Unterminated group')) return `missing closing parenthesis, erroffset=${key.length}`;
  if (jsMessage.includes('Unterminated character class')) return `missing terminating ] for character class, erroffset=${key.length}`;
  if (jsMessage.includes("Unmatched ')'")) return `unmatched closing parenthesis, erroffset=${unmatchedParenAt(key)}`;
  if (jsMessage.includes('Nothing to repeat')) return `quantifier does not follow a repeatable item, erroffset=${danglingQuantifierAt(key)}`;
  if (jsMessage.includes('\\ at end of pattern')) return `\\ at end of pattern, erroffset=${key.length}`;
  if (jsMessage.includes('numbers out of order')) return `numbers out of order in {} quantifier, erroffset=${key.indexOf('}')}`;
  return `${jsMessage}, erroffset=0`;
}

function unmatchedParenAt(key: string): number {
  let depth = 0;
  for (let i = 0; i < key.length; i++) {
    const c = key[i];
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return i;
  }
  return 0;
}

function danglingQuantifierAt(key: string): number {
  let canRepeat = false;
  for (let i = 0; i < key.length; i++) {
    const c = key[i]!;
    if (c === '\\') {
      i++;
      canRepeat = true;
    } else if (c === '*' || c === '+' || c === '?') {
      if (!canRepeat) return i;
      canRepeat = false;
    } else {
      canRepeat = c !== '(' && c !== '|';
    }
  }
  return 0;
}
