import { OK, refused, type MapEntryRow, type MapListRow, type RuntimeReply } from '../../core/haproxy/commands.ts';
import { lookupOf, MapLookup } from './map-lookup.ts';
import { routeKeyMatch } from './route-key-match.ts';
import { compileMapRegex, entryCount, isIntValue, MockMapEntry, parseVersion, versionAfter, type MockMap, type PointerSource } from './map-state.ts';

/**
 * The map commands of HAProxy 2.6's runtime API, with its exact replies (measured on 2.6.12). Every reply
 * ends with the CLI's closing "\n". Those the config managers send answer typed (core/haproxy/commands.ts).
 */
export interface MapRuntime {
  /** Every map in id order, as `show map` lists it, without building any map's entries. */
  mapListing(): readonly MapListing[];
  map(path: string): MockMap | undefined;
  readonly pointers: PointerSource;
}

export interface MapListing {
  id: number;
  path: string;
  cfgFile: string;
  line: number;
  alsoAt: readonly number[];
  currVer: number;
  nextVer: number;
  /** `entry_cnt` as printed. */
  entryCount: string;
}

/** A built map's line in `show map`. */
export function listingOf(m: MockMap): MapListing {
  return { id: m.id, path: m.path, cfgFile: m.cfgFile, line: m.line, alsoAt: m.alsoAt, currVer: m.currVer, nextVer: m.nextVer, entryCount: entryCount(m) };
}

const UNKNOWN_MAP: RuntimeReply = refused('Unknown map identifier. Please use #<id> or <file>.\n\n');
const UNKNOWN_MAP_TEXT = 'Unknown map identifier. Please use #<id> or <file>.\n\n';
const ADD_USAGE = "'add map' expects three parameters (map identifier, key and value) or one parameter (map identifier) and a payload\n\n";

/**
 * `<file>` or `#<id>`. The id is read as HAProxy's strtol reads it, and all of it must be a number: leading
 * blanks and a sign are allowed, and an empty id is 0 (measured on 2.6.12: `#`, `#+0`, `#\ 0` all name map 0).
 */
export function lookupMap(rt: MapRuntime, ref: string | undefined): MockMap | undefined {
  if (ref === undefined || ref === '') return undefined;
  if (ref.charCodeAt(0) !== 0x23) return rt.map(ref);
  const rest = ref.slice(1);
  if (rest !== '' && !MAP_ID.test(rest)) return undefined;
  const id = rest === '' ? 0 : Number(rest.trim());
  for (const m of rt.mapListing()) if (m.id === id) return rt.map(m.path);
  return undefined;
}

const MAP_ID = /^[\t\n\v\f\r ]*[+-]?[0-9]+$/;

/** `, by map at file '<cfg>' line <n>` for each further reference, as HAProxy extends the description. */
function laterUses(m: MapListing): string {
  let out = '';
  for (const line of m.alsoAt) out += `, by map at file '${m.cfgFile}' line ${line}`;
  return out;
}

export function showMap(rt: MapRuntime, w: readonly string[]): RuntimeReply {
  let at = 2;
  let version: number | undefined;
  if (w[at]?.startsWith('@')) {
    version = parseVersion(w[at]!);
    at++;
  } else if (w[at] === undefined) {
    return showMapList(rt);
  }
  const m = lookupMap(rt, w[at]);
  if (m === undefined) return UNKNOWN_MAP;
  return showMapEntries(m, version ?? m.currVer);
}

/** `show map`: every map, in id order. */
export function showMapList(rt: MapRuntime): RuntimeReply {
  const maps: MapListRow[] = [];
  for (const m of rt.mapListing()) {
    let row = listRows.get(m);
    if (row === undefined) {
      row = {
        id: m.id,
        file: m.path,
        description:
          `pattern loaded from file '${m.path}' used by map at file '${m.cfgFile}' line ${m.line}${laterUses(m)}. ` +
          `curr_ver=${m.currVer} next_ver=${m.nextVer} entry_cnt=${m.entryCount}`,
      };
      listRows.set(m, row);
    }
    maps.push(row);
  }
  return { kind: 'maps', maps };
}

/** The row of a listing a runtime hands out again (a map unchanged since the last reload): replies are read, never changed. */
const listRows = new WeakMap<MapListing, MapListRow>();

/** `show map [@<ver>] <map>`: the entries of one version, in map order. */
export function showMapEntries(m: MockMap, version: number): RuntimeReply {
  if (!m.versioned && version === m.currVer) return { kind: 'entries', entries: m.entries.slice() };
  const entries: MapEntryRow[] = [];
  for (const e of m.entries) if (e.version === version) entries.push(e);
  return { kind: 'entries', entries };
}

/**
 * `entry_cnt` counts an entry in once per converter kind but out only once (measured on 2.6.12: 3 kinds,
 * `add map` +3, `del map` -1), so every removal leaves the count that much higher than entries × kinds.
 */
function removed(m: MockMap, n: number): void {
  m.entryCountSkew += n * (m.kinds.length - 1);
}

/**
 * Adds one entry, as each converter kind reading the map loads it in turn (value parsed before the key is
 * compiled as a regex); returns the first kind's error reply, or undefined.
 */
function addEntry(rt: MapRuntime, m: MockMap, key: string, value: string, version: number): string | undefined {
  for (let i = 0; i < m.kinds.length; i++) {
    const kind = m.kinds[i]!;
    let refused: string | undefined;
    if (kind.values === 'int' && !isIntValue(value)) refused = `unable to parse '${value}'.\n\n`;
    else if (kind.match === 'reg' && routeKeyMatch(key) === undefined) {
      // A key of the router's own shapes is valid without compiling it (route-key-match.ts); nothing is
      // kept of it, since most keys added are never looked up.
      const r = compileMapRegex(key);
      if (r instanceof Error) refused = `regex '${key}' is invalid (error=${r.message}).\n\n`;
    }
    if (refused !== undefined) {
      // The kinds before this one counted the entry in; taking it out again counts one down.
      m.entryCountSkew += i - 1;
      return refused;
    }
  }
  m.entries.push(new MockMapEntry(rt.pointers.next(), key, value, version));
  if (version !== m.currVer) m.versioned = true;
  m.rev++;
  m.appends++;
  return undefined;
}

/** `add map <map> <key> <value>` of the current version, as the config managers send it. */
export function addMapEntry(rt: MapRuntime, mapRef: string, key: string, value: string): RuntimeReply {
  const m = lookupMap(rt, mapRef);
  if (m === undefined) return UNKNOWN_MAP;
  const err = addEntry(rt, m, key, value, m.currVer);
  return err === undefined ? OK : refused(err);
}

export function addMap(rt: MapRuntime, w: readonly string[], payload: readonly string[] | undefined): string {
  let at = 2;
  let version: number | undefined;
  if (w[at]?.startsWith('@')) {
    version = parseVersion(w[at]!);
    at++;
  }
  const mapRef = w[at];
  if (payload === undefined) {
    if (!w[at] || !w[at + 1] || !w[at + 2]) return ADD_USAGE;
  } else if (!mapRef) {
    return ADD_USAGE;
  }
  const m = lookupMap(rt, mapRef);
  if (m === undefined) return UNKNOWN_MAP_TEXT;
  if (version !== undefined && versionAfter(version, m.nextVer)) return "Version number in the future, please use 'prepare map' before.\n\n";
  if (payload === undefined) return addEntry(rt, m, w[at + 1]!, w[at + 2]!, version ?? m.currVer) ?? '\n';
  // HAProxy reads the payload as one text: a key runs to the next blank (across line ends, so a line
  // without a value swallows the next line into its key), the value to the end of its line.
  const text = payload.join('\n');
  let p = 0;
  while (p < text.length) {
    let k = p;
    while (k < text.length && text[k] !== ' ' && text[k] !== '\t') k++;
    const key = text.slice(p, k);
    if (k === text.length) return `Missing value for key '${key}'.\n\n`;
    let v = k + 1;
    while (v < text.length && (text[v] === ' ' || text[v] === '\t')) v++;
    let e = text.indexOf('\n', v);
    if (e < 0) e = text.length;
    const err = addEntry(rt, m, key, text.slice(v, e), version ?? m.currVer);
    if (err !== undefined) return err;
    p = e + 1;
  }
  return '\n';
}

/**
 * What a `del map` or `set map` target names. HAProxy 2.6 takes it as an entry's reference only when it
 * starts with `#0x` (lowercase x), and then reads the rest as `strtoll` does in base 16: at least one hex
 * digit, in either case, leading zeros allowed, nothing after them (else "Malformed identifier"). Any
 * other word, `#k` and `#0X1` included, is a key (measured on 2.6.12).
 */
type Target = { kind: 'key'; key: string } | { kind: 'ref'; ref: string } | { kind: 'malformed' };

function targetOf(word: string): Target {
  if (!word.startsWith('#0x')) return { kind: 'key', key: word };
  const digits = word.slice(3);
  if (!HEX_DIGITS.test(digits)) return { kind: 'malformed' };
  // Entries print their pointer in lowercase without leading zeros: spell the number the same way.
  return { kind: 'ref', ref: `0x${digits.toLowerCase().replace(/^0+(?=.)/, '')}` };
}

const HEX_DIGITS = /^[0-9a-fA-F]+$/;
const MALFORMED_REF = 'Malformed identifier. Please use #<id> or <file>.\n\n';

function findByRef(m: MockMap, ref: string): MockMapEntry | undefined {
  for (const e of m.entries) if (e.ref === ref) return e;
  return undefined;
}

/** `del map <map> <key|#ref>`: a key removes every entry with that key, in every version. */
export function delMap(rt: MapRuntime, w: readonly string[]): RuntimeReply {
  if (!w[2] || !w[3]) return refused('This command expects two parameters: map identifier and key.\n\n');
  return delMapTarget(rt, w[2], w[3]);
}

/** `del map <map> #<ref>` as the router sends it: the ref as `show map` printed it. */
export function delMapRef(rt: MapRuntime, mapRef: string, ref: string): RuntimeReply {
  return delMapTarget(rt, mapRef, `#${ref}`);
}

function delMapTarget(rt: MapRuntime, mapRef: string, word: string): RuntimeReply {
  const m = lookupMap(rt, mapRef);
  if (m === undefined) return UNKNOWN_MAP;
  const target = targetOf(word);
  if (target.kind === 'malformed') return refused(MALFORMED_REF);
  if (target.kind === 'ref') return delEntry(m, findByRef(m, target.ref));
  return delKey(m, target.key);
}

function delKey(m: MockMap, target: string): RuntimeReply {
  const before = m.entries.length;
  for (const e of m.entries) if (e.key === target) takeOut(m, e);
  m.entries = m.entries.filter((e) => e.key !== target);
  removed(m, before - m.entries.length);
  m.rev++;
  return m.entries.length === before ? KEY_NOT_FOUND : OK;
}

/** `del map <map> #<ref>`: the one entry with that reference. */
function delEntry(m: MockMap, e: MockMapEntry | undefined): RuntimeReply {
  if (e === undefined) return KEY_NOT_FOUND;
  m.entries.splice(m.entries.indexOf(e), 1);
  removed(m, 1);
  takeOut(m, e);
  m.rev++;
  return OK;
}

const KEY_NOT_FOUND = refused('Key not found.\n\n');

/** `set map <map> <key|#ref> <value>`: a key updates every entry with that key, in every version. */
export function setMap(rt: MapRuntime, w: readonly string[]): string {
  if (!w[2] || !w[3] || !w[4]) return "'set map' expects three parameters: map identifier, key and value.\n\n";
  const m = lookupMap(rt, w[2]);
  if (m === undefined) return UNKNOWN_MAP_TEXT;
  const target = targetOf(w[3]);
  const value = w[4];
  if (target.kind === 'malformed') return MALFORMED_REF;
  // An integer map silently keeps its values when the new one does not parse (measured).
  const accepted = m.values !== 'int' || isIntValue(value);
  if (target.kind === 'ref') {
    const e = findByRef(m, target.ref);
    if (e === undefined) return 'key or pattern not found.\n\n';
    if (accepted) replaceValue(m, m.entries.indexOf(e), value);
    m.rev++;
    return '\n';
  }
  let found = false;
  for (let i = 0; i < m.entries.length; i++) {
    if (m.entries[i]!.key === target.key) {
      if (accepted) replaceValue(m, i, value);
      m.rev++;
      found = true;
    }
  }
  return found ? '\n' : 'entry not found.\n\n';
}

/** Entries are handed out as `show map` rows, which stay as they were listed: a new value is a new entry. */
function replaceValue(m: MockMap, i: number, value: string): void {
  const e = m.entries[i]!;
  m.entries[i] = e.withValue(value);
  takeOut(m, e);
}

/** An entry no longer in the map: marked so (lookups that kept it see it), and listed for the next load. */
function takeOut(m: MockMap, e: MockMapEntry): void {
  e.markRemoved();
  m.takenOut.push(e);
}

/** `clear map [@ver] <map>`: removes the entries of one version (the current one by default). */
export function clearMap(rt: MapRuntime, w: readonly string[]): string {
  let at = 2;
  let version: number | undefined;
  if (w[at]?.startsWith('@')) {
    version = parseVersion(w[at]!);
    at++;
  }
  if (!w[at]) return 'Missing map identifier.\n\n';
  const m = lookupMap(rt, w[at]);
  if (m === undefined) return UNKNOWN_MAP_TEXT;
  const v = version ?? m.currVer;
  const before = m.entries.length;
  m.entries = m.entries.filter((e) => e.version !== v);
  removed(m, before - m.entries.length);
  m.rev++;
  m.shape++;
  return '\n';
}

export function prepareMap(rt: MapRuntime, w: readonly string[]): string {
  const m = lookupMap(rt, w[2]);
  if (m === undefined) return UNKNOWN_MAP_TEXT;
  m.nextVer = (m.nextVer + 1) >>> 0;
  // A version being prepared is invisible to lookups until its commit: `shape` stays.
  m.rev++;
  return `New version created: ${m.nextVer}\n\n`;
}

/** `commit map @<ver> <map>`: makes the version current and drops every older one. */
export function commitMap(rt: MapRuntime, w: readonly string[]): string {
  if (!w[2]?.startsWith('@')) return 'Missing version number.\n\n';
  if (!w[3]) return 'Missing map identifier.\n\n';
  const m = lookupMap(rt, w[3]);
  if (m === undefined) return UNKNOWN_MAP_TEXT;
  const v = parseVersion(w[2]);
  if (!versionAfter(v, m.currVer) || versionAfter(v, m.nextVer)) return 'Version number out of range.\n\n';
  m.currVer = v;
  m.rev++;
  m.shape++;
  const before = m.entries.length;
  m.entries = m.entries.filter((e) => !versionAfter(v, e.version));
  removed(m, before - m.entries.length);
  return '\n';
}


/**
 * `get map <map> <value>`: what each converter kind reading the map finds for the value, one line per kind
 * in the order the cfg first uses them (measured on 2.6.12): a regex kind walks its list, a string kind
 * looks the exact key up in its tree; an integer kind names its type `sint`.
 */
export function getMap(rt: MapRuntime, w: readonly string[]): string {
  if (!w[2] || !w[3]) return 'Missing map identifier and/or key.\n\n';
  const m = lookupMap(rt, w[2]);
  if (m === undefined) return UNKNOWN_MAP_TEXT;
  let out = '';
  for (const kind of m.kinds) {
    out += `type=${kind.match}, case=sensitive`;
    const hit = (kind.match === m.match ? lookupOf(m) : new MapLookup(m.entries, kind.match, m.currVer)).first(w[3]);
    if (hit === undefined) {
      out += ', found=no\n';
      continue;
    }
    // The value is printed as the file wrote it, even when the converter reads it as an integer (measured).
    out += `, found=yes, idx=${kind.match === 'reg' ? 'list' : 'tree'}, key="${hit.key}", value="${hit.value}", type="${kind.values === 'int' ? 'sint' : 'str'}"\n`;
  }
  return `${out}\n`;
}
