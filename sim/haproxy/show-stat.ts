/**
 * `show stat` of HAProxy 2.6 (CSV, measured on the Debian 2.6.12 build): the header of the 2.6 field list,
 * then one row per proxy in id order (a frontend's FRONTEND row; a backend's server rows, then its BACKEND
 * row), each ending with a comma, and an empty line. An idle process counts nothing, so every traffic
 * counter is 0 (or empty where 2.6 leaves that field empty for the proxy's kind and mode: the idle rows
 * below are the measured ones). What the mock knows is filled in: names, ids, modes, the status, weights
 * and counts of usable servers, addresses, the balance algorithm, the time since the last change. What it
 * does not model is documented in docs/fidelity-haproxy.md (health-check results, the servers' dynamic
 * cookies, a backend's fullconn) and masked by the conformance test.
 */
import type { FrontendLayout } from './haproxy-cfg.ts';
import type { MockBackend, MockServer } from './backend-state.ts';
import { ADMIN_DRAINING, ADMIN_IN_MAINT, OP_RUNNING } from './backend-state.ts';

const HEADER = '# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight,act,bck,chkfail,chkdown,lastchg,downtime,qlimit,pid,iid,sid,throttle,lbtot,tracked,type,rate,rate_lim,rate_max,check_status,check_code,check_duration,hrsp_1xx,hrsp_2xx,hrsp_3xx,hrsp_4xx,hrsp_5xx,hrsp_other,hanafail,req_rate,req_rate_max,req_tot,cli_abrt,srv_abrt,comp_in,comp_out,comp_byp,comp_rsp,lastsess,last_chk,last_agt,qtime,ctime,rtime,ttime,agent_status,agent_code,agent_duration,check_desc,agent_desc,check_rise,check_fall,check_health,agent_rise,agent_fall,agent_health,addr,cookie,mode,algo,conn_rate,conn_rate_max,conn_tot,intercepted,dcon,dses,wrew,connect,reuse,cache_lookups,cache_hits,srv_icur,src_ilim,qtime_max,ctime_max,rtime_max,ttime_max,eint,idle_conn_cur,safe_conn_cur,used_conn_cur,need_conn_est,uweight,agg_server_status,agg_server_check_status,agg_check_status,-,ssl_sess,ssl_reused_sess,ssl_failed_handshake,h2_headers_rcvd,h2_data_rcvd,h2_settings_rcvd,h2_rst_stream_rcvd,h2_goaway_rcvd,h2_detected_conn_protocol_errors,h2_detected_strm_protocol_errors,h2_rst_stream_resp,h2_goaway_resp,h2_open_connections,h2_backend_open_streams,h2_total_connections,h2_backend_total_streams,h1_open_connections,h1_open_streams,h1_total_connections,h1_total_streams,h1_bytes_in,h1_bytes_out,h1_spliced_bytes_in,h1_spliced_bytes_out,\n';

/** Field positions, by HAProxy's names. */
const F = Object.fromEntries(["pxname", "svname", "qcur", "qmax", "scur", "smax", "slim", "stot", "bin", "bout", "dreq", "dresp", "ereq", "econ", "eresp", "wretr", "wredis", "status", "weight", "act", "bck", "chkfail", "chkdown", "lastchg", "downtime", "qlimit", "pid", "iid", "sid", "throttle", "lbtot", "tracked", "type", "rate", "rate_lim", "rate_max", "check_status", "check_code", "check_duration", "hrsp_1xx", "hrsp_2xx", "hrsp_3xx", "hrsp_4xx", "hrsp_5xx", "hrsp_other", "hanafail", "req_rate", "req_rate_max", "req_tot", "cli_abrt", "srv_abrt", "comp_in", "comp_out", "comp_byp", "comp_rsp", "lastsess", "last_chk", "last_agt", "qtime", "ctime", "rtime", "ttime", "agent_status", "agent_code", "agent_duration", "check_desc", "agent_desc", "check_rise", "check_fall", "check_health", "agent_rise", "agent_fall", "agent_health", "addr", "cookie", "mode", "algo", "conn_rate", "conn_rate_max", "conn_tot", "intercepted", "dcon", "dses", "wrew", "connect", "reuse", "cache_lookups", "cache_hits", "srv_icur", "src_ilim", "qtime_max", "ctime_max", "rtime_max", "ttime_max", "eint", "idle_conn_cur", "safe_conn_cur", "used_conn_cur", "need_conn_est", "uweight", "agg_server_status", "agg_server_check_status", "agg_check_status", "-", "ssl_sess", "ssl_reused_sess", "ssl_failed_handshake", "h2_headers_rcvd", "h2_data_rcvd", "h2_settings_rcvd", "h2_rst_stream_rcvd", "h2_goaway_rcvd", "h2_detected_conn_protocol_errors", "h2_detected_strm_protocol_errors", "h2_rst_stream_resp", "h2_goaway_resp", "h2_open_connections", "h2_backend_open_streams", "h2_total_connections", "h2_backend_total_streams", "h1_open_connections", "h1_open_streams", "h1_total_connections", "h1_total_streams", "h1_bytes_in", "h1_bytes_out", "h1_spliced_bytes_in", "h1_spliced_bytes_out"].map((n, i) => [n, i])) as Record<string, number>;

/** Idle rows as 2.6 prints them, from `qcur` on (pxname and svname are prepended). */
const FEHTTP_IDLE = ",,0,0,2000,0,0,0,0,0,0,,,,,OPEN,,,,,,,,,1,2,0,,,,0,0,0,0,,,,0,0,0,0,0,0,,0,0,0,,,0,0,0,0,,,,,,,,,,,,,,,,,,,,,http,,0,0,0,0,0,0,0,,,0,0,,,,,,,0,,,,,,,,,-,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,".split(',');
const FETCP_IDLE = ",,0,0,2000,0,0,0,0,0,0,,,,,OPEN,,,,,,,,,1,3,0,,,,0,0,0,0,,,,,,,,,,,0,0,0,,,0,0,0,0,,,,,,,,,,,,,,,,,,,,,tcp,,0,0,0,,0,0,0,,,,,,,,,,,0,,,,,,,,,-,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,".split(',');
const SVHTTP_IDLE = "0,0,0,0,,0,0,0,,0,,0,0,0,0,no check,10,1,0,,,0,,,1,5,1,,0,,2,0,,0,,,,0,0,0,0,0,0,,,,0,0,0,,,,,-1,,,0,0,0,0,,,,,,,,,,,,127.128.0.11:8080,f9fcb951e9b905e1,http,,,,,,,,0,0,0,,,0,,0,0,0,0,0,0,0,0,0,10,,,,-,0,0,0,,,,,,,,,,,,,,,,,,,,,,".split(',');
const SVTCP_IDLE = "0,0,0,0,,0,0,0,,0,,0,0,0,0,no check,256,1,0,,,0,,,1,6,1,,0,,2,0,,0,,,,,,,,,,,,,,0,0,,,,,-1,,,0,0,0,0,,,,,,,,,,,,127.128.2.1:443,,tcp,,,,,,,,0,0,0,,,0,,0,0,0,0,0,0,0,0,0,256,,,,-,0,0,0,,,,,,,,,,,,,,,,,,,,,,".split(',');
const BEHTTP_IDLE = "0,0,0,0,1,0,0,0,0,0,,0,0,0,0,UP,10,1,0,,0,0,0,,1,5,0,,0,,1,0,,0,,,,0,0,0,0,0,0,,,,0,0,0,0,0,0,0,-1,,,0,0,0,0,,,,,,,,,,,,,3ea1d45d5ef4bd0e,http,roundrobin,,,,,,,0,0,0,0,0,,,0,0,0,0,0,,,,,10,0,0,0,-,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,".split(',');
const BETCP_IDLE = "0,0,0,0,1,0,0,0,0,0,,0,0,0,0,UP,256,1,0,,0,0,0,,1,6,0,,0,,1,0,,0,,,,,,,,,,,,,,0,0,0,0,0,0,-1,,,0,0,0,0,,,,,,,,,,,,,,tcp,source,,,,,,,0,0,0,,,,,0,0,0,0,0,,,,,256,0,0,0,-,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,".split(',');

/** A frontend as `show stat` lists it (from the cfg's layout). */
export type StatFrontend = FrontendLayout;

export interface StatSource {
  frontends: readonly StatFrontend[];
  backends: readonly MockBackend[];
  /** The process's maxconn: the `slim` of a frontend that sets none. */
  maxconn: number;
  /** Backends' own `fullconn` (see CfgLayout). */
  fullconn?: ReadonlyMap<string, number>;
  nowS: number;
  /** When the config was loaded: a backend's last change until it goes down or up. */
  loadedAtS: number;
}

/** Output options HAProxy takes that the mock does not model: answered with a plain refusal, never a wrong table. */
const UNMODELLED = new Set(['typed', 'json', 'desc', 'up', 'no-maint', 'domain']);

const TYPE_FE = 1;
const TYPE_BE = 2;
const TYPE_SV = 4;

/** `show stat [{<iid>|<proxy>} <type> <sid>]`: all three or none; `typed`, `json`, `desc`, `up`, `no-maint` and `domain` are not modelled. */
export function showStat(w: readonly string[], src: StatSource): string {
  const option = w.slice(2).find((x) => UNMODELLED.has(x));
  if (option !== undefined) return `routerbench's mock HAProxy does not model 'show stat ${option}': only the CSV of 'show stat [{<iid>|<proxy>} <type> <sid>]'.\n\n`;
  let iid = -1;
  let types = -1;
  let sid = -1;
  if (w[2] !== undefined && w[3] !== undefined && w[4] !== undefined) {
    const px = w[2];
    if (px === '-1') iid = -1;
    else if (/^[0-9]+$/.test(px)) iid = Number(px);
    else {
      const found = src.frontends.find((f) => f.name === px)?.id ?? src.backends.find((b) => b.name === px)?.id;
      if (found === undefined) return 'No such proxy.\n\n';
      iid = found;
    }
    types = Number.parseInt(w[3], 10);
    sid = Number.parseInt(w[4], 10);
    if (Number.isNaN(types)) types = 0;
    if (Number.isNaN(sid)) sid = 0;
  }
  const proxies: Array<{ id: number; fe?: StatFrontend; be?: MockBackend }> = [];
  for (const fe of src.frontends) proxies.push({ id: fe.id, fe });
  for (const be of src.backends) proxies.push({ id: be.id, be });
  proxies.sort((a, b) => a.id - b.id);
  let out = HEADER;
  for (const p of proxies) {
    if (iid !== -1 && p.id !== iid) continue;
    if (p.fe !== undefined && (types & TYPE_FE) !== 0) out += frontendRow(p.fe, p.fe.maxconn ?? src.maxconn);
    const be = p.be;
    if (be === undefined) continue;
    if ((types & TYPE_SV) !== 0) for (const s of be.servers) if (sid === -1 || s.id === sid) out += serverRow(be, s, src.nowS);
    if ((types & TYPE_BE) !== 0) out += backendRow(be, src.nowS - src.loadedAtS, src.fullconn?.get(be.name) ?? derivedFullconn(be.name, src));
  }
  return `${out}\n`;
}

function csv(row: string[]): string {
  return `${row.join(',')}\n`;
}

function frontendRow(fe: StatFrontend, maxconn: number): string {
  const row = [fe.name, 'FRONTEND', ...(fe.mode === 'http' ? FEHTTP_IDLE : FETCP_IDLE)];
  row[F.slim!] = String(maxconn);
  row[F.iid!] = String(fe.id);
  return csv(row);
}

/** srv_is_usable: running, neither in maintenance nor draining, and a non-zero weight. */
function usable(s: MockServer): boolean {
  return s.opState === OP_RUNNING && (s.adminState & (ADMIN_IN_MAINT | ADMIN_DRAINING)) === 0 && s.uweight > 0;
}

function inMaint(s: MockServer): boolean {
  return (s.adminState & ADMIN_IN_MAINT) !== 0 || s.opState !== OP_RUNNING;
}

function serverRow(be: MockBackend, s: MockServer, nowS: number): string {
  const row = [be.name, s.name, ...(be.mode === 'http' ? SVHTTP_IDLE : SVTCP_IDLE)];
  const maint = inMaint(s);
  row[F.status!] = maint ? 'MAINT' : (s.adminState & ADMIN_DRAINING) !== 0 ? 'DRAIN' : s.checkConfigured ? 'UP' : 'no check';
  row[F.weight!] = String(s.uweight);
  row[F.uweight!] = String(s.uweight);
  row[F.lastchg!] = String(Math.max(0, Math.floor(nowS - s.lastChangeS)));
  row[F.iid!] = String(be.id);
  row[F.sid!] = String(s.id);
  row[F.addr!] = s.address.includes(':') ? `[${s.address}]:${s.port}` : `${s.address}:${s.port}`;
  // The server's cookie (a static one, or the one generated from the dynamic-cookie-key) is not modelled.
  row[F.cookie!] = '';
  // A server added at runtime has its idle-connection limit set (0); one from the cfg leaves it empty.
  if (s.dynamic) row[F.src_ilim!] = '0';
  if (s.checkConfigured) {
    // A checked server counts its failures and transitions to DOWN and its downtime; an idle mock has none.
    row[F.chkfail!] = '0';
    row[F.chkdown!] = '0';
    row[F.downtime!] = '0';
    if (!maint) {
      // As after the rise checks passed: the mock's servers are up (checks are not run).
      row[F.check_status!] = 'L4OK';
      row[F.check_duration!] = '0';
      row[F.last_chk!] = '';
      row[F.check_desc!] = 'Layer4 check passed';
      row[F.check_rise!] = '2';
      row[F.check_fall!] = '3';
      row[F.check_health!] = String(s.checkHealth);
    }
  }
  return csv(row);
}

/** HAProxy 2.6's names for the algorithms (`random` has none there: it prints `unknown`). */
const ALGO: Record<string, string> = { roundrobin: 'roundrobin', 'static-rr': 'static-rr', leastconn: 'leastconn', first: 'first', source: 'source', random: 'unknown' };

/**
 * A backend's fullconn when it sets none: a tenth of the maxconn of the frontends that name it, each counted
 * once, rounded up, and at least 1 (cfgparse.c; measured on 2.6.12: frontends of 1,000 and 333 give 134).
 * The router's backends are reached through map lookups only, so none names them and it is 1.
 */
function derivedFullconn(backend: string, src: StatSource): number {
  let sum = 0;
  for (const fe of src.frontends) if (fe.backends?.includes(backend) === true) sum += fe.maxconn ?? src.maxconn;
  return Math.max(1, Math.floor((sum + 9) / 10));
}

function backendRow(be: MockBackend, sinceLoadS: number, fullconn: number): string {
  const row = [be.name, 'BACKEND', ...(be.mode === 'http' ? BEHTTP_IDLE : BETCP_IDLE)];
  let weight = 0;
  let act = 0;
  for (const s of be.servers) {
    if (usable(s)) {
      weight += s.uweight;
      act++;
    }
  }
  row[F.slim!] = String(fullconn);
  row[F.status!] = weight > 0 || be.servers.length === 0 ? 'UP' : 'DOWN';
  row[F.weight!] = String(weight);
  row[F.uweight!] = String(weight);
  row[F.act!] = String(act);
  // Time since the backend last went up or down: the mock counts from the load.
  row[F.lastchg!] = String(Math.max(0, Math.floor(sinceLoadS)));
  row[F.downtime!] = be.servers.length === 0 ? '' : '0';
  row[F.iid!] = String(be.id);
  row[F.cookie!] = be.cookieName ?? '';
  row[F.algo!] = ALGO[be.balance] ?? be.balance;
  return csv(row);
}
