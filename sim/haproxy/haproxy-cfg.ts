import type { BackendConfig, HaproxyConfig, MapEntry, ServerConfig } from '../../core/haproxy/config-model.ts';

/**
 * Renders a `HaproxyConfig` into an haproxy.cfg that a real HAProxy 2.6 accepts, shaped like the OpenShift
 * router's template where the runtime API can see it: the same map files looked up the same way from the
 * same kind of frontends, backends with balance, dynamic cookies and server lines. Everything else the
 * template has (TLS, error pages, stats page, logging) is left out because the runtime API cannot observe it.
 *
 * The renderer also reports the layout HAProxy derives from the file (proxy ids, map ids, the line that first
 * uses each map): the mock needs it to answer `show servers state` and `show map` exactly as the real process.
 */

/** How a frontend looks a map up; only `map_reg` and exact `map` are used by the router template. */
export type MapMatch = 'reg' | 'str';
/** What the converter makes of the value: a string, or an integer (`map_reg_int`), which the file must hold. */
export type MapValues = 'str' | 'int';

export interface MapLayout {
  /** Key in `HaproxyConfig.maps` (the file's base name). */
  file: string;
  /** Path as written in the cfg; it is the map's name on the runtime API. */
  path: string;
  /** HAProxy's pattern-reference id, shown by `show map` and usable as `#<id>`. */
  id: number;
  /** `map_reg` or `map`, from the converter that first references the file. */
  match: MapMatch;
  values: MapValues;
  /** cfg file name as passed to `haproxy -f`, and the line of the first reference (1-based). */
  cfgFile: string;
  line: number;
  /** Lines of later references to the same file, which HAProxy adds to the map's description. */
  alsoAt?: readonly number[];
  /**
   * Every distinct converter kind that reads the file (`map_reg`, `map_reg_int`, `map`...), in the order of
   * their first use: each loads every entry once more into `entry_cnt`, and `get map` answers once per
   * kind (see pattern-refs.ts). Absent: only the kind of `match` and `values`.
   */
  kinds?: readonly MapKind[];
}

/** One converter kind: how it matches keys and what it makes of values. */
export interface MapKind {
  match: MapMatch;
  values: MapValues;
}

export interface CfgLayout {
  /** Backend name to proxy id (`be_id` in `show servers state`). */
  backendIds: ReadonlyMap<string, number>;
  /** Maps in id order, which is `show map`'s order. */
  maps: readonly MapLayout[];
  /** Frontends (and listen sections) with their proxy ids and modes, for `show stat`; absent: none known. */
  frontends?: readonly FrontendLayout[];
  /** `fullconn N` (N above 0) by backend, from its section or the defaults before it: its `show stat` slim. */
  fullconn?: ReadonlyMap<string, number>;
  /** Where each backend's servers are declared; absent when the layout was made without the cfg text. */
  serverLines?: ServerLines;
  /**
   * `maxconn` in the global section, when it sets one (a number above 0): the process's Maxconn and
   * Hard_maxconn, and every frontend's default. Absent (or 0), HAProxy derives it from `ulimit -n`, which
   * the mock does not know: it then says what its ProcessInfo says.
   */
  maxconn?: number;
}

export interface FrontendLayout {
  name: string;
  id: number;
  mode: 'http' | 'tcp';
  /** `maxconn N` (N above 0) of the section or the defaults before it; absent, the process's maxconn. */
  maxconn?: number;
  /**
   * The backends it names by name (`default_backend`, `use_backend` without a `%[` expression; a listen
   * section, its own backend half): each gets a tenth of its maxconn as fullconn unless it sets its own.
   */
  backends?: readonly string[];
}

/**
 * The cfg file (as HAProxy was given it) and, per backend, the line of each of its servers in server order:
 * HAProxy names it when a runtime `add server … id N` takes an id a configured server holds. A
 * `server-template` line is the line of every server it makes.
 */
export interface ServerLines {
  cfgFile: string;
  byBackend: ReadonlyMap<string, readonly number[]>;
}

export interface RenderOptions {
  /** Unix socket path of the admin-level stats socket. */
  statsSocketPath: string;
  /** Directory the map files are written to and referenced from. */
  mapDir: string;
  /** cfg file name as it will be passed to `haproxy -f` (HAProxy quotes it in `show map`). */
  cfgFile: string;
  /** 127.0.0.1 ports of the plain HTTP, TLS-passthrough (SNI) and terminated-TLS stand-in frontends. */
  httpPort: number;
  httpsPort: number;
  terminatedPort: number;
  /** `check inter`: the router template's ROUTER_BACKEND_CHECK_INTERVAL default. */
  checkIntervalMs?: number;
}

export interface RenderedCfg {
  text: string;
  /** Absolute map path to file contents, one `key value` line per entry. */
  mapFiles: ReadonlyMap<string, string>;
  layout: CfgLayout;
}

/** The map files the router template references, in the order it first references them. */
export const STANDARD_MAP_FILES = [
  'os_route_http_redirect.map',
  'os_http_be.map',
  'os_sni_passthrough.map',
  'os_tcp_be.map',
  'os_edge_reencrypt_be.map',
] as const;

/**
 * Map files the template writes but no frontend references, so HAProxy never loads them and the config
 * managers (which walk `show map`) never touch them: os_wildcard_domain.map (written when wildcard routes are
 * allowed; routing by wildcard goes through the other maps' regular expressions).
 */
export const UNREFERENCED_MAP_FILES: readonly string[] = ['os_wildcard_domain.map'];

/**
 * HAProxy 2.6 numbers proxies in file order from 2 (the internal httpclient proxy takes 1 before the cfg is
 * read). Pattern references (maps and ACL expressions alike) are numbered in creation order from 0: while
 * parsing, each map converter in an ACL or rule and each ACL expression takes the next id; then the internal
 * httpclient creates two ACLs; then the `use_backend %[...]` expressions, resolved after parsing, create
 * theirs in file order. `show map` lists maps in that creation order. (Measured on 2.6.12.)
 */
const FIRST_PROXY_ID = 2;
const HTTPCLIENT_ACL_REFS = 2;
const FRONTEND_COUNT = 3;

/** Defaults used where the simulation needs a layout but never writes a file (the mock's default). */
export const DEFAULT_RENDER_OPTIONS: RenderOptions = {
  statsSocketPath: '/var/lib/haproxy/run/haproxy.sock',
  mapDir: '/var/lib/haproxy/conf',
  cfgFile: '/var/lib/haproxy/conf/haproxy.config',
  httpPort: 18080,
  httpsPort: 18443,
  terminatedPort: 18444,
};

export function renderHaproxyCfg(config: HaproxyConfig, options: RenderOptions = DEFAULT_RENDER_OPTIONS): RenderedCfg {
  return render(config, options, true);
}

/** The proxy id of the backend at this position of a rendered config (its `be_id`, whatever the options). */
export function renderedBackendId(index: number): number {
  return FIRST_PROXY_ID + FRONTEND_COUNT + index;
}

/**
 * The same walk without writing backends or map files: ids depend only on positions, so the mock (which
 * reloads thousands of times a run and never writes a file) gets its layout without rendering thousands of
 * server lines.
 */
function render(config: HaproxyConfig, options: RenderOptions, withText: boolean, withBackendIds = true): RenderedCfg {
  assertLocalPorts(options);
  const lines: string[] = [];
  const mapPath = (file: string): string => `${options.mapDir}/${file}`;
  let nextRefId = 0;
  const parsed: MapLayout[] = [];
  const deferred: Omit<MapLayout, 'id'>[] = [];
  const known = new Set<string>();
  // A map referenced while parsing (ACL, http-request rule) gets its id now, at the line about to be pushed.
  const useMapNow = (file: string, values: MapValues = 'str'): string => {
    if (!known.has(file)) {
      known.add(file);
      parsed.push({ file, path: mapPath(file), id: nextRefId++, match: 'reg', values, cfgFile: options.cfgFile, line: lines.length + 1 });
    }
    return mapPath(file);
  };
  // A map in a `use_backend %[...]` expression gets its id after parsing.
  const useMapLater = (file: string): string => {
    if (!known.has(file)) {
      known.add(file);
      deferred.push({ file, path: mapPath(file), match: 'reg', values: 'str', cfgFile: options.cfgFile, line: lines.length + 1 });
    }
    return mapPath(file);
  };
  const aclExpression = (): void => {
    nextRefId++;
  };
  const extraMaps = extraMapFiles(config);

  lines.push(
    'global',
    '  maxconn 2000',
    `  stats socket ${options.statsSocketPath} mode 600 level admin`,
    '  stats timeout 2m',
    '',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout http-request 10s',
    '',
    'frontend public',
    `  bind 127.0.0.1:${options.httpPort}`,
    '  mode http',
  );
  // DNS names are case-insensitive: the router lowercases Host before any lookup.
  lines.push('  http-request set-header Host %[req.hdr(Host),lower]');
  // Maps the template does not know are still referenced, so that HAProxy loads them and the API can reach them.
  extraMaps.forEach((file, i) => {
    lines.push(`  http-request set-var(txn.extra_map_${i}) base,map_reg(${useMapNow(file)})`);
  });
  // Redirect map values are 0/1 (the route's insecure policy is Redirect or not), read as a boolean.
  lines.push(`  acl secure_redirect base,map_reg_int(${useMapNow('os_route_http_redirect.map', 'int')}) -m bool`);
  aclExpression();
  lines.push('  redirect scheme https if secure_redirect');
  lines.push(`  use_backend %[base,map_reg(${useMapLater('os_http_be.map')})]`);
  lines.push(
    '',
    'frontend public_ssl',
    `  bind 127.0.0.1:${options.httpsPort}`,
    '  mode tcp',
    '  tcp-request inspect-delay 5s',
    '  tcp-request content accept if { req_ssl_hello_type 1 }',
  );
  aclExpression();
  lines.push('  acl sni req.ssl_sni -m found');
  aclExpression();
  lines.push(`  acl sni_passthrough req.ssl_sni,lower,map_reg(${useMapNow('os_sni_passthrough.map')}) -m found`);
  aclExpression();
  lines.push(`  use_backend %[req.ssl_sni,lower,map_reg(${useMapLater('os_tcp_be.map')})] if sni sni_passthrough`);
  lines.push(
    '',
    // The router terminates TLS in fe_sni; the bench has no certificates, so this frontend takes the
    // already-decrypted requests as plain HTTP and does the same lookup.
    'frontend fe_sni',
    `  bind 127.0.0.1:${options.terminatedPort}`,
    '  mode http',
    '  http-request set-header Host %[req.hdr(Host),lower]',
  );
  lines.push(`  use_backend %[base,map_reg(${useMapLater('os_edge_reencrypt_be.map')})]`);
  nextRefId += HTTPCLIENT_ACL_REFS;
  const maps: MapLayout[] = [...parsed, ...deferred.map((m) => ({ ...m, id: nextRefId++ }))];

  const backendIds = new Map<string, number>();
  const serverLines = new Map<string, number[]>();
  if (withText || withBackendIds) {
    config.backends.forEach((be, i) => {
      backendIds.set(be.name, renderedBackendId(i));
      if (!withText) return;
      const block = renderBackend(be, options.checkIntervalMs ?? 5000);
      // The block's server lines come last, after an empty line and the block's other lines.
      const first = lines.length + 2 + block.length - be.servers.length;
      serverLines.set(be.name, be.servers.map((_, k) => first + k));
      lines.push('', ...block);
    });
  }
  lines.push('');

  const mapFiles = new Map<string, string>();
  if (withText) {
    for (const m of maps) mapFiles.set(m.path, renderMapFile(config.maps[m.file] ?? []));
    for (const file of UNREFERENCED_MAP_FILES) {
      const entries = config.maps[file];
      if (entries !== undefined) mapFiles.set(mapPath(file), renderMapFile(entries));
    }
  }
  const frontends = [
    { name: 'public', id: FIRST_PROXY_ID, mode: 'http' as const },
    { name: 'public_ssl', id: FIRST_PROXY_ID + 1, mode: 'tcp' as const },
    { name: 'fe_sni', id: FIRST_PROXY_ID + 2, mode: 'http' as const },
  ];
  const layout: CfgLayout = withText ? { backendIds, maps, frontends, serverLines: { cfgFile: options.cfgFile, byBackend: serverLines } } : { backendIds, maps, frontends };
  return { text: lines.join('\n'), mapFiles, layout };
}

/** Where the default render of `config` declares each server (see ServerLines). */
export function defaultServerLines(config: HaproxyConfig): ServerLines {
  return render(config, DEFAULT_RENDER_OPTIONS, true).layout.serverLines!;
}

/** The layout the mock assumes when it is loaded without one: the default render of that config. */
export function defaultLayout(config: HaproxyConfig): CfgLayout {
  return render(config, DEFAULT_RENDER_OPTIONS, false).layout;
}

/** Map files of the config the template does not know, in the config's order: each is referenced by a line of its own. */
export function extraMapFiles(config: HaproxyConfig): string[] {
  return Object.keys(config.maps).filter((f) => !(STANDARD_MAP_FILES as readonly string[]).includes(f) && !UNREFERENCED_MAP_FILES.includes(f));
}

/**
 * The maps of `defaultLayout`, without its backend ids (those are positional, see renderedBackendId): the
 * mock needs the maps after most reloads and would otherwise index a thousand backends each time.
 */
export function defaultMapLayouts(config: HaproxyConfig): readonly MapLayout[] {
  return render(config, DEFAULT_RENDER_OPTIONS, false, false).layout.maps;
}

function renderBackend(be: BackendConfig, checkIntervalMs: number): string[] {
  const out = [`backend ${be.name}`, `  mode ${be.mode}`, `  balance ${be.balance}`];
  if (be.hashType !== undefined) out.push(`  hash-type ${be.hashType}`);
  if (be.cookieName !== undefined) {
    if (be.mode !== 'http') throw new Error(`backend ${be.name}: cookies need mode http`);
    out.push(`  cookie ${be.cookieName} insert indirect nocache httponly dynamic`);
  }
  if (be.dynamicCookieKey !== undefined) out.push(`  dynamic-cookie-key ${be.dynamicCookieKey}`);
  for (const s of be.servers) out.push(renderServer(s, checkIntervalMs));
  return out;
}

function renderServer(s: ServerConfig, checkIntervalMs: number): string {
  // An IPv6 literal needs brackets, or HAProxy would take its last group for the port.
  const host = s.address.includes(':') ? `[${s.address}]` : s.address;
  let line = `  server ${s.name} ${host}:${s.port} weight ${s.weight}`;
  if (s.cookie !== undefined) line += ` cookie ${s.cookie}`;
  if (s.check) line += ` check inter ${checkIntervalMs}ms`;
  if (s.disabled) line += ' disabled';
  return line;
}

/** One `key value` line per entry; HAProxy splits a map line at the first blank, so keys cannot hold one. */
export function renderMapFile(entries: readonly MapEntry[]): string {
  let text = '';
  for (const e of entries) {
    if (/[\s]/.test(e.key) || e.key === '') throw new Error(`map key ${JSON.stringify(e.key)} cannot be written to a map file`);
    text += `${e.key} ${e.value}\n`;
  }
  return text;
}

/** The bench only ever listens on loopback high ports: it must not collide with a real router on the host. */
function assertLocalPorts(o: RenderOptions): void {
  for (const [name, port] of [['httpPort', o.httpPort], ['httpsPort', o.httpsPort], ['terminatedPort', o.terminatedPort]] as const) {
    if (!Number.isInteger(port) || port < 1024 || port > 65535) throw new Error(`${name} must be a port in 1024..65535, got ${port}`);
  }
}

/** Writes the cfg and its map files through the given writer (the caller owns the I/O). */
export function writeRenderedCfg(rendered: RenderedCfg, cfgPath: string, writeFile: (path: string, text: string) => void): void {
  writeFile(cfgPath, rendered.text);
  for (const [path, text] of rendered.mapFiles) writeFile(path, text);
}
