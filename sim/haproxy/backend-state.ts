import type { Balance, BackendConfig, ServerConfig } from '../../core/haproxy/config-model.ts';
import { canonicalIp } from './ip-address.ts';

/**
 * Backends and servers as HAProxy 2.6 holds them at runtime, rebuilt from the config on every reload.
 * State words and bits are HAProxy's own, so `show servers state` can print them unchanged.
 */

/** `srv_admin_state` bits. */
export const ADMIN_FMAINT = 0x01;
export const ADMIN_IMAINT = 0x02;
/** `disabled` on the server line; kept as a record after the server is made ready. */
export const ADMIN_CMAINT = 0x04;
export const ADMIN_FDRAIN = 0x08;
export const ADMIN_IDRAIN = 0x10;
export const ADMIN_RMAINT = 0x20;
/** Bits that take a server out of service (CMAINT alone does not: a `disabled` server made ready serves). */
export const ADMIN_IN_MAINT = ADMIN_FMAINT | ADMIN_IMAINT | ADMIN_RMAINT;
export const ADMIN_DRAINING = ADMIN_FDRAIN | ADMIN_IDRAIN;

/** `srv_op_state`. */
export const OP_STOPPED = 0;
export const OP_RUNNING = 2;

/** `srv_check_state` bits. */
const CHECK_CONFIGURED = 0x02;
const CHECK_ENABLED = 0x04;
const CHECK_PAUSED = 0x08;

/** Default `rise`/`fall`: a checked server starts at health rise+fall-1, an unchecked one at rise. */
const RISE = 2;
const FALL = 3;

export interface MockServer {
  id: number;
  name: string;
  /** Printed address; `-` when the server was added with a name instead of an IP. */
  address: string;
  fqdn: string;
  port: number;
  /**
   * The port is an offset from the client's destination port (SRV_F_MAPPORTS): a server written without
   * a port (0) or with a signed one (`+N`/`-N`).
   */
  portMap: boolean;
  /**
   * `port N` on the server line: the port of health checks and agent checks alike; 0 means checks use
   * the service port.
   */
  checkPort: number;
  uweight: number;
  iweight: number;
  opState: number;
  adminState: number;
  checkConfigured: boolean;
  checkEnabled: boolean;
  useSsl: boolean;
  dynamic: boolean;
  /** Clock reading (s) at the last operational or administrative change. */
  lastChangeS: number;
  checkHealth: number;
}

export interface MockBackend {
  id: number;
  name: string;
  mode: 'http' | 'tcp';
  balance: Balance;
  /** Weights can change and servers can be added only with a dynamic algorithm (BE_LB_PROP_DYN). */
  dynamicLb: boolean;
  servers: MockServer[];
  byName: Map<string, MockServer>;
  cookieName?: string;
  dynamicCookieKey?: string;
  dynamicCookieEnabled: boolean;
}

/** source/uri/hdr hashing is map-based (static) unless `hash-type consistent`, which the model does not carry. */
export function isDynamicBalance(b: Balance): boolean {
  return b === 'roundrobin' || b === 'leastconn' || b === 'random' || b === 'first';
}

export function backendFromConfig(cfg: BackendConfig, id: number, nowS: number): MockBackend {
  const be: MockBackend = {
    id,
    name: cfg.name,
    mode: cfg.mode,
    balance: cfg.balance,
    dynamicLb: isDynamicBalance(cfg.balance),
    servers: [],
    byName: new Map(),
    dynamicCookieEnabled: cfg.cookieName !== undefined,
  };
  if (cfg.cookieName !== undefined) be.cookieName = cfg.cookieName;
  if (cfg.dynamicCookieKey !== undefined) be.dynamicCookieKey = cfg.dynamicCookieKey;
  cfg.servers.forEach((s, i) => addServerToBackend(be, serverFromConfig(s, i + 1, nowS)));
  return be;
}

function serverFromConfig(s: ServerConfig, id: number, nowS: number): MockServer {
  return {
    id,
    name: s.name,
    // HAProxy prints addresses as inet_ntop does, whatever the cfg spelled.
    address: canonicalIp(s.address) ?? s.address,
    fqdn: '-',
    port: s.port,
    portMap: s.port === 0,
    checkPort: 0,
    uweight: s.weight,
    iweight: s.weight,
    opState: s.disabled ? OP_STOPPED : OP_RUNNING,
    adminState: s.disabled ? ADMIN_CMAINT | ADMIN_FMAINT : 0,
    checkConfigured: s.check,
    checkEnabled: s.check,
    useSsl: false,
    dynamic: false,
    lastChangeS: nowS,
    checkHealth: s.disabled ? 0 : s.check ? RISE + FALL - 1 : RISE,
  };
}

export function addServerToBackend(be: MockBackend, s: MockServer): void {
  be.servers.push(s);
  be.byName.set(s.name, s);
}

export function removeServerFromBackend(be: MockBackend, s: MockServer): void {
  be.byName.delete(s.name);
  const i = be.servers.indexOf(s);
  if (i >= 0) be.servers.splice(i, 1);
}

/** Smallest id no server of the backend uses: HAProxy reuses the ids of deleted servers. */
export function nextFreeServerId(be: MockBackend): number {
  const used = new Set<number>();
  for (const s of be.servers) used.add(s.id);
  let id = 1;
  while (used.has(id)) id++;
  return id;
}

export function isReady(s: MockServer): boolean {
  return s.opState === OP_RUNNING && (s.adminState & (ADMIN_IN_MAINT | ADMIN_DRAINING)) === 0 && s.uweight > 0 && s.address !== '-';
}

/**
 * Applies a new admin state and derives the operational one the way the mock models health: no checks
 * ever run, so a server out of maintenance is running.
 */
export function setAdminState(s: MockServer, admin: number, nowS: number): void {
  const wasMaint = (s.adminState & ADMIN_IN_MAINT) !== 0;
  const isMaint = (admin & ADMIN_IN_MAINT) !== 0;
  if (admin !== s.adminState) s.lastChangeS = nowS;
  s.adminState = admin;
  if (isMaint) {
    if (s.opState !== OP_STOPPED) s.lastChangeS = nowS;
    s.opState = OP_STOPPED;
    s.checkHealth = 0;
  } else if (wasMaint) {
    s.opState = OP_RUNNING;
    // Leaving maintenance, a checked server restarts at the minimum health of a server that is up.
    if (s.checkEnabled) s.checkHealth = RISE;
  }
}

/** `srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state`, as the mock models them. */
export function checkColumns(s: MockServer): string {
  let state = 0;
  if (s.checkConfigured) state |= CHECK_CONFIGURED;
  if (s.checkEnabled) state |= CHECK_ENABLED;
  if (s.checkEnabled && (s.adminState & ADMIN_IN_MAINT) !== 0) state |= CHECK_PAUSED;
  return `1 0 ${s.checkHealth} ${state} 0`;
}

export function newDynamicServer(
  be: MockBackend,
  name: string,
  address: string,
  fqdn: string,
  port: number,
  opts: { weight: number; check: boolean; disabled: boolean; ssl: boolean; portMap: boolean; checkPort: number },
  nowS: number,
): MockServer {
  return {
    id: nextFreeServerId(be),
    name,
    address,
    fqdn,
    port,
    portMap: opts.portMap,
    checkPort: opts.checkPort,
    uweight: opts.weight,
    iweight: opts.weight,
    opState: OP_STOPPED,
    // Dynamic servers always start in maintenance; `disabled` adds the config-maint record.
    adminState: opts.disabled ? ADMIN_FMAINT | ADMIN_CMAINT : ADMIN_FMAINT,
    checkConfigured: opts.check,
    // Checks of a dynamic server stay off until `enable health`.
    checkEnabled: false,
    useSsl: opts.ssl,
    dynamic: true,
    lastChangeS: nowS,
    checkHealth: 0,
  };
}
