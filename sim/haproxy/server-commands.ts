import {
  ADMIN_FDRAIN,
  ADMIN_FMAINT,
  ADMIN_IN_MAINT,
  addServerToBackend,
  checkColumns,
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
import { parseDynamicServerOptions, parseServerTarget } from './dynamic-server-options.ts';
import { strtol } from './strtol.ts';

/**
 * The server and backend commands of HAProxy 2.6's runtime API. Every reply is the exact byte string the
 * real process writes, including the CLI's closing "\n". Some error texts carry no newline of their own
 * (HAProxy prints them raw), which is why a few replies below end in a single "\n".
 */
export interface ServerRuntime {
  readonly backendList: readonly MockBackend[];
  /** The names alone, without building any backend's state. */
  backendNames(): readonly string[];
  backend(name: string): MockBackend | undefined;
  nowS(): number;
}

const NO_BACKEND = 'No such backend.\n\n';
const SET_SERVER_USAGE =
  'usage: set server <backend>/<server> addr | agent | agent-addr | agent-port | agent-send | check-addr | check-port | fqdn | health | ssl | state | weight\n\n';
const STATE_WORDS = "'set server <srv> state' expects 'ready', 'drain' and 'maint'.\n\n";
const SOCKET_CMD = " by 'stats socket command'";
const SERVERS_STATE_HEADER =
  '1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr srv_agent_port\n';
type Lookup = { ok: true; be: MockBackend; srv: MockServer } | { ok: false; reply: string };

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
    return { ok: false, reply: `Require 'backend/server'.${split.end}` };
  }
  return findServer(rt, arg.slice(0, slash), arg.slice(slash + 1), split.end);
}

function findServer(rt: ServerRuntime, beName: string, srvName: string, end: Split['end']): Lookup {
  const be = rt.backend(beName);
  if (be === undefined) return { ok: false, reply: `No such backend.${end}` };
  const srv = serverIn(be, srvName);
  if (srv === undefined) return { ok: false, reply: `No such server.${end}` };
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

export function showBackend(rt: ServerRuntime): string {
  let out = '# name\n';
  for (const name of rt.backendNames()) out += `${name}\n`;
  return `${out}\n`;
}

export function showServersState(rt: ServerRuntime, backend: string | undefined): string {
  if (backend !== undefined && backend !== '') {
    const be = rt.backend(backend);
    if (be === undefined) return "Can't find backend.\n\n";
    return `${SERVERS_STATE_HEADER}${serverRows(be, rt.nowS())}\n`;
  }
  let out = SERVERS_STATE_HEADER;
  const now = rt.nowS();
  for (const be of rt.backendList) out += serverRows(be, now);
  return `${out}\n`;
}

function serverRows(be: MockBackend, nowS: number): string {
  let out = '';
  const head = be.rowHead();
  for (const s of be.servers) {
    out += `${head}${idText(s.id)}${s.name} ${s.address}${stateText(s)}${Math.max(0, Math.floor(nowS - s.lastChangeS))}${checkText(s)}`;
  }
  return out;
}

/*
 * Row fragments that recur across servers and backends, by the numbers they print: a reply is rebuilt on
 * every read and is most of what the mock allocates, so each row is a few pieces rather than one per column.
 */
const FRAGMENT_MAX = 4096;
const ID_TEXT: readonly string[] = Array.from({ length: 256 }, (_, i) => `${i} `);
const STATE_TEXT = new Map<number, string>();
const CHECK_TEXT = new Map<number, string>();

function isSmall(n: number, limit: number): boolean {
  return Number.isInteger(n) && n >= 0 && n < limit;
}

/** `<srv_id> ` */
function idText(id: number): string {
  return isSmall(id, ID_TEXT.length) ? ID_TEXT[id]! : `${id} `;
}

/** ` <srv_op_state> <srv_admin_state> <srv_uweight> <srv_iweight> ` */
function stateText(s: MockServer): string {
  const { opState, adminState, uweight, iweight } = s;
  if (!(isSmall(opState, 4) && isSmall(adminState, 64) && isSmall(uweight, 512) && isSmall(iweight, 512))) {
    return ` ${opState} ${adminState} ${uweight} ${iweight} `;
  }
  const key = ((opState * 64 + adminState) * 512 + uweight) * 512 + iweight;
  let text = STATE_TEXT.get(key);
  if (text === undefined) {
    text = ` ${opState} ${adminState} ${uweight} ${iweight} `;
    if (STATE_TEXT.size >= FRAGMENT_MAX) STATE_TEXT.clear();
    STATE_TEXT.set(key, text);
  }
  return text;
}

/**
 * ` <check columns> 0 <srv_f_forced_id> <srv_fqdn> <srv_port> - <srv_use_ssl> <srv_check_port> <srv_check_addr>
 * <srv_agent_addr> <srv_agent_port>\n`; the common row (no forced id, no check or agent address, the agent
 * port that of the checks) from a table.
 */
function checkText(s: MockServer): string {
  const { checkHealth, port, checkPort } = s;
  const ssl = s.useSsl ? 1 : 0;
  const x = s.extras;
  if (x !== null || s.fqdn !== '-' || !(isSmall(checkHealth, 16) && isSmall(port, 65536) && isSmall(checkPort, 65536))) {
    const tail = x === null ? `${checkPort} - - ${checkPort}` : `${checkPort} ${x.checkAddr} ${x.agentAddr} ${x.agentPort}`;
    return ` ${checkColumns(s)} 0 ${x?.forcedId === true ? 1 : 0} ${s.fqdn} ${port} - ${ssl} ${tail}\n`;
  }
  const key = (((checkStateOf(s) * 16 + checkHealth) * 2 + ssl) * 65536 + port) * 65536 + checkPort;
  let text = CHECK_TEXT.get(key);
  if (text === undefined) {
    text = ` ${checkColumns(s)} 0 0 - ${port} - ${ssl} ${checkPort} - - ${checkPort}\n`;
    if (CHECK_TEXT.size >= FRAGMENT_MAX) CHECK_TEXT.clear();
    CHECK_TEXT.set(key, text);
  }
  return text;
}

/** `set server <be>/<srv> ...` */
export function setServer(rt: ServerRuntime, w: readonly string[]): string {
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

function setState(rt: ServerRuntime, srv: MockServer, word: string | undefined): string {
  const now = rt.nowS();
  switch (word) {
    case 'ready':
      setAdminState(srv, srv.adminState & ~(ADMIN_FMAINT | ADMIN_FDRAIN), now);
      return '\n';
    case 'drain':
      setAdminState(srv, (srv.adminState & ~ADMIN_FMAINT) | ADMIN_FDRAIN, now);
      return '\n';
    case 'maint':
      // Forcing maintenance drops a forced drain (measured: drain then maint leaves 0x01).
      setAdminState(srv, (srv.adminState & ~ADMIN_FDRAIN) | ADMIN_FMAINT, now);
      return '\n';
    default:
      return STATE_WORDS;
  }
}

/** `enable server` / `disable server`: the deprecated spellings of `state ready` / `state maint`. */
export function enableDisableServer(rt: ServerRuntime, w: readonly string[], enable: boolean): string {
  const found = lookupServer(rt, w[2]);
  if (!found.ok) return found.reply;
  return setState(rt, found.srv, enable ? 'ready' : 'maint');
}

/** `set weight <be>/<srv> <w>`: the deprecated spelling of `set server ... weight`. */
export function setWeightCommand(rt: ServerRuntime, w: readonly string[]): string {
  const found = lookupServer(rt, w[2]);
  if (!found.ok) return found.reply;
  return setWeight(found.be, found.srv, w[3]);
}

export function getWeight(rt: ServerRuntime, w: readonly string[]): string {
  const found = lookupServer(rt, w[2], GET_WEIGHT_SPLIT);
  if (!found.ok) return found.reply;
  return `${found.srv.uweight} (initial ${found.srv.iweight})\n\n`;
}

function setWeight(be: MockBackend, srv: MockServer, text: string | undefined): string {
  if (text === undefined || text === '') return 'Require <weight> or <weight%>.\n\n';
  const n = strtol(text);
  if (n.digits === 0) return 'Empty weight string empty or preceded by garbage\n';
  let weight: number;
  if (text[n.rest] === '%' && n.rest + 1 === text.length) {
    if (n.value < 0) return 'Relative weight must be positive.\n\n';
    weight = Math.min(WEIGHT_MAX, Math.floor((srv.iweight * n.value) / 100));
  } else if (n.rest !== text.length) {
    return 'Trailing garbage in weight string\n';
  } else {
    if (n.value < 0 || n.value > WEIGHT_MAX) return 'Absolute weight can only be between 0 and 256 inclusive.\n\n';
    weight = n.value;
  }
  if (weight !== 0 && weight !== srv.iweight && !be.dynamicLb) {
    return "Backend is using a static LB algorithm and only accepts weights '0%' and '100%'.\n\n";
  }
  srv.uweight = weight;
  return '\n';
}

function setAddr(srv: MockServer, addrText: string | undefined, portText: string | undefined): string {
  if (addrText === undefined || addrText === '') return 'set server <b>/<s> addr requires an address and optionally a port.\n\n';
  // HAProxy also takes a literal in brackets, `[fd00::1]` or even `[10.0.0.1]`.
  const bracketed = addrText.startsWith('[') && addrText.endsWith(']');
  const ip = canonicalIp(bracketed ? addrText.slice(1, -1) : addrText);
  if (ip === undefined) return `Invalid addr '${addrText}'${SOCKET_CMD}\n\n`;
  // A server added by name (or on a unix socket) has no IP family the runtime API may change.
  if (srv.address === '-') return `Update for the current server address family is only supported through configuration file${SOCKET_CMD}\n\n`;
  let msg = ip === srv.address ? 'no need to change the addr' : `IP changed from '${srv.address}' to '${addrText}'`;
  srv.address = ip;
  if (portText !== undefined) msg += `, ${setPort(srv, portText)}`;
  return `${msg}${SOCKET_CMD}\n\n`;
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
  const current = srv.port & 0xffff;
  const next = n.value & 0xffff;
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
export function enableDisableHealth(rt: ServerRuntime, w: readonly string[], enable: boolean): string {
  const found = lookupServer(rt, w[2]);
  if (!found.ok) return found.reply;
  const srv = found.srv;
  if (enable && !srv.checkConfigured) return 'Health check was not configured on this server, cannot enable.\n\n';
  srv.checkEnabled = enable && srv.checkConfigured;
  return '\n';
}

/** `add server <be>/<srv> <addr>[:port] [keywords]`. */
export function addServer(rt: ServerRuntime, w: readonly string[]): string {
  const arg = w[2];
  const slash = arg === undefined ? -1 : arg.indexOf('/');
  if (arg === undefined || slash <= 0 || slash === arg.length - 1) return "Require 'backend/server'.\n";
  const be = rt.backend(arg.slice(0, slash));
  if (be === undefined) return 'No such backend.\n';
  if (!be.dynamicLb) return 'Backend must use a dynamic load balancing to support dynamic servers.\n';
  const name = arg.slice(slash + 1);
  const addrText = w[3];
  if (addrText === undefined || addrText === '') return "'server' expects <name> and <addr>[:<port>] as arguments.\n\n";
  const bad = SERVER_NAME_BAD_CHAR.exec(name);
  if (bad !== null) return `character '${bad[0]}' is not permitted in server name '${name}'.\n\n`;
  const target = parseServerTarget(addrText);
  if (!target.ok) return target.reply;
  const parsed = parseDynamicServerOptions(be, name, w, 4);
  // HAProxy's warnings about the line come first, whatever the answer.
  const said = parsed.warnings;
  if (!parsed.ok) return said + parsed.reply;
  const opts = parsed.opts;
  const ip = target.host === '-' ? '-' : canonicalIp(target.host);
  // After the line: TLS preparation, tracking, then the checks' set-up (cli_parse_add_server's order).
  // TLS to the server verifies it unless told not to (ssl-server-verify defaults to required), so it needs
  // a CA file; whether the file loads is not modelled (the router writes the ones it names).
  if (opts.tlsToServer && !opts.verifyNone && !opts.caFile) return said + SSL_VERIFY_WITHOUT_CA;
  if (opts.track !== undefined) {
    const refused = trackRefusal(rt, be, name, opts.track);
    if (refused !== undefined) return said + refused;
  }
  // Checks need a port; HAProxy verifies it now for an IP, later (never, here) for a name to resolve.
  if (opts.check && opts.checkPort === 0 && opts.checkAddrPort === 0 && target.portMap && ip !== undefined) {
    return `${said}config: backend '${be.name}': server '${name}' has neither service port nor check port nor tcp_check rule 'connect' with port information.\n\n`;
  }
  if (be.server(name) !== undefined) return `${said}Already exists a server with the same name in backend.\n\n`;
  const fqdn = ip === undefined ? target.host : '-';
  const srv = newDynamicServer(be, name, ip ?? '-', fqdn, target.port, { ...opts, portMap: target.portMap }, rt.nowS());
  addServerToBackend(be, srv);
  return `${said}New server registered.\n\n`;
}

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
export function delServer(rt: ServerRuntime, w: readonly string[]): string {
  const found = lookupServer(rt, w[2], DEL_SERVER_SPLIT);
  if (!found.ok) return found.reply;
  if ((found.srv.adminState & ADMIN_IN_MAINT) === 0) return 'Only servers in maintenance mode can be deleted.\n';
  removeServerFromBackend(found.be, found.srv);
  return 'Server deleted.\n';
}

/** `set dynamic-cookie-key backend <be> <key>` */
export function setDynamicCookieKey(rt: ServerRuntime, w: readonly string[]): string {
  const name = w[3];
  if (name === undefined || name === '') return 'A backend name is expected.\n\n';
  const be = rt.backend(name);
  if (be === undefined) return NO_BACKEND;
  const key = w[4];
  if (key === undefined || key === '') return 'String value expected.\n\n';
  be.dynamicCookieKey = key;
  return '\n';
}

/** `enable|disable dynamic-cookie backend <be>` */
export function enableDisableDynamicCookie(rt: ServerRuntime, w: readonly string[], enable: boolean): string {
  const name = w[3];
  if (name === undefined || name === '') return 'A backend name is expected.\n\n';
  const be = rt.backend(name);
  if (be === undefined) return NO_BACKEND;
  be.dynamicCookieEnabled = enable;
  return '\n';
}

