import type { DynamicStart, MockBackend, MockServer } from './backend-state.ts';
import { canonicalIp } from './ip-address.ts';
import { findServerKeyword, suggestServerKeyword } from './server-keywords.ts';
import { strtol } from './strtol.ts';
import { WEIGHT_MAX } from './backend-state.ts';

/**
 * The keywords of `add server`, read in order as HAProxy 2.6's parse_server reads them (src/server.c,
 * src/check.c), then the checks it makes once the line is read (_srv_parse_finalize). Only what the mock
 * shows or acts on is kept; every other keyword HAProxy accepts on a dynamic server is accepted and ignored.
 * A rejected line answers with HAProxy's message, to which the CLI adds ".\n" and its closing "\n".
 */
export interface DynamicServerOptions {
  weight: number;
  check: boolean;
  start: DynamicStart;
  ssl: boolean;
  /** `port N`: the port of health checks (and of agent checks, unless `agent-port` says otherwise). */
  checkPort: number;
  tlsToServer: boolean;
  verifyNone: boolean;
  caFile: boolean;
  /** `id N`: a forced server id (srv_f_forced_id); 0 when HAProxy picks it. */
  forcedId: number;
  /** `addr` (health and agent checks) and `agent-addr`, printed canonical; `-` when unset. */
  checkAddr: string;
  /** The port written in `addr`, 0 if none: checks use it when `port` is not given (srv_check_healthcheck_port). */
  checkAddrPort: number;
  agentAddr: string;
  agentPort: number;
  agent: boolean;
  /** `track [<backend>/]<server>`, resolved after the line is read (srv_apply_track). */
  track: string | undefined;
}

/**
 * `warnings`: what HAProxy warned about while reading the line (lines ending in "\n"); the CLI puts them
 * before its answer, whether the server was added or not.
 */
export type ParsedOptions = { ok: true; opts: DynamicServerOptions; warnings: string } | { ok: false; reply: string; warnings: string };


/**
 * `words` from index `from` on: the keywords after `add server <be>/<srv> <addr>`. A config manager sends
 * the same keywords with every server it adds (`weight 1 check inter 5000ms`): the last accepted reading is
 * kept and answers again for the same words, unless they name an `id` (which depends on the backend) or drew
 * a warning (which names the server). Reading them afresh cost 3.4% of a dcm-add-del replay of the day slice.
 */
export function parseDynamicServerOptions(be: MockBackend, name: string, words: readonly string[], from: number, locate: Locate = NO_LOCATION): ParsedOptions {
  if (lastRead !== undefined && sameWords(lastWords, words, from)) return lastRead;
  const parsed = readDynamicServerOptions(be, name, words, from, locate);
  if (parsed.ok && parsed.warnings === '' && words.indexOf('id', from) < 0) {
    lastWords = words.slice(from);
    lastRead = parsed;
  }
  return parsed;
}

let lastWords: readonly string[] = [];
let lastRead: ParsedOptions | undefined;

function sameWords(kept: readonly string[], words: readonly string[], from: number): boolean {
  if (kept.length !== words.length - from) return false;
  for (let i = 0; i < kept.length; i++) if (kept[i] !== words[from + i]) return false;
  return true;
}

/** Where a server was declared, for the message of an `id` that one already holds (`<cfg>:<line>`). */
export type Locate = (s: MockServer) => string;
const NO_LOCATION: Locate = () => '(null):0';

/** The keywords read afresh (see parseDynamicServerOptions). */
export function readDynamicServerOptions(be: MockBackend, name: string, words: readonly string[], from: number, locate: Locate = NO_LOCATION): ParsedOptions {
  const opts: DynamicServerOptions = {
    weight: 1,
    check: false,
    start: 'maint',
    ssl: false,
    checkPort: 0,
    tlsToServer: false,
    verifyNone: false,
    caFile: false,
    forcedId: 0,
    checkAddr: '-',
    checkAddrPort: 0,
    agentAddr: '-',
    agentPort: 0,
    agent: false,
    track: undefined,
  };
  let agentAddrSet = false;
  let agentPortSet = false;
  let warnings = '';
  const fail = (message: string): ParsedOptions => ({ ok: false, reply: `${message}.\n\n`, warnings });
  const refuse = (reply: string): ParsedOptions => ({ ok: false, reply, warnings });
  for (let i = from; i < words.length; i++) {
    const kw = words[i]!;
    const def = findServerKeyword(kw);
    if (def === undefined) {
      const best = suggestServerKeyword(kw);
      return refuse(best === undefined ? `unknown keyword '${kw}'.\n\n` : `unknown keyword '${kw}'; did you mean '${best}' maybe ?\n\n`);
    }
    if (!def[2]) return refuse(`'${kw}' option is not accepted for dynamic server\n\n`);
    const value = words[i + 1] ?? '';
    switch (kw) {
      case 'weight': {
        // atoi: a missing or non-numeric value reads as 0.
        const n = strtol(value);
        const weight = n.digits === 0 ? 0 : n.value;
        if (weight < 0 || weight > WEIGHT_MAX) return fail(`weight of server ${name} is not within 0 and ${WEIGHT_MAX} (${weight}).`);
        opts.weight = weight;
        break;
      }
      case 'port':
        if (value === '') return fail(`'${kw}' expects a port number as argument.`);
        opts.checkPort = strtol(value).value & 0xffff;
        if (!agentPortSet) opts.agentPort = opts.checkPort;
        break;
      case 'agent-port':
        if (value === '') return fail(`'${kw}' expects a port number as argument.`);
        opts.agentPort = strtol(value).value & 0xffff;
        agentPortSet = true;
        break;
      case 'addr': {
        if (value === '') return fail(`'${kw}' expects <ipv4|ipv6> as argument.`);
        // Read as the server's address is: the last colon starts a port, which checks ignore here.
        const target = parseServerTarget(value);
        if (!target.ok) return fail(`'${kw}' : ${target.reply.trimEnd()}`);
        // HAProxy would resolve a name; the mock has no resolver, so a name fails as an unresolvable one does.
        const ip = canonicalIp(target.host);
        if (ip === undefined) return fail(`'${kw}' : invalid address: '${target.host}' in '${value}'`);
        opts.checkAddr = ip;
        opts.checkAddrPort = target.port & 0xffff;
        if (!agentAddrSet) opts.agentAddr = ip;
        break;
      }
      case 'agent-addr': {
        if (value === '') return fail(`'${kw}' expects an address as argument.`);
        const ip = canonicalIp(value);
        if (ip === undefined) return fail(`parsing agent-addr failed. Check if '${value}' is correct address.`);
        opts.agentAddr = ip;
        agentAddrSet = true;
        break;
      }
      case 'inter':
      case 'fastinter':
      case 'downinter':
      case 'agent-inter': {
        const problem = delayProblem(kw, value, name);
        if (problem.warning !== undefined) warnings += problem.warning;
        if (problem.error !== undefined) return fail(problem.error);
        break;
      }
      case 'id': {
        if (value === '') return fail(`'${kw}' : expects an integer argument`);
        const id = atolToInt(value);
        if (id <= 0) return fail(`'${kw}' : custom id has to be > 0`);
        const holder = be.servers.find((s) => s.id === id);
        if (holder !== undefined) return fail(`'${kw}' : custom id ${id} already used at ${locate(holder)} ('server ${holder.name}')`);
        opts.forcedId = id;
        break;
      }
      case 'track':
        if (value === '') return fail("'track' expects [<proxy>/]<server> as argument.");
        opts.track = value;
        break;
      case 'check':
        opts.check = true;
        break;
      case 'agent-check':
        opts.agent = true;
        break;
      case 'ssl':
        opts.ssl = opts.tlsToServer = true;
        break;
      case 'check-ssl':
        opts.tlsToServer = true;
        break;
      case 'ca-file':
        opts.caFile = value !== '';
        break;
      case 'verify':
        if (value === '') return fail("'verify' : missing verify method");
        if (value !== 'none' && value !== 'required') return fail(`'verify' : unknown verify method '${value}', only 'none' and 'required' are supported`);
        opts.verifyNone = value === 'none';
        break;
      case 'disabled':
        opts.start = 'disabled';
        break;
      case 'enabled':
        opts.start = 'enabled';
        break;
    }
    // `source` takes a variable number of words; one is the common case.
    i += def[1] < 0 ? 1 : def[1];
  }
  // _srv_parse_finalize, once the whole line is read.
  if (opts.check && opts.track !== undefined) return refuse('unable to enable checks and tracking at the same time!\n\n');
  if (opts.agent && opts.agentPort === 0) return refuse(`server ${name} does not have agent port. Agent check has been disabled.\n\n`);
  return { ok: true, opts, warnings };
}

/**
 * `inter`-like delays, as parse_time_err reads them (a number, then us, ms, s, m, h or d; ms without one),
 * with the callers' messages. HAProxy 2.6 names 'agent-inter' in the bad-character message of all four
 * keywords; so does this.
 */
function delayProblem(kw: string, text: string, server: string): { error?: string; warning?: string } {
  if (text === '') return { error: `'${kw}' expects a delay as argument.` };
  const r = parseTimeMs(text);
  if (r.kind === 'char') return { error: `unexpected character '${r.char}' in 'agent-inter' argument of server ${server}.` };
  // Characters after a unit are only warned about in 2.6 ("an error in next versions"), before any error.
  const warning =
    r.trailing === undefined
      ? undefined
      : `unexpected character '${r.trailing}' after the timer value '${text}', only (us=microseconds,ms=milliseconds,s=seconds,m=minutes,h=hours,d=days) are supported. This will be reported as an error in next versions.\n`;
  const out: { error?: string; warning?: string } = warning === undefined ? {} : { warning };
  if (r.kind === 'over') out.error = `timer overflow in argument <${text}> to <${kw}> of server ${server}, maximum value is 2147483647 ms (~24.8 days).`;
  else if (r.kind === 'under') out.error = `timer underflow in argument <${text}> to <${kw}> of server ${server}, minimum non-null value is 1 ms.`;
  else if (r.ms <= 0) out.error = `invalid value ${r.ms} for argument '${kw}' of server ${server}.`;
  return out;
}

/**
 * `puid = atol(text)`: glibc's atol saturates at the long's limits, and the int it lands in keeps the low 32
 * bits, so 4294967301 is id 5 and 2147483649 is negative.
 */
function atolToInt(text: string): number {
  const m = /^[\t\n\v\f\r ]*([+-]?)([0-9]*)/.exec(text)!;
  let v = BigInt(m[2] === '' ? '0' : m[2]!);
  if (m[1] === '-') v = -v;
  const LONG_MAX = (1n << 63n) - 1n;
  if (v > LONG_MAX) v = LONG_MAX;
  if (v < -LONG_MAX - 1n) v = -LONG_MAX - 1n;
  return Number(BigInt.asIntN(32, v));
}

/** `trailing`: the first character after a unit, which 2.6 warns about and otherwise ignores. */
type TimeResult =
  | { kind: 'ok'; ms: number; trailing?: string }
  | { kind: 'char'; char: string }
  | { kind: 'over'; trailing?: string }
  | { kind: 'under'; trailing?: string };

/** parse_time_err(text, TIME_UNIT_MS), rounding up as HAProxy does. */
export function parseTimeMs(text: string): TimeResult {
  let i = 0;
  // Unsigned long long arithmetic: the value and the products wrap at 2^64 as in C.
  let value = 0n;
  while (i < text.length && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) {
    value = BigInt.asUintN(64, value * 10n + BigInt(text.charCodeAt(i) - 0x30));
    i++;
  }
  if (i === 0) return { kind: 'char', char: text[0]! };
  // The value in ms is value × mul / div, rounded up.
  let mul = 1n;
  let div = 1n;
  const unit = text[i];
  if (unit === undefined) {
    // no unit: milliseconds
  } else if (unit === 's') {
    mul = 1000n;
  } else if (unit === 'u' && text[i + 1] === 's') {
    div = 1000n;
    i++;
  } else if (unit === 'm' && text[i + 1] === 's') {
    i++;
  } else if (unit === 'm') {
    mul = 60_000n;
  } else if (unit === 'h') {
    mul = 3_600_000n;
  } else if (unit === 'd') {
    mul = 86_400_000n;
  } else {
    return { kind: 'char', char: unit };
  }
  // Characters after a unit only draw a warning in 2.6 (an error "in next versions").
  const extra = unit === undefined ? undefined : text[i + 1];
  const t = extra === undefined ? {} : { trailing: extra };
  const result = BigInt.asUintN(64, BigInt.asUintN(64, value * mul) + div - 1n) / div;
  if (result >= 0x80000000n) return { kind: 'over', ...t };
  if (result === 0n && value !== 0n) return { kind: 'under', ...t };
  return { kind: 'ok', ms: Number(result), ...t };
}

/**
 * The address of `add server`, read as HAProxy 2.6's address parser does (measured): an optional
 * `ipv4@`/`ipv6@` prefix, `[v6]` in brackets, otherwise the LAST colon separates the port (so a bare
 * `fd00::1` is host `fd00:` port 1); an empty host or `*` is 0.0.0.0; a host that is no IP literal is kept
 * as a name. A unix socket (abstract ones included) has neither address nor port.
 */
export type ParsedTarget = { ok: true; host: string; port: number; portMap: boolean } | { ok: false; reply: string };

export function parseServerTarget(text: string): ParsedTarget {
  if (text.startsWith('unix@') || text.startsWith('abns@') || text.startsWith('/')) return { ok: true, host: '-', port: 0, portMap: true };
  let rest = text;
  if (rest.startsWith('ipv4@') || rest.startsWith('ipv6@')) rest = rest.slice(5);
  let host: string;
  let portText = '';
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    host = rest.slice(1, close < 0 ? undefined : close);
    const after = close < 0 ? '' : rest.slice(close + 1);
    if (after.startsWith(':')) portText = after.slice(1);
  } else {
    const colon = rest.lastIndexOf(':');
    host = colon < 0 ? rest : rest.slice(0, colon);
    if (colon >= 0) portText = rest.slice(colon + 1);
  }
  if (host === '' || host === '*') host = '0.0.0.0';
  if (portText === '') return { ok: true, host, port: 0, portMap: true };
  const first = portText.charCodeAt(0);
  const isDigit = first >= 0x30 && first <= 0x39;
  if (!isDigit && first !== 0x2b && first !== 0x2d) {
    return { ok: false, reply: `invalid character '${portText[0]}' in port number '${portText}' in '${text}'\n\n\n` };
  }
  const n = strtol(portText);
  if (portText[n.rest] === '-' && n.digits > 0) return { ok: false, reply: `port range not permitted here in '${text}'\n\n` };
  if (n.value > 65535) return { ok: false, reply: `invalid port '${portText}'\n\n` };
  // A negative offset is stored in an unsigned 32-bit field and printed as such.
  // No port, or a signed one, maps the client's port.
  return { ok: true, host, port: n.value < 0 ? 2 ** 32 + n.value : n.value, portMap: !isDigit || n.value === 0 };
}
