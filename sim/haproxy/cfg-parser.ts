import type { Balance, BackendConfig, HaproxyConfig, MapEntry, ServerConfig } from '../../core/haproxy/config-model.ts';
import type { CfgLayout, MapLayout, MapMatch, MapValues } from './haproxy-cfg.ts';

/**
 * Reads the part of an haproxy.cfg that the runtime API can observe, as the OpenShift router template writes
 * it: backends (mode, balance, cookie, dynamic-cookie-key, `server` and `server-template` lines with
 * weight, check, disabled, cookie) and the map files the frontends look up with `map_reg(...)`/`map(...)`.
 * It also derives the ids HAProxy 2.6 gives proxies and maps (see `haproxy-cfg.ts`), so a mock loaded from
 * the parse answers `show servers state` and `show map` like a real process started on that file.
 * Everything else is skipped. Errors name the file and line.
 */
export class CfgParseError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
    this.name = 'CfgParseError';
  }
}

export interface ParsedCfg {
  config: HaproxyConfig;
  layout: CfgLayout;
}

export interface ParseOptions {
  /** The cfg's name as HAProxy would be given it (`-f`); used in messages and `show map` descriptions. */
  cfgFile: string;
  /** Reads a map file by the path written in the cfg; throws if it cannot. */
  readFile: (path: string) => string;
}

const BALANCES: readonly Balance[] = ['roundrobin', 'leastconn', 'source', 'random', 'static-rr', 'first'];
const FIRST_PROXY_ID = 2;
const HTTPCLIENT_ACL_REFS = 2;
const MAP_CONVERTER = /\bmap(_reg|_str)?(_int|_str)?\(([^,)]+)/g;
const ANON_ACL = /\{[^}]*\}/g;
const OTHER_MAP_CONVERTER = /\bmap_(beg|end|sub|dir|dom|ip|int|regm|len)(_int|_str|_ip)?\(/;

type Section = { kind: 'global' | 'defaults' | 'frontend' | 'other' } | { kind: 'backend'; backend: BackendConfig };

export function parseHaproxyCfg(text: string, options: ParseOptions): ParsedCfg {
  const file = options.cfgFile;
  const backends: BackendConfig[] = [];
  const backendIds = new Map<string, number>();
  let proxyCount = 0;
  let defaultMode: 'http' | 'tcp' = 'tcp';
  let section: Section = { kind: 'other' };
  let nextRefId = 0;
  const parsedMaps: Omit<MapLayout, 'file'>[] = [];
  const deferredMaps: Omit<MapLayout, 'file' | 'id'>[] = [];
  const seenMaps = new Set<string>();

  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const words = splitCfgLine(lines[i]!);
    if (words.length === 0) continue;
    const kw = words[0]!;
    const fail = (msg: string): never => {
      throw new CfgParseError(file, lineNo, msg);
    };

    if (kw === 'global' || kw === 'defaults' || kw === 'frontend' || kw === 'backend' || kw === 'listen') {
      if (kw === 'listen') fail("'listen' sections are not supported; use a frontend and a backend");
      if (kw === 'frontend' || kw === 'backend') {
        const name = words[1] ?? fail(`'${kw}' needs a name`);
        proxyCount++;
        if (kw === 'backend') {
          if (backendIds.has(name)) fail(`backend '${name}' is defined twice`);
          const be: BackendConfig = { name, mode: defaultMode, balance: 'roundrobin', servers: [] };
          backends.push(be);
          backendIds.set(name, FIRST_PROXY_ID + proxyCount - 1);
          section = { kind: 'backend', backend: be };
        } else {
          section = { kind: 'frontend' };
        }
      } else {
        section = { kind: kw === 'global' ? 'global' : 'defaults' };
      }
      continue;
    }
    if (/^(resolvers|peers|userlist|mailers|program|http-errors|ring|cache)$/.test(kw)) {
      section = { kind: 'other' };
      continue;
    }

    // Map references and ACL expressions, in the order HAProxy creates their pattern references.
    if (section.kind === 'frontend' || section.kind === 'backend' || section.kind === 'defaults') {
      const raw = lines[i]!;
      const deferred = (kw === 'use_backend' || kw === 'default_backend') && raw.includes('%[');
      const other = OTHER_MAP_CONVERTER.exec(raw);
      if (other !== null) fail(`unsupported converter 'map_${other[1]}' (only map and map_reg are modelled)`);
      for (const m of raw.matchAll(MAP_CONVERTER)) {
        const path = m[3]!.trim();
        const match: MapMatch = m[1] === '_reg' ? 'reg' : 'str';
        const values: MapValues = m[2] === '_int' ? 'int' : 'str';
        if (seenMaps.has(path)) continue;
        seenMaps.add(path);
        if (deferred) deferredMaps.push({ path, match, values, cfgFile: file, line: lineNo });
        else parsedMaps.push({ path, id: nextRefId++, match, values, cfgFile: file, line: lineNo });
      }
      if (kw === 'acl') nextRefId++;
      nextRefId += (raw.match(ANON_ACL) ?? []).length;
    }

    if (section.kind === 'defaults' && kw === 'mode') {
      defaultMode = parseMode(words[1], fail);
      continue;
    }
    if (section.kind !== 'backend') continue;
    const be = section.backend;
    switch (kw) {
      case 'mode':
        be.mode = parseMode(words[1], fail);
        break;
      case 'balance': {
        const b = words[1] as Balance | undefined;
        if (b === undefined || !BALANCES.includes(b)) fail(`unsupported balance '${words[1] ?? ''}' (expected one of ${BALANCES.join(', ')})`);
        be.balance = b!;
        break;
      }
      case 'cookie':
        be.cookieName = words[1] ?? fail("'cookie' needs a name");
        break;
      case 'dynamic-cookie-key':
        be.dynamicCookieKey = words[1] ?? fail("'dynamic-cookie-key' needs a key");
        break;
      case 'server':
        be.servers.push(parseServer(words[1] ?? fail("'server' needs a name"), words[2] ?? fail("'server' needs an address"), words.slice(3), fail));
        break;
      case 'server-template': {
        const prefix = words[1] ?? fail("'server-template' needs a prefix");
        const [from, to] = parseRange(words[2], fail);
        const addr = words[3] ?? fail("'server-template' needs an address");
        for (let n = from; n <= to; n++) be.servers.push(parseServer(`${prefix}${n}`, addr, words.slice(4), fail));
        break;
      }
      default:
        break;
    }
  }

  nextRefId += HTTPCLIENT_ACL_REFS;
  const ordered = [...parsedMaps, ...deferredMaps.map((m) => ({ ...m, id: nextRefId++ }))];
  const maps: Record<string, MapEntry[]> = {};
  const layoutMaps: MapLayout[] = [];
  for (const m of ordered) {
    const base = m.path.slice(m.path.lastIndexOf('/') + 1);
    if (maps[base] !== undefined) throw new CfgParseError(file, m.line, `two map files share the name '${base}'`);
    let content: string;
    try {
      content = options.readFile(m.path);
    } catch (e) {
      throw new CfgParseError(file, m.line, `cannot read map file '${m.path}': ${(e as Error).message}`);
    }
    maps[base] = parseMapFile(content, m.path);
    layoutMaps.push({ ...m, file: base });
  }
  return { config: { backends, maps }, layout: { backendIds, maps: layoutMaps } };
}

/** Words of a cfg line: blanks separate, `#` starts a comment, quotes and backslashes group. */
function splitCfgLine(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else cur += c;
      continue;
    }
    if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '#') {
      break;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

function parseMode(word: string | undefined, fail: (m: string) => never): 'http' | 'tcp' {
  if (word === 'http' || word === 'tcp') return word;
  return fail(`unsupported mode '${word ?? ''}'`);
}

function parseRange(word: string | undefined, fail: (m: string) => never): [number, number] {
  const m = word === undefined ? null : /^(\d+)(?:-(\d+))?$/.exec(word);
  if (m === null) return fail(`'server-template' needs a count or a range like 1-5, got '${word ?? ''}'`);
  return m[2] === undefined ? [1, Number(m[1])] : [Number(m[1]), Number(m[2])];
}

function parseServer(name: string, addr: string, rest: readonly string[], fail: (m: string) => never): ServerConfig {
  const { address, port } = splitAddress(addr, fail);
  const s: ServerConfig = { name, address, port, weight: 1, disabled: false, check: false };
  for (let i = 0; i < rest.length; i++) {
    const kw = rest[i];
    if (kw === 'weight') {
      const w = Number(rest[++i]);
      if (!Number.isInteger(w) || w < 0 || w > 256) fail(`server '${name}': weight must be 0..256, got '${rest[i] ?? ''}'`);
      s.weight = w;
    } else if (kw === 'disabled') s.disabled = true;
    else if (kw === 'enabled') s.disabled = false;
    else if (kw === 'check') s.check = true;
    else if (kw === 'no-check') s.check = false;
    else if (kw === 'cookie') s.cookie = rest[++i] ?? fail(`server '${name}': 'cookie' needs a value`);
  }
  return s;
}

function splitAddress(addr: string, fail: (m: string) => never): { address: string; port: number } {
  if (addr.startsWith('unix@') || addr.startsWith('/')) return { address: addr, port: 0 };
  let host = addr;
  let portText = '';
  if (addr.startsWith('[')) {
    const close = addr.indexOf(']');
    if (close < 0) fail(`bad address '${addr}'`);
    host = addr.slice(1, close);
    portText = addr.slice(close + 1).replace(/^:/, '');
  } else if (addr.indexOf(':') === addr.lastIndexOf(':') && addr.includes(':')) {
    host = addr.slice(0, addr.indexOf(':'));
    portText = addr.slice(addr.indexOf(':') + 1);
  }
  if (portText === '') return { address: host, port: 0 };
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`bad port in address '${addr}'`);
  return { address: host, port };
}

/** A map file: `key value` per line, value to the end of the line; blank lines and `#` comments skipped. */
export function parseMapFile(content: string, path = 'map'): MapEntry[] {
  const out: MapEntry[] = [];
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    const t = line.trimStart();
    if (t === '' || t.startsWith('#')) continue;
    const m = /^(\S+)(?:[ \t]+(.*?))?[ \t]*$/.exec(t);
    if (m === null || m[2] === undefined || m[2] === '') throw new CfgParseError(path, i + 1, `map line has a key but no value: '${t}'`);
    out.push({ key: m[1]!, value: m[2] });
  }
  return out;
}
