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
  /** What `add server` keywords set beyond the common columns; null for nearly every server. */
  extras: ServerExtras | null;
  uweight: number;
  iweight: number;
  opState: number;
  adminState: number;
  checkConfigured: boolean;
  checkEnabled: boolean;
  /**
   * CHK_ST_PAUSED, a state of its own (HAProxy 2.6.12, measured): `disabled` sets it, with or without a
   * check; entering maintenance sets it and leaving clears it only while checks are enabled; `disable
   * health` leaves it. So a `disabled` server without checks shows it for good, even once ready.
   */
  checkPaused: boolean;
  useSsl: boolean;
  dynamic: boolean;
  /** Clock reading (s) at the last operational or administrative change. */
  lastChangeS: number;
  checkHealth: number;
}

/** HAProxy's absolute weight ceiling (SRV_UWGHT_MAX). */
export const WEIGHT_MAX = 256;

/** Columns of `show servers state` that only `add server` keywords change. */
export interface ServerExtras {
  /** `id N`: the id was forced (srv_f_forced_id). */
  forcedId: boolean;
  /** `addr` and `agent-addr`, printed canonical; `-` when unset. */
  checkAddr: string;
  agentAddr: string;
  /** srv_agent_port: `agent-port`, else the `port` of checks. */
  agentPort: number;
  /** `agent-check`: shows in srv_agent_state. */
  agent: boolean;
}

/** Up to this many servers a name is found by scanning; larger backends keep a name index. */
const SCAN_MAX = 16;

export class MockBackend {
  readonly id: number;
  readonly name: string;
  readonly mode: 'http' | 'tcp';
  readonly balance: Balance;
  /** Weights can change and servers can be added only with a dynamic algorithm (BE_LB_PROP_DYN). */
  readonly dynamicLb: boolean;
  readonly servers: MockServer[];
  declare cookieName?: string;
  declare dynamicCookieKey?: string;
  dynamicCookieEnabled: boolean;
  /**
   * Moves whenever a server may have changed: a server added or removed, or a command that looked one up
   * (every command that changes a server does). Readers that keep what they saw of the servers (the
   * invariant checker) trust it while `rev` stands; a look that changed nothing only costs them a re-read.
   */
  rev = 0;
  /**
   * Name → server, the later of two servers of the same name winning, as a Map filled in server order
   * does. A scan from the end agrees with it until a server is deleted: then the Map forgets the name
   * while a scan would find the other server of that name. So it is made before the first deletion when
   * a name repeats (only a config can repeat one: `add server` refuses a name in use); otherwise on first
   * need, and only for backends too large to scan. Checking every built backend for a repeated name up
   * front cost 8% of building it, and most backends never lose a server before the next reload.
   */
  private names: Map<string, MockServer> | undefined;
  /** Whether the servers were found to have distinct names (checked at the first deletion). */
  private distinct = false;
  private head: string | undefined;

  constructor(id: number, cfg: BackendConfig, servers: MockServer[]) {
    this.id = id;
    this.name = cfg.name;
    this.mode = cfg.mode;
    this.balance = cfg.balance;
    this.dynamicLb = isDynamicBalance(cfg.balance, cfg.hashType);
    this.servers = servers;
    this.dynamicCookieEnabled = cfg.cookieName !== undefined;
    if (cfg.cookieName !== undefined) this.cookieName = cfg.cookieName;
    if (cfg.dynamicCookieKey !== undefined) this.dynamicCookieKey = cfg.dynamicCookieKey;
  }

  /** `<be_id> <be_name> `, the start of each of its `show servers state` rows. */
  rowHead(): string {
    this.head ??= `${this.id} ${this.name} `;
    return this.head;
  }

  get byName(): ReadonlyMap<string, MockServer> {
    this.names ??= nameIndex(this.servers);
    return this.names;
  }

  server(name: string): MockServer | undefined {
    if (this.names !== undefined) return this.names.get(name);
    const list = this.servers;
    if (list.length > SCAN_MAX) return this.byName.get(name);
    for (let i = list.length - 1; i >= 0; i--) if (list[i]!.name === name) return list[i];
    return undefined;
  }

  add(s: MockServer): void {
    this.rev++;
    this.servers.push(s);
    this.names?.set(s.name, s);
  }

  remove(s: MockServer): void {
    this.rev++;
    if (this.names === undefined && !this.distinct) {
      if (hasRepeatedName(this.servers)) this.names = nameIndex(this.servers);
      else this.distinct = true;
    }
    this.names?.delete(s.name);
    const i = this.servers.indexOf(s);
    if (i >= 0) this.servers.splice(i, 1);
  }
}

function hasRepeatedName(servers: readonly MockServer[]): boolean {
  if (servers.length > SCAN_MAX) return new Set(servers.map((s) => s.name)).size !== servers.length;
  for (let i = 1; i < servers.length; i++) for (let j = 0; j < i; j++) if (servers[j]!.name === servers[i]!.name) return true;
  return false;
}

function nameIndex(servers: readonly MockServer[]): Map<string, MockServer> {
  const m = new Map<string, MockServer>();
  for (const s of servers) m.set(s.name, s);
  return m;
}

/**
 * Hashing (`source`) is map-based, a static table, unless `hash-type consistent` puts the servers on a
 * weighted tree, as the router template does for passthrough backends; `static-rr` is static by name.
 */
export function isDynamicBalance(b: Balance, hashType: BackendConfig['hashType']): boolean {
  if (b === 'source') return hashType === 'consistent';
  return b !== 'static-rr';
}

export function backendFromConfig(cfg: BackendConfig, id: number, nowS: number): MockBackend {
  const source = cfg.servers;
  const servers: MockServer[] = new Array(source.length);
  for (let i = 0; i < source.length; i++) servers[i] = serverFromConfig(source[i]!, i + 1, nowS);
  return new MockBackend(id, cfg, servers);
}

function serverFromConfig(s: ServerConfig, id: number, nowS: number): MockServer {
  return {
    id,
    name: s.name,
    address: addressAtLoad(s),
    fqdn: '-',
    port: s.port,
    portMap: s.port === 0,
    checkPort: s.checkPort ?? 0,
    extras: null,
    uweight: s.weight,
    iweight: s.weight,
    opState: s.disabled ? OP_STOPPED : OP_RUNNING,
    adminState: s.disabled ? ADMIN_CMAINT | ADMIN_FMAINT : 0,
    checkConfigured: s.check,
    checkEnabled: s.check,
    checkPaused: s.disabled,
    useSsl: s.ssl === true,
    dynamic: false,
    lastChangeS: nowS,
    checkHealth: s.disabled ? 0 : s.check ? RISE + FALL - 1 : RISE,
  };
}

export function addServerToBackend(be: MockBackend, s: MockServer): void {
  be.add(s);
}

export function removeServerFromBackend(be: MockBackend, s: MockServer): void {
  be.remove(s);
}

/**
 * Smallest id no server of the backend uses: HAProxy reuses the ids of deleted servers. A backend small
 * enough to scan is searched without a set (`add server` is most of what dcm-add-del sends).
 */
export function nextFreeServerId(be: MockBackend): number {
  const servers = be.servers;
  if (servers.length <= SCAN_MAX) {
    let id = 1;
    for (let i = 0; i < servers.length; i++) {
      if (servers[i]!.id !== id) continue;
      id++;
      i = -1;
    }
    return id;
  }
  const used = new Set<number>();
  for (const s of servers) used.add(s.id);
  let id = 1;
  while (used.has(id)) id++;
  return id;
}

/**
 * `isReady` of the server a load builds from this line, without building it: a `disabled` line starts in
 * maintenance, weight 0 takes no traffic, and the address is printed canonical.
 */
export function isReadyAtLoad(s: ServerConfig): boolean {
  return !s.disabled && s.weight > 0 && addressAtLoad(s) !== '-';
}

/**
 * The address the built server prints: HAProxy prints addresses as inet_ntop does, whatever the cfg
 * spelled (`canonicalIp`, which returns a dotted quad unchanged). A renderer's hint spares the parse.
 */
export function addressAtLoad(s: ServerConfig): string {
  return s.canonicalAddress === true ? s.address : (canonicalIp(s.address) ?? s.address);
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
  if (isMaint && !wasMaint && s.checkEnabled) s.checkPaused = true;
  else if (!isMaint && wasMaint && s.checkEnabled) s.checkPaused = false;
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

/** `srv_agent_state`: configured (not enabled) when `add server` asked for an agent check, else none. */
export function agentStateOf(s: MockServer): number {
  return s.extras?.agent === true ? AGENT_CONFIGURED_STATE : 0;
}

/** srv_agent_state of an agent check configured and not enabled (CHK_ST_CONFIGURED | CHK_ST_AGENT): dynamic servers start so. */
const AGENT_CONFIGURED_STATE = 0x12;

/** `srv_check_state`. */
export function checkStateOf(s: MockServer): number {
  let state = 0;
  if (s.checkConfigured) state |= CHECK_CONFIGURED;
  if (s.checkEnabled) state |= CHECK_ENABLED;
  if (s.checkPaused) state |= CHECK_PAUSED;
  return state;
}

/**
 * How `add server` leaves a new server: in maintenance by default; `disabled` adds the config-maint record;
 * `enabled` starts it up and ready. The last of the two keywords wins (measured on 2.6.12).
 */
export type DynamicStart = 'maint' | 'disabled' | 'enabled';

export function newDynamicServer(
  be: MockBackend,
  name: string,
  address: string,
  fqdn: string,
  port: number,
  portMap: boolean,
  opts: {
    weight: number;
    check: boolean;
    start: DynamicStart;
    ssl: boolean;
    checkPort: number;
    forcedId: number;
    checkAddr: string;
    agentAddr: string;
    agentPort: number;
    agent: boolean;
  },
  nowS: number,
): MockServer {
  return {
    id: opts.forcedId > 0 ? opts.forcedId : nextFreeServerId(be),
    name,
    address,
    fqdn,
    port,
    portMap,
    checkPort: opts.checkPort,
    // Most dynamic servers set none of these, and each server of a large backend is read on every `show`.
    extras:
      opts.forcedId > 0 || opts.checkAddr !== '-' || opts.agentAddr !== '-' || opts.agentPort !== opts.checkPort || opts.agent
        ? { forcedId: opts.forcedId > 0, checkAddr: opts.checkAddr, agentAddr: opts.agentAddr, agentPort: opts.agentPort, agent: opts.agent }
        : null,
    uweight: opts.weight,
    iweight: opts.weight,
    opState: opts.start === 'enabled' ? OP_RUNNING : OP_STOPPED,
    adminState: opts.start === 'enabled' ? 0 : opts.start === 'disabled' ? ADMIN_FMAINT | ADMIN_CMAINT : ADMIN_FMAINT,
    checkConfigured: opts.check,
    // Checks of a dynamic server stay off until `enable health`.
    checkEnabled: false,
    checkPaused: opts.start === 'disabled',
    useSsl: opts.ssl,
    dynamic: true,
    lastChangeS: nowS,
    // Measured on 2.6.12: `enabled` starts at the rise count, as a configured server does; in maintenance, 0.
    checkHealth: opts.start === 'enabled' ? RISE : 0,
  };
}
