import type { MapKind, MapLayout, MapMatch, MapValues } from './haproxy-cfg.ts';

/**
 * How HAProxy 2.6 numbers its pattern references, the ids `show map` (and `show acl`) print and `#<id>`
 * names. Every map file, every ACL pattern file and every ACL expression is one reference, numbered from 0
 * in the order they are created (pattern.c `pattern_finalize_config` walks the creation list). They are
 * created while the cfg is parsed, proxy after proxy, line after line, in the order each keyword's parser
 * reads its arguments; then the internal httpclient adds two ACLs; then `use_backend %[...]` expressions,
 * which `check_config_validity` parses after the whole file, add theirs in file order.
 *
 * Within one line (measured on 2.6.12 with `show acl` and `show map` side by side):
 * - `acl <name> <fetch,converters> [-f <file>]... [patterns]`: the converters' maps left to right, then each
 *   `-f` file, then the ACL expression itself;
 * - a rule `<action> [if|unless <condition>]`: the action's maps first, then the condition; the
 *   `http-request redirect` and `http-response redirect` parsers read the condition before the location;
 *   the legacy `redirect` keyword takes its location literally (no maps);
 * - a condition, left to right: `{ ... }` is an anonymous ACL (its maps, its `-f` files, then itself); a
 *   predefined ACL (`HTTP`, `TRUE`, ...) makes a reference the first time a proxy's conditions name it;
 * - `use_backend %[...]`: the condition now, the expression's maps after parsing.
 * A map file used again makes no new reference: HAProxy adds `, by map at file ... line ...` to its
 * description, and every distinct converter kind (match and output type) that reads it loads the file's
 * entries once more into `entry_cnt` (`map` and `map_str` are one kind; `map_reg` and `map_reg_int` two).
 */

/** One map converter in the cfg text: `map`, `map_str`, `map_reg`, optionally `_int`/`_str`, and its file. */
const MAP_CONVERTER = /\bmap(_reg|_str)?(_int|_str)?\(([^,)]+)/g;
const OTHER_MAP_CONVERTER = /\bmap_(beg|end|sub|dir|dom|ip|int|regm|len)(_int|_str|_ip)?\(/;

/** HAProxy 2.6's predefined ACLs (acl.c): a proxy's first condition to name one makes its pattern reference. */
const PREDEFINED_ACLS = new Set([
  'TRUE', 'FALSE', 'LOCALHOST', 'HTTP', 'HTTP_1.0', 'HTTP_1.1', 'HTTP_2.0', 'HTTP_CONTENT', 'HTTP_URL_ABS', 'HTTP_URL_SLASH',
  'HTTP_URL_STAR', 'METH_CONNECT', 'METH_DELETE', 'METH_GET', 'METH_HEAD', 'METH_OPTIONS', 'METH_POST', 'METH_PUT',
  'METH_TRACE', 'RDP_COOKIE', 'REQ_CONTENT', 'WAIT_END',
]);

/** The two ACLs the internal httpclient proxy creates between parsing and the late `use_backend` resolution. */
const HTTPCLIENT_ACL_REFS = 2;

export interface MapUse {
  path: string;
  match: MapMatch;
  values: MapValues;
  line: number;
}

interface MapRef extends Omit<MapLayout, 'file' | 'alsoAt' | 'kinds'> {
  alsoAt: number[];
  kinds: MapKind[];
}

export class PatternRefNumbering {
  private nextId = 0;
  private readonly maps: MapRef[] = [];
  private readonly byPath = new Map<string, MapRef>();
  /** Files loaded by ACL `-f`: they share the id space; a map use of one is not modelled. */
  private readonly aclFiles = new Map<string, number>();
  private readonly deferred: MapUse[] = [];
  private readonly declaredAcls = new Set<string>();
  private readonly predefinedUsed = new Set<string>();
  private finished = false;

  constructor(private readonly cfgFile: string) {}

  /** A new section: predefined ACLs and declared names are per proxy. */
  newSection(): void {
    this.declaredAcls.clear();
    this.predefinedUsed.clear();
  }

  /**
   * One line of a proxy section, as words (quotes and escapes resolved). Throws an Error with the reason for
   * constructs whose numbering is not modelled; the caller adds the file and line.
   */
  line(words: readonly string[], lineNo: number): void {
    const text = words.join(' ');
    const other = OTHER_MAP_CONVERTER.exec(text);
    if (other !== null) throw new Error(`unsupported converter 'map_${other[1]}' (only map and map_reg are modelled)`);
    const kw = words[0]!;
    if (kw === 'acl') {
      if (words[1] !== undefined) this.declaredAcls.add(words[1]);
      this.aclExpression(words.slice(2), lineNo);
      return;
    }
    const condAt = conditionStart(words);
    const action = words.slice(1, condAt < 0 ? words.length : condAt);
    const condition = condAt < 0 ? [] : words.slice(condAt + 1);
    // `redirect` (the legacy keyword) stores its location as a plain string: nothing in it is parsed.
    if (kw === 'redirect') {
      this.condition(condition, lineNo);
      return;
    }
    if (kw === 'use_backend' && (action[0] ?? '').includes('%[')) {
      this.condition(condition, lineNo);
      for (const use of mapUses(action, lineNo)) this.deferred.push(use);
      return;
    }
    if ((kw === 'http-request' || kw === 'http-response') && action[0] === 'redirect') {
      this.condition(condition, lineNo);
      for (const use of mapUses(action, lineNo)) this.useMap(use);
      return;
    }
    for (const use of mapUses(action, lineNo)) this.useMap(use);
    this.condition(condition, lineNo);
  }

  /** After the last line: the httpclient's ACLs, then the late `use_backend` maps; the maps in id order. */
  finish(): (Omit<MapLayout, 'file'> & { alsoAt: number[] })[] {
    if (!this.finished) {
      this.finished = true;
      this.nextId += HTTPCLIENT_ACL_REFS;
      for (const use of this.deferred) this.useMap(use);
    }
    return this.maps.map(({ kinds, ...m }) => (kinds.length > 1 ? { ...m, kinds } : { ...m }));
  }

  private aclExpression(expr: readonly string[], lineNo: number): void {
    for (const use of mapUses(expr, lineNo)) this.useMap(use);
    for (let i = 0; i < expr.length; i++) {
      if (expr[i] !== '-f') continue;
      const path = expr[++i];
      if (path === undefined) throw new Error("'-f' needs a file name");
      if (this.byPath.has(path)) throw new Error(`'${path}' is used both as a map and as an ACL file (not modelled)`);
      if (!this.aclFiles.has(path)) this.aclFiles.set(path, this.nextId++);
    }
    this.nextId++;
  }

  private condition(words: readonly string[], lineNo: number): void {
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!.replace(/^!/, '');
      if (word === '{') {
        const close = words.indexOf('}', i + 1);
        const end = close < 0 ? words.length : close;
        this.aclExpression(words.slice(i + 1, end), lineNo);
        i = end;
        continue;
      }
      if (PREDEFINED_ACLS.has(word) && !this.declaredAcls.has(word) && !this.predefinedUsed.has(word)) {
        this.predefinedUsed.add(word);
        this.nextId++;
      }
    }
  }

  private useMap(use: MapUse): void {
    if (this.aclFiles.has(use.path)) throw new Error(`'${use.path}' is used both as an ACL file and as a map (not modelled)`);
    const known = this.byPath.get(use.path);
    if (known !== undefined) {
      known.alsoAt.push(use.line);
      if (!known.kinds.some((k) => k.match === use.match && k.values === use.values)) known.kinds.push({ match: use.match, values: use.values });
      // A file any converter reads as integers must hold integers, whichever converter came first.
      if (use.values === 'int') known.values = 'int';
      return;
    }
    const made: MapRef = { path: use.path, id: this.nextId++, match: use.match, values: use.values, cfgFile: this.cfgFile, line: use.line, alsoAt: [], kinds: [{ match: use.match, values: use.values }] };
    this.maps.push(made);
    this.byPath.set(use.path, made);
  }
}

/** Where a rule's condition starts (`if`/`unless` as a word of its own after the keyword), or -1. */
function conditionStart(words: readonly string[]): number {
  for (let i = 1; i < words.length; i++) if (words[i] === 'if' || words[i] === 'unless') return i;
  return -1;
}

function mapUses(words: readonly string[], line: number): MapUse[] {
  const uses: MapUse[] = [];
  for (const m of words.join(' ').matchAll(MAP_CONVERTER)) {
    uses.push({ path: m[3]!.trim(), match: m[1] === '_reg' ? 'reg' : 'str', values: m[2] === '_int' ? 'int' : 'str', line });
  }
  return uses;
}
