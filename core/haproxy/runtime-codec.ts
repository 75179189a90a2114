import { escapeCliKey } from './cli-escape.ts';
import {
  ok,
  refused,
  type MapEntryRow,
  type MapListRow,
  type RuntimeCommand,
  type RuntimeReply,
  type ServerStateRow,
} from './commands.ts';

/**
 * The runtime API's wire text, and the only place that knows it: a typed command becomes the exact line the
 * router sends (HAProxy 2.6 forms), a reply's bytes become the typed reply, and a typed reply becomes the
 * bytes HAProxy writes for it. Used where a byte stream exists (a real stats socket, the mock on a socket,
 * the output log's command records); the simulation itself passes the typed values.
 */

export function encodeCommand(c: RuntimeCommand): string {
  switch (c.kind) {
    case 'show backend':
      return 'show backend';
    case 'show servers state':
      return `show servers state ${c.backend}`;
    case 'set server addr':
      return c.port === undefined ? `set server ${c.backend}/${c.server} addr ${c.ip}` : `set server ${c.backend}/${c.server} addr ${c.ip} port ${c.port}`;
    case 'set server state':
      return `set server ${c.backend}/${c.server} state ${c.state}`;
    case 'set server weight':
      return `set server ${c.backend}/${c.server} weight ${c.weight}`;
    case 'set dynamic-cookie-key':
      return `set dynamic-cookie-key backend ${c.backend} ${c.key}`;
    case 'enable dynamic-cookie':
      return `enable dynamic-cookie backend ${c.backend}`;
    case 'show map list':
      return 'show map';
    case 'show map':
      return `show map ${c.file}`;
    case 'add map':
      return `add map ${c.file} ${escapeCliKey(c.key)} ${c.value}`;
    case 'del map ref':
      return `del map ${c.file} #${c.ref}`;
    case 'add server': {
      let line = `add server ${c.backend}/${c.server} ${c.ip}:${c.port}`;
      for (const k of c.keywords) line += ` ${k}`;
      return line;
    }
    case 'del server':
      return `del server ${c.backend}/${c.server}`;
    case 'enable health':
      return `enable health ${c.backend}/${c.server}`;
    case 'disable health':
      return `disable health ${c.backend}/${c.server}`;
  }
}

/**
 * The command's verb: the first two words of its line (`set server`, `show servers`, `del map`), the unit
 * the output log counts successful commands by; without building the line.
 */
export function commandVerb(c: RuntimeCommand): string {
  return VERBS[c.kind];
}

const VERBS: Readonly<Record<RuntimeCommand['kind'], string>> = {
  'show backend': 'show backend',
  'show servers state': 'show servers',
  'set server addr': 'set server',
  'set server state': 'set server',
  'set server weight': 'set server',
  'set dynamic-cookie-key': 'set dynamic-cookie-key',
  'enable dynamic-cookie': 'enable dynamic-cookie',
  'show map list': 'show map',
  'show map': 'show map',
  'add map': 'add map',
  'del map ref': 'del map',
  'add server': 'add server',
  'del server': 'del server',
  'enable health': 'enable health',
  'disable health': 'disable health',
};

/**
 * The bytes HAProxy writes for a reply (the CLI's closing newline included). With `limit`, a listing may
 * stop once it is longer than that: its first `limit` characters are exact (a record keeps no more).
 */
export function encodeReply(r: RuntimeReply, limit = Infinity): string {
  switch (r.kind) {
    case 'ok':
    case 'refused':
      return r.text;
    case 'backends': {
      let out = '# name\n';
      for (const name of r.names) {
        if (out.length > limit) return out;
        out += `${name}\n`;
      }
      return `${out}\n`;
    }
    case 'servers': {
      let out = SERVERS_STATE_HEADER;
      for (const s of r.rows) {
        if (out.length > limit) return out;
        out += serverStateLine(s);
      }
      return `${out}\n`;
    }
    case 'maps': {
      let out = '# id (file) description\n';
      for (const m of r.maps) {
        if (out.length > limit) return out;
        out += `${m.id} (${m.file}) ${m.description}\n`;
      }
      return `${out}\n`;
    }
    case 'entries': {
      let out = '';
      for (const e of r.entries) {
        if (out.length > limit) return out;
        out += `${e.ref} ${e.key} ${e.value}\n`;
      }
      return `${out}\n`;
    }
  }
}

/** `show servers state`'s version line and column header. */
export const SERVERS_STATE_HEADER =
  '1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr srv_agent_port\n';

export function serverStateLine(s: ServerStateRow): string {
  return (
    `${s.backendId} ${s.backendName} ${s.id} ${s.name} ${s.address} ${s.opState} ${s.adminState} ${s.weight} ${s.initialWeight} ` +
    `${s.timeSinceLastChange} ${s.checkStatus} ${s.checkResult} ${s.checkHealth} ${s.checkState} ${s.agentState} ${s.backendForcedId} ` +
    `${s.forcedId} ${s.fqdn} ${s.port} ${s.srvRecord} ${s.useSsl} ${s.checkPort} ${s.checkAddr} ${s.agentAddr} ${s.agentPort}\n`
  );
}

/**
 * The typed reply to `c` read from HAProxy's bytes: the listing a `show` command answers, `ok` for the reply
 * the router accepts for that command, `refused` (with the bytes) for anything else.
 */
export function decodeReply(c: RuntimeCommand, text: string): RuntimeReply {
  switch (c.kind) {
    case 'show backend':
      return decodeBackends(text);
    case 'show servers state':
      return decodeServersState(text);
    case 'show map list':
      return decodeMapList(text);
    case 'show map':
      return decodeMapEntries(text);
    case 'set server addr':
    case 'set server state':
    case 'set server weight':
      return isAcceptedSetServerReply(text) ? ok(text) : refused(text);
    case 'add server':
      return text.trim() === 'New server registered.' ? ok(text) : refused(text);
    case 'del server':
      return text.trim() === 'Server deleted.' ? ok(text) : refused(text);
    case 'set dynamic-cookie-key':
    case 'enable dynamic-cookie':
    case 'add map':
    case 'del map ref':
    case 'enable health':
    case 'disable health':
      return isBlank(text) ? ok(text) : refused(text);
  }
}

/**
 * `set server … addr/state/weight`: the replies the 2018 manager accepts (blank, and HAProxy 2.x's
 * address and port messages, plus 3.x's "nothing changed").
 */
export function isAcceptedSetServerReply(reply: string): boolean {
  const r = reply.trim();
  return (
    r.length === 0 ||
    r === 'nothing changed' ||
    r.startsWith('IP changed from') ||
    r.startsWith('port changed from') ||
    r.startsWith('no need to change')
  );
}

function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 10 && c !== 13 && c !== 32 && c !== 9) return false;
  }
  return true;
}

/** The non-empty lines of a `show` reply that are not `#` headers; undefined when there is no header. */
function rowsUnderHeader(reply: string): string[] | undefined {
  const rows: string[] = [];
  let sawHeader = false;
  for (const line of reply.split('\n')) {
    if (line.length === 0) continue;
    if (line.charCodeAt(0) === 35) sawHeader = true;
    else rows.push(line);
  }
  return sawHeader ? rows : undefined;
}

/** `show backend`: a `# name` header then one backend name per line. */
function decodeBackends(text: string): RuntimeReply {
  const rows = rowsUnderHeader(text);
  return rows === undefined ? refused(text) : { kind: 'backends', names: rows.map((l) => l.trim()) };
}

const MAP_LIST_ROW = /^(-?[0-9]+) \(([^)]*)\)(?: (.*))?$/;

/** `show map`: `# id (file) description` then rows `<id> (<file>) <description>`. */
function decodeMapList(text: string): RuntimeReply {
  const rows = rowsUnderHeader(text);
  if (rows === undefined) return refused(text);
  const maps: MapListRow[] = [];
  for (const line of rows) {
    const m = MAP_LIST_ROW.exec(line);
    if (m === null) return refused(text);
    maps.push({ id: Number(m[1]), file: m[2]!, description: m[3] ?? '' });
  }
  return { kind: 'maps', maps };
}

/** `show map <file>`: rows `<pointer> <key> <value>`, no header. Unknown maps answer with an error text. */
function decodeMapEntries(text: string): RuntimeReply {
  const entries: MapEntryRow[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.length === 0) continue;
    const a = line.indexOf(' ');
    const b = a < 0 ? -1 : line.indexOf(' ', a + 1);
    if (a <= 0 || b < 0 || !line.startsWith('0x')) return refused(text);
    entries.push({ ref: line.slice(0, a), key: line.slice(a + 1, b), value: line.slice(b + 1) });
  }
  return { kind: 'entries', entries };
}

/**
 * `show servers state <be>`: a version line (`1`), a `#` header, then one row per server, its fields
 * separated by single blanks (two blanks make an empty field, read as 0 where a number is due). A row needs
 * at least the 19 fields up to srv_port; an unknown backend makes HAProxy answer with an error text instead.
 */
function decodeServersState(text: string): RuntimeReply {
  const rows: ServerStateRow[] = [];
  let sawVersion = false;
  for (const line of text.split('\n')) {
    if (line.length === 0 || line.charCodeAt(0) === 35) continue;
    if (!sawVersion) {
      sawVersion = true;
      if (line.trim() === '1') continue;
      return refused(text);
    }
    const f = line.split(' ');
    if (f.length < 19) return refused(text);
    const n = (k: number): number => Number(f[k] ?? 0);
    rows.push({
      backendId: n(0),
      backendName: f[1]!,
      id: n(2),
      name: f[3]!,
      address: f[4]!,
      opState: n(5),
      adminState: n(6),
      weight: n(7),
      initialWeight: n(8),
      timeSinceLastChange: n(9),
      checkStatus: n(10),
      checkResult: n(11),
      checkHealth: n(12),
      checkState: n(13),
      agentState: n(14),
      backendForcedId: n(15),
      forcedId: n(16),
      fqdn: f[17]!,
      port: n(18),
      srvRecord: f[19] ?? '-',
      useSsl: n(20),
      checkPort: n(21),
      checkAddr: f[22] ?? '-',
      agentAddr: f[23] ?? '-',
      agentPort: n(24),
    });
  }
  return sawVersion ? { kind: 'servers', rows } : refused(text);
}

// ---- which commands reach HAProxy as their own fields ----------------------------------------------

/** The CLI keeps at most this many words of a command (MAX_CLI_ARGS). */
const CLI_WORDS_MAX = 64;

/**
 * Whether the command's line reaches HAProxy's CLI as exactly the command's own fields: every field one
 * plain word (not empty; no blank, `;`, backslash or line end the CLI would cut or unescape at), a backend
 * without the `/` that separates it from its server, a map file not taken for an `@<version>`, an
 * `add server` address of the form the router writes. The simulated HAProxy executes such a command from
 * its fields; any other it answers as its text would be answered, so both agree whatever the fields hold.
 */
export function reachesCliVerbatim(c: RuntimeCommand): boolean {
  switch (c.kind) {
    case 'show backend':
    case 'show map list':
      return true;
    case 'show servers state':
    case 'enable dynamic-cookie':
      return plainWord(c.backend);
    case 'set dynamic-cookie-key':
      return plainWord(c.backend) && plainWord(c.key);
    case 'show map':
      return mapFile(c.file);
    case 'add map':
      // The key is escaped for the CLI (cli-escape.ts), which takes backslashes and dots back out.
      return mapFile(c.file) && plainWord(c.value) && c.key.length > 0 && !hasCut(c.key, true);
    case 'del map ref':
      return mapFile(c.file) && plainWord(c.ref);
    case 'set server addr':
      return onServer(c) && plainWord(c.ip) && (c.port === undefined || isPort(c.port));
    case 'set server state':
      // The three states the type allows are plain: only something else is scanned.
      return onServer(c) && (c.state === 'ready' || c.state === 'maint' || c.state === 'drain' || plainWord(c.state));
    case 'set server weight':
      return onServer(c) && (c.weight === plainWeight || plainWeightOf(c.weight));
    case 'add server': {
      if (!onServer(c) || !isPort(c.port) || c.keywords.length > CLI_WORDS_MAX - 4) return false;
      // `<ip>:<port>` splits at its last colon, so the ip holds none; prefixes and `*` mean other things.
      const ip = c.ip;
      if (!plainWord(ip) || ip === '*' || ip.includes(':') || ip.includes('@') || ip.startsWith('[') || ip.startsWith('/')) return false;
      const keywords = c.keywords;
      if (keywords !== plainKeywords) {
        for (const k of keywords) if (!plainWord(k)) return false;
        // Only a frozen list can be trusted to hold the same words when it comes again.
        if (Object.isFrozen(keywords)) plainKeywords = keywords;
      }
      return true;
    }
    case 'del server':
    case 'enable health':
    case 'disable health':
      return onServer(c);
  }
}

function onServer(c: { backend: string; server: string }): boolean {
  const backend = c.backend;
  const server = c.server;
  if (backend !== plainBackend) {
    if (!plainWord(backend) || backend.includes('/')) return false;
    plainBackend = backend;
  }
  if (server !== plainServer) {
    if (!plainWord(server)) return false;
    plainServer = server;
  }
  return true;
}

/**
 * The last backend and server found plain. A manager sends its commands in runs on one backend and one
 * server (add, ready, health; addr, weight, state), each a scan of 30 to 60 characters: remembering the
 * last of each took this check from 3.3% of a dcm-add-del replay of the day slice (commit 558c43b) to 2.2%.
 */
let plainBackend: string | undefined;
let plainServer: string | undefined;
/**
 * The last frozen `add server` keyword list found plain. dcm-add-del hands every route with the same server
 * options one frozen list, so nearly every `add server` brings the list checked before; checking its words
 * again was 1.5% of a dcm-add-del replay of the day slice.
 */
let plainKeywords: readonly string[] = Object.freeze([]);
/** The last weight found plain: a backend's servers are staged with one weight. */
let plainWeight: string | undefined;

function plainWeightOf(weight: string): boolean {
  if (!plainWord(weight)) return false;
  plainWeight = weight;
  return true;
}

function mapFile(file: string): boolean {
  return plainWord(file) && file.charCodeAt(0) !== 0x40; /* @ */
}

function isPort(p: number): boolean {
  return Number.isInteger(p) && p >= 0 && p <= 65535;
}

function plainWord(s: string): boolean {
  return s.length > 0 && !hasCut(s, false);
}

/**
 * A character the CLI cuts or unescapes at (a backslash only when `escaped` is false), or a `<` at the end
 * (a payload mark). As regular expressions, which V8 compiles to machine code: about half the time of a
 * `charCodeAt` loop over a 45-character server name, and every new server name is checked once.
 */
export function hasCut(s: string, escaped: boolean): boolean {
  return (escaped ? CUT_ESCAPED : CUT).test(s);
}

const CUT = /[ \t\n\r;\\]|<$/;
const CUT_ESCAPED = /[ \t\n\r;]|<$/;
