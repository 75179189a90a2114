import type { Balance, BackendConfig, HaproxyConfig, MapEntry, ServerConfig } from '../../core/haproxy/config-model.ts';
import type { CfgLayout, FrontendLayout, MapLayout } from './haproxy-cfg.ts';
import { PatternRefNumbering } from './pattern-refs.ts';
import { strtol } from './strtol.ts';

/**
 * Reads the part of an haproxy.cfg that the runtime API can observe, as the OpenShift router template writes
 * it: backends (mode, balance, hash-type, cookie, dynamic-cookie-key, `server` and `server-template` lines with
 * weight, check, disabled, cookie, ssl, port) and the map files the frontends look up with `map_reg(...)`/`map(...)`.
 * It also derives the ids HAProxy 2.6 gives proxies and maps (see `pattern-refs.ts`), so a mock loaded from
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
  /** The global section's `stats socket` lines that name a unix socket, in file order. */
  statsSockets: StatsSocket[];
}

/** A `stats socket <path> [mode <octal>] [level user|operator|admin]` line. */
export interface StatsSocket {
  path: string;
  /** Permission bits, read in octal as HAProxy reads them; absent, the process umask decides. */
  mode?: number;
  level?: 'user' | 'operator' | 'admin';
  line: number;
}

export interface ParseOptions {
  /** The cfg's name as HAProxy would be given it (`-f`); used in messages and `show map` descriptions. */
  cfgFile: string;
  /** Reads a map file by the path written in the cfg; throws if it cannot. */
  readFile: (path: string) => string;
}

const BALANCES: readonly Balance[] = ['roundrobin', 'leastconn', 'source', 'random', 'static-rr', 'first'];
const FIRST_PROXY_ID = 2;

type Section = { kind: 'global' | 'defaults' | 'frontend' | 'other' } | { kind: 'backend'; backend: BackendConfig };

export function parseHaproxyCfg(text: string, options: ParseOptions): ParsedCfg {
  const file = options.cfgFile;
  const backends: BackendConfig[] = [];
  const backendIds = new Map<string, number>();
  let proxyCount = 0;
  const frontends: FrontendLayout[] = [];
  let frontend: (FrontendLayout & { backends: string[] }) | undefined;
  // Where each backend a frontend names is named, for the check once every backend is known.
  const named: { frontend: string; kw: string; backend: string; line: number }[] = [];
  const fullconn = new Map<string, number>();
  // Listen sections whose default backend is their own half: those without a `default_backend` (measured
  // on 2.6.12: with one, their own half's fullconn is 1).
  const listens = new Set<FrontendLayout & { backends: string[] }>();
  let defaultsMaxconn: number | undefined;
  let defaultsFullconn: number | undefined;
  let defaultMode: 'http' | 'tcp' = 'tcp';
  // Before the first section header nothing may stand: HAProxy refuses the file (and a YAML file lands here).
  let section: Section | undefined;
  const refs = new PatternRefNumbering(file);
  const statsSockets: StatsSocket[] = [];
  let maxconn: number | undefined;
  const serverLines = new Map<string, number[]>();
  const linesOf = (backend: string): number[] => {
    let ls = serverLines.get(backend);
    if (ls === undefined) serverLines.set(backend, (ls = []));
    return ls;
  };

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
      refs.newSection();
      if (kw === 'frontend' || kw === 'backend' || kw === 'listen') {
        const name = words[1] ?? fail(`'${kw}' needs a name`);
        proxyCount++;
        // A listen section is a frontend and a backend in one proxy (the template's `listen stats`).
        if (kw !== 'frontend') {
          if (backendIds.has(name)) fail(`backend '${name}' is defined twice`);
          const be: BackendConfig = { name, mode: defaultMode, balance: 'roundrobin', servers: [] };
          backends.push(be);
          backendIds.set(name, FIRST_PROXY_ID + proxyCount - 1);
          serverLines.set(name, []);
          if (defaultsFullconn !== undefined) fullconn.set(name, defaultsFullconn);
          section = { kind: 'backend', backend: be };
        } else {
          section = { kind: 'frontend' };
        }
        // `show stat` lists a frontend (and a listen section's frontend half) by its id and mode.
        frontend = kw === 'backend' ? undefined : { name, id: FIRST_PROXY_ID + proxyCount - 1, mode: defaultMode, backends: [] };
        if (kw === 'listen') listens.add(frontend!);
        if (frontend !== undefined) {
          if (defaultsMaxconn !== undefined) frontend.maxconn = defaultsMaxconn;
          frontends.push(frontend);
        }
      } else {
        section = { kind: kw === 'global' ? 'global' : 'defaults' };
        frontend = undefined;
      }
      continue;
    }
    if (/^(resolvers|peers|userlist|mailers|program|http-errors|ring|cache)$/.test(kw)) {
      section = { kind: 'other' };
      continue;
    }
    if (section === undefined) throw new CfgParseError(file, lineNo, `unknown keyword '${kw}' out of section (is this an haproxy.cfg?)`);

    // Map references and ACL expressions, in the order HAProxy creates their pattern references.
    if (section.kind === 'frontend' || section.kind === 'backend' || section.kind === 'defaults') {
      try {
        refs.line(words, lineNo);
      } catch (e) {
        fail((e as Error).message);
      }
    }

    if (section.kind === 'global' && kw === 'maxconn') {
      // HAProxy 2.6 reads it with atol: a decimal prefix, no digits at all being 0 (checked on 2.6.12:
      // `maxconn 12abc` runs with 12, `maxconn abc` and `maxconn 0` with the limit derived from ulimit -n).
      maxconn = positiveAtol(kw, words[1], fail);
      continue;
    }
    if (section.kind === 'global' && kw === 'stats' && words[1] === 'socket') {
      const socket = parseStatsSocket(words, lineNo, fail);
      if (socket !== undefined) statsSockets.push(socket);
      continue;
    }
    if (section.kind === 'defaults' && kw === 'mode') {
      defaultMode = parseMode(words[1], fail);
      continue;
    }
    if (frontend !== undefined && kw === 'mode') frontend.mode = parseMode(words[1], fail);
    // A proxy's `maxconn` and `fullconn`, read with atol as HAProxy reads them: 0 leaves the default (the
    // process's maxconn; a tenth of the naming frontends' maxconn). Measured on 2.6.12.
    if (kw === 'maxconn' && section.kind === 'defaults') defaultsMaxconn = positiveAtol(kw, words[1], fail);
    if (kw === 'fullconn' && section.kind === 'defaults') defaultsFullconn = positiveAtol(kw, words[1], fail);
    if (frontend !== undefined) {
      if (kw === 'maxconn') {
        const n = positiveAtol(kw, words[1], fail);
        if (n === undefined) delete frontend.maxconn;
        else frontend.maxconn = n;
      } else if ((kw === 'default_backend' || kw === 'use_backend') && words[1] !== undefined && !words[1].includes('%[')) {
        if (!frontend.backends.includes(words[1])) frontend.backends.push(words[1]);
        if (kw === 'default_backend') listens.delete(frontend);
        named.push({ frontend: frontend.name, kw, backend: words[1], line: lineNo });
      }
    }
    if (section.kind !== 'backend') continue;
    if (kw === 'fullconn') {
      const n = positiveAtol(kw, words[1], fail);
      if (n === undefined) fullconn.delete(section.backend.name);
      else fullconn.set(section.backend.name, n);
      continue;
    }
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
      case 'hash-type': {
        const t = words[1];
        if (t !== 'map-based' && t !== 'consistent') fail(`unsupported hash-type '${t ?? ''}' (expected map-based or consistent)`);
        be.hashType = t as 'map-based' | 'consistent';
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
        linesOf(be.name).push(lineNo);
        break;
      case 'server-template': {
        const prefix = words[1] ?? fail("'server-template' needs a prefix");
        const [from, to] = parseRange(words[2], fail);
        const addr = words[3] ?? fail("'server-template' needs an address");
        for (let n = from; n <= to; n++) {
          be.servers.push(parseServer(`${prefix}${n}`, addr, words.slice(4), fail));
          linesOf(be.name).push(lineNo);
        }
        break;
      }
      default:
        break;
    }
  }

  for (const l of listens) if (!l.backends.includes(l.name)) l.backends.push(l.name);
  for (const n of named) {
    if (!backendIds.has(n.backend)) throw new CfgParseError(file, n.line, `Proxy '${n.frontend}': unable to find required ${n.kw}: '${n.backend}'.`);
  }
  const ordered = refs.finish();
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
    const { alsoAt, ...rest } = m;
    layoutMaps.push(alsoAt.length > 0 ? { ...rest, file: base, alsoAt } : { ...rest, file: base });
  }
  const layout: CfgLayout = { backendIds, maps: layoutMaps, frontends, serverLines: { cfgFile: file, byBackend: serverLines } };
  if (fullconn.size > 0) layout.fullconn = fullconn;
  if (maxconn !== undefined) layout.maxconn = maxconn;
  return { config: { backends, maps }, layout, statsSockets };
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

/** A unix `stats socket` line; an `ipv4@`/`:port` listener is not a file and gives undefined. */
function parseStatsSocket(words: readonly string[], line: number, fail: (m: string) => never): StatsSocket | undefined {
  const addr = words[2] ?? fail("'stats socket' needs an address");
  if (!addr.startsWith('/') && !addr.startsWith('unix@')) return undefined;
  const socket: StatsSocket = { path: addr.replace(/^unix@/, ''), line };
  for (let i = 3; i < words.length; i++) {
    if (words[i] === 'mode') {
      const m = words[++i];
      if (m === undefined || !/^[0-7]+$/.test(m)) fail(`'stats socket' mode must be octal, got '${m ?? ''}'`);
      socket.mode = parseInt(m!, 8);
    } else if (words[i] === 'level') {
      const l = words[++i];
      if (l !== 'user' && l !== 'operator' && l !== 'admin') fail(`'stats socket' level must be user, operator or admin, got '${l ?? ''}'`);
      socket.level = l as StatsSocket['level'];
    }
  }
  return socket;
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
    else if (kw === 'ssl') s.ssl = true;
    else if (kw === 'no-ssl') s.ssl = false;
    else if (kw === 'port') {
      const p = Number(rest[++i]);
      if (!Number.isInteger(p) || p < 0 || p > 65535) fail(`server '${name}': check port must be 0..65535, got '${rest[i] ?? ''}'`);
      s.checkPort = p;
    }
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

/** `maxconn` or `fullconn` of a proxy or the defaults: atol's value, undefined when 0 (the default applies). */
function positiveAtol(kw: string, word: string | undefined, fail: (msg: string) => never): number | undefined {
  if (word === undefined) fail(`'${kw}' expects an integer argument.`);
  const n = strtol(word!).value;
  return n > 0 ? n : undefined;
}
