/**
 * Runtime API commands as data: what the config managers ask HAProxy, and what it answers, typed. Only
 * runtime-codec.ts knows their wire text (HAProxy 2.6 forms); the simulated HAProxy executes them directly.
 */
export type ServerAdminState = 'ready' | 'drain' | 'maint';

/** A `<backend>/<server>` a command acts on. */
interface OnServer {
  readonly backend: string;
  readonly server: string;
}

export type RuntimeCommand =
  | { readonly kind: 'show backend' }
  | { readonly kind: 'show servers state'; readonly backend: string }
  /** `port` is sent only when it changed (the 2018 manager). */
  | ({ readonly kind: 'set server addr'; readonly ip: string; readonly port: number | undefined } & OnServer)
  | ({ readonly kind: 'set server state'; readonly state: ServerAdminState } & OnServer)
  /** A number 0..256 or a relative `N%` (passthrough backends use `100%`). */
  | ({ readonly kind: 'set server weight'; readonly weight: string } & OnServer)
  | { readonly kind: 'set dynamic-cookie-key'; readonly backend: string; readonly key: string }
  | { readonly kind: 'enable dynamic-cookie'; readonly backend: string }
  /** `show map` without an argument: the maps HAProxy has loaded. */
  | { readonly kind: 'show map list' }
  /** `show map <file>`: the entries of the map's current version. */
  | { readonly kind: 'show map'; readonly file: string }
  /** The key unescaped: the codec escapes it for the CLI as the 2018 manager does. */
  | { readonly kind: 'add map'; readonly file: string; readonly key: string; readonly value: string }
  /** `del map <file> #<ref>`: the 2018 manager deletes by the entry's reference from `show map <file>`. */
  | { readonly kind: 'del map ref'; readonly file: string; readonly ref: string }
  /**
   * `add server <be>/<srv> <ip>:<port> <keywords…>` (2026 manager, backend.go innerAddServer): `keywords`
   * are the words after the address, `weight <w>` first.
   */
  | ({ readonly kind: 'add server'; readonly ip: string; readonly port: number; readonly keywords: readonly string[] } & OnServer)
  | ({ readonly kind: 'del server' } & OnServer)
  | ({ readonly kind: 'enable health' } & OnServer)
  | ({ readonly kind: 'disable health' } & OnServer);

export type RuntimeCommandKind = RuntimeCommand['kind'];

/** One row of `show servers state`: every column HAProxy 2.6 prints, in order. */
export interface ServerStateRow {
  backendId: number;
  backendName: string;
  id: number;
  name: string;
  address: string;
  /** 0 stopped, 1 starting, 2 running, 3 stopping. */
  opState: number;
  /** Bits: 0x01 forced maint, 0x02 inherited maint, 0x04 config maint, 0x08 forced drain, 0x10 inherited drain, 0x20 resolution maint. */
  adminState: number;
  /** srv_uweight: the user-visible weight the manager compares with. */
  weight: number;
  initialWeight: number;
  timeSinceLastChange: number;
  checkStatus: number;
  checkResult: number;
  checkHealth: number;
  checkState: number;
  agentState: number;
  backendForcedId: number;
  forcedId: number;
  fqdn: string;
  port: number;
  srvRecord: string;
  useSsl: number;
  checkPort: number;
  checkAddr: string;
  agentAddr: string;
  agentPort: number;
}

/** One map in `show map`: its id, file path as HAProxy shows it (the router compares basenames), and description. */
export interface MapListRow {
  id: number;
  file: string;
  description: string;
}

export interface MapEntryRow {
  /** The entry's reference (`0x…` pointer), usable as `#<ref>` in `del map`. */
  ref: string;
  key: string;
  value: string;
}

/**
 * What HAProxy answered, typed. `ok` is the answer the router accepts for that command and `refused` any
 * other; both keep HAProxy's exact reply text (the CLI's closing newline included), which is what the
 * router quotes in its errors. The listings are the `show` commands' answers.
 */
export type RuntimeReply =
  | { readonly kind: 'ok'; readonly text: string }
  | { readonly kind: 'refused'; readonly text: string }
  | { readonly kind: 'backends'; readonly names: readonly string[] }
  | { readonly kind: 'servers'; readonly rows: readonly ServerStateRow[] }
  | { readonly kind: 'maps'; readonly maps: readonly MapListRow[] }
  | { readonly kind: 'entries'; readonly entries: readonly MapEntryRow[] };

/** The silent acceptance (`\n`): most commands that change something answer so. */
export const OK: RuntimeReply = { kind: 'ok', text: '\n' };

export const ok = (text: string): RuntimeReply => (text === '\n' ? OK : { kind: 'ok', text });
export const refused = (text: string): RuntimeReply => ({ kind: 'refused', text });

export const showBackend = (): RuntimeCommand => SHOW_BACKEND;
const SHOW_BACKEND: RuntimeCommand = { kind: 'show backend' };
export const showServersState = (backend: string): RuntimeCommand => ({ kind: 'show servers state', backend });
export const showMapList = (): RuntimeCommand => SHOW_MAP_LIST;
const SHOW_MAP_LIST: RuntimeCommand = { kind: 'show map list' };
export const showMap = (file: string): RuntimeCommand => ({ kind: 'show map', file });

export const setServerAddr = (backend: string, server: string, ip: string, port?: number): RuntimeCommand => ({ kind: 'set server addr', backend, server, ip, port });
export const setServerState = (backend: string, server: string, state: ServerAdminState): RuntimeCommand => ({ kind: 'set server state', backend, server, state });
export const setServerWeight = (backend: string, server: string, weight: string): RuntimeCommand => ({ kind: 'set server weight', backend, server, weight });
export const setDynamicCookieKey = (backend: string, key: string): RuntimeCommand => ({ kind: 'set dynamic-cookie-key', backend, key });
export const enableDynamicCookie = (backend: string): RuntimeCommand => ({ kind: 'enable dynamic-cookie', backend });
export const addMap = (file: string, key: string, value: string): RuntimeCommand => ({ kind: 'add map', file, key, value });
export const delMapRef = (file: string, ref: string): RuntimeCommand => ({ kind: 'del map ref', file, ref });
export const addServer = (backend: string, server: string, ip: string, port: number, keywords: readonly string[]): RuntimeCommand => ({
  kind: 'add server',
  backend,
  server,
  ip,
  port,
  keywords,
});
export const delServer = (backend: string, server: string): RuntimeCommand => ({ kind: 'del server', backend, server });
export const enableHealth = (backend: string, server: string): RuntimeCommand => ({ kind: 'enable health', backend, server });
export const disableHealth = (backend: string, server: string): RuntimeCommand => ({ kind: 'disable health', backend, server });
