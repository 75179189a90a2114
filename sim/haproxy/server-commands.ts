import { OK, ok, refused, type RuntimeReply, type ServerStateRow } from '../../core/haproxy/commands.ts';
import {
  ADMIN_FDRAIN,
  ADMIN_FMAINT,
  ADMIN_IN_MAINT,
  addServerToBackend,
  agentStateOf,
  checkStateOf,
  newDynamicServer,
  removeServerFromBackend,
  setAdminState,
  type DynamicStart,
  type MockBackend,
  type MockServer,
  WEIGHT_MAX,
} from './backend-state.ts';
import { canonicalIp } from './ip-address.ts';
import { parseDynamicServerOptions, parseServerTarget, type ParsedTarget } from './dynamic-server-options.ts';
import { strtol } from './strtol.ts';

/**
 * The server and backend commands of HAProxy 2.6's runtime API. The commands the config managers send are
 * answered typed (core/haproxy/commands.ts), from their words or their fields alike; the others with text.
 * Every reply text is the exact byte string the real process writes, including the CLI's closing "\n".
 * Some error texts carry no newline of their own (HAProxy prints them raw), which is why a few replies
 * below end in a single "\n".
 */
export interface ServerRuntime {
  readonly backendList: readonly MockBackend[];
  /** The names alone, without building any backend's state. */
  backendNames(): readonly string[];
  backend(name: string): MockBackend | undefined;
  nowS(): number;
  /** Where a server was declared, as HAProxy says it (`<cfg file>:<line>`, or `(null):0` for a dynamic one). */
  serverLocation(be: MockBackend, s: MockServer): string;
}

const NO_BACKEND: RuntimeReply = refused('No such backend.\n\n');
const SET_SERVER_USAGE = refused(
  'usage: set server <backend>/<server> addr | agent | agent-addr | agent-port | agent-send | check-addr | check-port | fqdn | health | ssl | state | weight\n\n',
);
const STATE_WORDS: RuntimeReply = refused("'set server <srv> state' expects 'ready', 'drain' and 'maint'.\n\n");
const SOCKET_CMD = " by 'stats socket command'";
const NO_SUCH_BACKEND_FOR_SERVERS: RuntimeReply = refused("Can't find backend.\n\n");
export type Lookup = { ok: true; be: MockBackend; srv: MockServer } | { ok: false; reply: RuntimeReply };

/**
 * How a command splits `<backend>/<server>` (HAProxy has three ways, measured on 2.6.12): where the search
 * for the `/` starts (`del server` skips the first character), whether an empty backend half is looked up
 * (`get weight`: No such backend) rather than refused, and the error texts' ending (add/del server print
 * theirs raw, with a single newline).
 */
interface Split {
  from: 0 | 1;
  emptyBackend: boolean;
  end: '\n' | '\n\n';
}
const CLI_SPLIT: Split = { from: 0, emptyBackend: false, end: '\n\n' };
const GET_WEIGHT_SPLIT: Split = { from: 0, emptyBackend: true, end: '\n\n' };
const DEL_SERVER_SPLIT: Split = { from: 1, emptyBackend: false, end: '\n' };

/** Resolves `<backend>/<server>`; either half may be `#<id>` (see `serverIn`). A missing half is a usage error. */
function lookupServer(rt: ServerRuntime, arg: string | undefined, split: Split = CLI_SPLIT): Lookup {
  const slash = arg === undefined ? -1 : arg.indexOf('/', split.from);
  if (arg === undefined || slash < 0 || slash === arg.length - 1 || (slash === 0 && !split.emptyBackend)) {
    return { ok: false, reply: refused(`Require 'backend/server'.${split.end}`) };
  }
  return findServer(rt, arg.slice(0, slash), arg.slice(slash + 1), split.end);
}

const NOT_FOUND = {
  '\n': { backend: refused('No such backend.\n'), server: refused('No such server.\n') },
  '\n\n': { backend: refused('No such backend.\n\n'), server: refused('No such server.\n\n') },
} as const;

/** `<backend>/<server>` given as its two names; `end` is the ending of the command's error texts (see Split). */
export function findServer(rt: ServerRuntime, beName: string, srvName: string, end: Split['end']): Lookup {
  const be = rt.backend(beName);
  if (be === undefined) return { ok: false, reply: NOT_FOUND[end].backend };
  const srv = serverIn(be, srvName);
  if (srv === undefined) return { ok: false, reply: NOT_FOUND[end].server };
  // Every command that changes a server finds it here (get weight too: a spare re-read for the checker).
  be.rev++;
  return { ok: true, be, srv };
}

/** `#<id>` names a server by its id (atoi of the rest; a negative id means the name itself), as HAProxy does. */
function serverIn(be: MockBackend, name: string): MockServer | undefined {
  if (name.charCodeAt(0) === 0x23) {
    const id = atoi(name.slice(1));
    if (id >= 0) return be.servers.find((s) => s.id === id);
  }
  return be.server(name);
}

/** C's atoi: leading blanks, a sign, digits; anything else reads as 0. */
export function atoi(text: string): number {
  const n = strtol(text.replace(/^[\t\n\v\f\r ]+/, ''));
  return n.digits === 0 ? 0 : n.value;
}

/** `show backend`: the names in config order. */
export function showBackend(rt: ServerRuntime): RuntimeReply {
  return { kind: 'backends', names: rt.backendNames() };
}

/** `show servers state [<be>]`: one backend's rows, or every backend's when none is named. */
export function showServersState(rt: ServerRuntime, backend: string | undefined): RuntimeReply {
  const now = rt.nowS();
  if (backend !== undefined && backend !== '') {
    const be = rt.backend(backend);
    if (be === undefined) return NO_SUCH_BACKEND_FOR_SERVERS;
    const rows: ServerStateRow[] = new Array(be.servers.length);
    for (let i = 0; i < rows.length; i++) rows[i] = stateRow(be, be.servers[i]!, now);
    return { kind: 'servers', rows };
  }
  const rows: ServerStateRow[] = [];
  for (const be of rt.backendList) for (const s of be.servers) rows.push(stateRow(be, s, now));
  return { kind: 'servers', rows };
}

function stateRow(be: MockBackend, s: MockServer, nowS: number): ServerStateRow {
  const x = s.extras;
  return {
    backendId: be.id,
    backendName: be.name,
    id: s.id,
    name: s.name,
    address: s.address,
    opState: s.opState,
    adminState: s.adminState,
    weight: s.uweight,
    initialWeight: s.iweight,
    timeSinceLastChange: Math.max(0, Math.floor(nowS - s.lastChangeS)),
    // srv_check_status and srv_check_result: no check has run (HCHK_STATUS_INI, CHK_RES_UNKNOWN).
    checkStatus: 1,
    checkResult: 0,
    checkHealth: s.checkHealth,
    checkState: checkStateOf(s),
    agentState: agentStateOf(s),
    backendForcedId: 0,
    forcedId: x?.forcedId === true ? 1 : 0,
    fqdn: s.fqdn,
    port: s.port,
    srvRecord: '-',
    useSsl: s.useSsl ? 1 : 0,
    checkPort: s.checkPort,
    // The agent's port is that of the checks unless `add server` set one.
    checkAddr: x === null ? '-' : x.checkAddr,
    agentAddr: x === null ? '-' : x.agentAddr,
    agentPort: x === null ? s.checkPort : x.agentPort,
  };
}

/** `set server <be>/<srv> ...` */
export function setServer(rt: ServerRuntime, w: readonly string[]): RuntimeReply {
  const found = lookupServer(rt, w[2]);
  if (!found.ok) return found.reply;
  const { be, srv } = found;
  switch (w[3]) {
    case 'state':
      return setState(rt, srv, w[4]);
    case 'weight':
      return setWeight(be, srv, w[4]);
    case 'addr':
      // `port` with nothing after it is still a port to convert (HAProxy says it cannot).
      return setAddr(srv, w[4], w[5] === 'port' ? (w[6] ?? '') : undefined);
    default:
      return SET_SERVER_USAGE;
  }
}

export function setState(rt: ServerRuntime, srv: MockServer, word: string | undefined): RuntimeReply {
  const now = rt.nowS();
  switch (word) {
    case 'ready':
      setAdminState(srv, srv.adminState & ~(ADMIN_FMAINT | ADMIN_FDRAIN), now);
      return OK;
    case 'drain':
      setAdminState(srv, (srv.adminState & ~ADMIN_FMAINT) | ADMIN_FDRAIN, now);
      return OK;
    case 'maint':
      // Forcing maintenance drops a forced drain (measured: drain then maint leaves 0x01).
      setAdminState(srv, (srv.adminState & ~ADMIN_FDRAIN) | ADMIN_FMAINT, now);
      return OK;
    default:
      return STATE_WORDS;
  }
}

/** `enable server` / `disable server`: the deprecated spellings of `state ready` / `state maint`. */
export function enableDisableServer(rt: ServerRuntime, w: readonly string[], enable: boolean): RuntimeReply {
  const found = lookupServer(rt, w[2]);
  if (!found.ok) return found.reply;
  return setState(rt, found.srv, enable ? 'ready' : 'maint');
}

/** `set weight <be>/<srv> <w>`: the deprecated spelling of `set server ... weight`. */
export function setWeightCommand(rt: ServerRuntime, w: readonly string[]): RuntimeReply {
  const found = lookupServer(rt, w[2]);
  if (!found.ok) return found.reply;
  return setWeight(found.be, found.srv, w[3]);
}

export function getWeight(rt: ServerRuntime, w: readonly string[]): RuntimeReply {
  const found = lookupServer(rt, w[2], GET_WEIGHT_SPLIT);
  if (!found.ok) return found.reply;
  return ok(`${found.srv.uweight} (initial ${found.srv.iweight})\n\n`);
}

export function setWeight(be: MockBackend, srv: MockServer, text: string | undefined): RuntimeReply {
  if (text === undefined || text === '') return refused('Require <weight> or <weight%>.\n\n');
  const n = strtol(text);
  if (n.digits === 0) return refused('Empty weight string empty or preceded by garbage\n');
  let weight: number;
  if (text[n.rest] === '%' && n.rest + 1 === text.length) {
    if (n.value < 0) return refused('Relative weight must be positive.\n\n');
    weight = Math.min(WEIGHT_MAX, Math.floor((srv.iweight * n.value) / 100));
  } else if (n.rest !== text.length) {
    return refused('Trailing garbage in weight string\n');
  } else {
    if (n.value < 0 || n.value > WEIGHT_MAX) return refused('Absolute weight can only be between 0 and 256 inclusive.\n\n');
    weight = n.value;
  }
  if (weight !== 0 && weight !== srv.iweight && !be.dynamicLb) {
    return refused("Backend is using a static LB algorithm and only accepts weights '0%' and '100%'.\n\n");
  }
  srv.uweight = weight;
  return OK;
}

/**
 * `set server … addr <ip> [port <p>]`; the port as its word, or as a number (an unsigned port within
 * 0..65535, as the config managers send it). Once the address is taken the reply reports it, whatever
 * becomes of the port, and the router accepts it.
 */
export function setAddr(srv: MockServer, addrText: string | undefined, port: string | number | undefined): RuntimeReply {
  if (addrText === undefined || addrText === '') return refused('set server <b>/<s> addr requires an address and optionally a port.\n\n');
  // HAProxy also takes a literal in brackets, `[fd00::1]` or even `[10.0.0.1]`.
  const bracketed = addrText.startsWith('[') && addrText.endsWith(']');
  const ip = canonicalIp(bracketed ? addrText.slice(1, -1) : addrText);
  if (ip === undefined) return refused(`Invalid addr '${addrText}'${SOCKET_CMD}\n\n`);
  // A server added by name (or on a unix socket) has no IP family the runtime API may change.
  if (srv.address === '-') return refused(`Update for the current server address family is only supported through configuration file${SOCKET_CMD}\n\n`);
  let msg = ip === srv.address ? 'no need to change the addr' : `IP changed from '${srv.address}' to '${addrText}'`;
  srv.address = ip;
  if (port !== undefined) msg += `, ${typeof port === 'number' ? applyPort(srv, port, '') : setPort(srv, port)}`;
  return ok(`${msg}${SOCKET_CMD}\n\n`);
}

/**
 * The port half of `set server addr` (HAProxy 2.6's rules): ports are compared and stored as 16-bit
 * values; a signed port switches a fixed-port server to port mapping only if its checks have a port of
 * their own; an unsigned port that differs fixes the port again.
 */
function setPort(srv: MockServer, portText: string): string {
  const n = strtol(portText);
  if (n.digits === 0 || !Number.isSafeInteger(n.value) || Math.abs(n.value) > 2 ** 63) return `problem converting port '${portText}' to an int`;
  const sign = portText[0] === '+' || portText[0] === '-' ? portText[0] : '';
  return applyPort(srv, n.value, sign);
}

function applyPort(srv: MockServer, value: number, sign: '' | '+' | '-'): string {
  const current = srv.port & 0xffff;
  const next = value & 0xffff;
  let changeRequired: boolean;
  if (sign !== '' && !srv.portMap) {
    if (srv.checkPort === 0) {
      return "can't change <port> to port map because it is incompatible with current health check port configuration (use 'port' statement from the 'server' directive.";
    }
    changeRequired = true;
  } else {
    changeRequired = current !== next;
  }
  if (!changeRequired) return 'no need to change the port';
  const from = `${srv.portMap ? '+' : ''}${current}`;
  srv.port = next;
  srv.portMap = sign !== '';
  // A negative offset is printed as its magnitude after the sign.
  const to = sign === '-' ? `-${-next & 0xffff}` : `${sign}${next}`;
  return `port changed from '${from}' to '${to}'`;
}

/** `enable health` / `disable health <be>/<srv>` (the 2026 manager turns checks on after `add server`). */
export function enableDisableHealth(rt: ServerRuntime, w: readonly string[], enable: boolean): RuntimeReply {
  return setHealth(lookupServer(rt, w[2]), enable);
}

export function setHealth(found: Lookup, enable: boolean): RuntimeReply {
  if (!found.ok) return found.reply;
  const srv = found.srv;
  if (enable && !srv.checkConfigured) return HEALTH_NOT_CONFIGURED;
  srv.checkEnabled = enable && srv.checkConfigured;
  return OK;
}

const HEALTH_NOT_CONFIGURED = refused('Health check was not configured on this server, cannot enable.\n\n');

/** `add server <be>/<srv> <addr>[:port] [keywords]`. */
export function addServer(rt: ServerRuntime, w: readonly string[]): RuntimeReply {
  const arg = w[2];
  const slash = arg === undefined ? -1 : arg.indexOf('/');
  if (arg === undefined || slash <= 0 || slash === arg.length - 1) return refused("Require 'backend/server'.\n");
  const addrText = w[3];
  return addServerTo(rt, arg.slice(0, slash), arg.slice(slash + 1), addrText === undefined || addrText === '' ? undefined : parseServerTarget(addrText), w, 4);
}

/**
 * `add server` once its `<be>/<srv>` is split: `target` is the parsed address (undefined when missing),
 * `words` from `from` on the keywords.
 */
export function addServerTo(rt: ServerRuntime, beName: string, name: string, target: ParsedTarget | undefined, words: readonly string[], from: number): RuntimeReply {
  const be = rt.backend(beName);
  if (be === undefined) return refused('No such backend.\n');
  if (!be.dynamicLb) return refused('Backend must use a dynamic load balancing to support dynamic servers.\n');
  if (target === undefined) return refused("'server' expects <name> and <addr>[:<port>] as arguments.\n\n");
  const bad = SERVER_NAME_BAD_CHAR.exec(name);
  if (bad !== null) return refused(`character '${bad[0]}' is not permitted in server name '${name}'.\n\n`);
  if (!target.ok) return refused(target.reply);
  const parsed = parseDynamicServerOptions(be, name, words, from, (s) => rt.serverLocation(be, s));
  // HAProxy's warnings about the line come first, whatever the answer; the router takes an answer with
  // warnings for no acceptance.
  const said = parsed.warnings;
  if (!parsed.ok) return refused(said + parsed.reply);
  const opts = parsed.opts;
  const ip = target.host === '-' ? '-' : canonicalIp(target.host);
  // After the line: TLS preparation, tracking, then the checks' set-up (cli_parse_add_server's order).
  // TLS to the server verifies it unless told not to (ssl-server-verify defaults to required), so it needs
  // a CA file; whether the file loads is not modelled (the router writes the ones it names).
  if (opts.tlsToServer && !opts.verifyNone && !opts.caFile) return refused(said + SSL_VERIFY_WITHOUT_CA);
  if (opts.track !== undefined) {
    const refusal = trackRefusal(rt, be, name, opts.track);
    if (refusal !== undefined) return refused(said + refusal);
  }
  // Checks need a port; HAProxy verifies it now for an IP, later (never, here) for a name to resolve.
  if (opts.check && opts.checkPort === 0 && opts.checkAddrPort === 0 && target.portMap && ip !== undefined) {
    return refused(`${said}config: backend '${be.name}': server '${name}' has neither service port nor check port nor tcp_check rule 'connect' with port information.\n\n`);
  }
  if (be.server(name) !== undefined) return refused(`${said}Already exists a server with the same name in backend.\n\n`);
  const fqdn = ip === undefined ? target.host : '-';
  const srv = newDynamicServer(be, name, ip ?? '-', fqdn, target.port, target.portMap, opts, rt.nowS());
  addServerToBackend(be, srv);
  return said === '' ? SERVER_REGISTERED : refused(`${said}New server registered.\n\n`);
}

const SERVER_REGISTERED = ok('New server registered.\n\n');

/**
 * srv_apply_track: the tracked server must exist, be static and be checked (or track another). The mock
 * accepts a valid `track` but does not carry the tracked server's state over to the tracker.
 */
function trackRefusal(rt: ServerRuntime, own: MockBackend, name: string, spec: string): string | undefined {
  const slash = spec.lastIndexOf('/');
  const pname = slash < 0 ? undefined : spec.slice(0, slash);
  const sname = slash < 0 ? spec : spec.slice(slash + 1);
  const px = pname === undefined ? own : rt.backend(pname);
  if (px === undefined) return `unable to find required proxy '${pname}' for tracking.\n\n`;
  const tracked = px.server(sname);
  if (tracked === undefined) return `unable to find required server '${sname}' for tracking.\n\n`;
  if (tracked.dynamic) return `unable to use ${px.name}/${tracked.name} for tracking as it is a dynamic server.\n\n`;
  if (!tracked.checkConfigured) return `unable to use ${px.name}/${tracked.name} for tracking as it does not have any check nor agent enabled.\n\n`;
  return undefined;
}

const SSL_VERIFY_WITHOUT_CA =
  "verify is enabled by default but no CA file specified. If you're running on a LAN where you're certain to trust the server's certificate, please set an explicit 'verify none' statement on the 'server' line, or use 'ssl-server-verify none' in the global section to disable server-side verifications by default.\n\n";

/** HAProxy's invalid_char: names are letters, digits and `.`, `_`, `-`, `:` (config and runtime alike). */
const SERVER_NAME_BAD_CHAR = /[^A-Za-z0-9._:-]/;


/** `del server <be>/<srv>`: only a server in maintenance (and, really, without connections) can go. */
export function delServer(rt: ServerRuntime, w: readonly string[]): RuntimeReply {
  return delServerFound(lookupServer(rt, w[2], DEL_SERVER_SPLIT));
}

export function delServerFound(found: Lookup): RuntimeReply {
  if (!found.ok) return found.reply;
  if ((found.srv.adminState & ADMIN_IN_MAINT) === 0) return NOT_IN_MAINT;
  removeServerFromBackend(found.be, found.srv);
  return SERVER_DELETED;
}

const NOT_IN_MAINT = refused('Only servers in maintenance mode can be deleted.\n');
const SERVER_DELETED = ok('Server deleted.\n');

/** `set dynamic-cookie-key backend <be> <key>` */
export function setDynamicCookieKey(rt: ServerRuntime, name: string | undefined, key: string | undefined): RuntimeReply {
  if (name === undefined || name === '') return BACKEND_EXPECTED;
  const be = rt.backend(name);
  if (be === undefined) return NO_BACKEND;
  if (key === undefined || key === '') return refused('String value expected.\n\n');
  be.dynamicCookieKey = key;
  return OK;
}

/** `enable|disable dynamic-cookie backend <be>` */
export function enableDisableDynamicCookie(rt: ServerRuntime, name: string | undefined, enable: boolean): RuntimeReply {
  if (name === undefined || name === '') return BACKEND_EXPECTED;
  const be = rt.backend(name);
  if (be === undefined) return NO_BACKEND;
  be.dynamicCookieEnabled = enable;
  return OK;
}

const BACKEND_EXPECTED = refused('A backend name is expected.\n\n');
