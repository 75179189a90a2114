import { LineCounter, parse as parseYaml, parseDocument } from 'yaml';
import { positionOf } from './scenario/yaml-positions.ts';
import { domainList, type RouterSettings } from './settings.ts';

/**
 * The router's own environment variables, parsed the way openshift/router's pkg/cmd/infra/router does
 * (env(): an empty value counts as unset; envInt(key, default, min): base-10 int32, a parse error or a
 * value below min gives the default; getIntervalFromEnv: Go time.ParseDuration, a parse error gives the
 * default; intervals under one second make the router refuse to start; isTrue: strconv.ParseBool, where an
 * unparsable value is false). Every fall-back is reported as a warning.
 */
export interface RouterEnvResult {
  settings: Partial<RouterSettings>;
  /** For each setting given, the variable it was read from and that variable's text as given. */
  from: Partial<Record<keyof RouterSettings, { name: string; value: string }>>;
  /** Deployments only: each env entry's line in the manifest (1-based), by variable name. */
  lines?: Record<string, number>;
  warnings: string[];
}

export interface RouterEnvOptions {
  /**
   * Which config manager generation `ROUTER_HAPROXY_CONFIG_MANAGER=true` means: the 2018 slots design
   * (routers before 2026-04) or the add/del rewrite. Default dcm-slots.
   */
  configManager?: 'dcm-slots' | 'dcm-add-del';
}

const DEFAULT_MAX_DYNAMIC_SERVERS = 5;
const DEFAULT_POOL_SIZE = 10;
const DEFAULT_RELOAD_INTERVAL_S = 5;
const DEFAULT_COMMIT_INTERVAL_S = 3600;
/** routerbench's own bounds (RouterSettingsSchema); the router has none above. */
const MAX_SLOTS = 1000;

const IGNORED_WITH_NOTE: Record<string, string> = {
  ROUTER_BLUEPRINT_ROUTE_LABELS: 'blueprint label selectors are not modelled; every route in the blueprint namespace is a blueprint',
  ROUTER_DYNAMIC_SERVER_PREFIX: 'never shipped: the slot prefix is the constant `_dynamic`',
};

/** Every variable parseRouterEnv reads or notes; others (a Deployment has many) play no part in a run. */
export const ROUTER_ENV_NAMES: readonly string[] = [
  'ROUTER_HAPROXY_CONFIG_MANAGER',
  'ROUTER_MAX_DYNAMIC_SERVERS',
  'ROUTER_BLUEPRINT_ROUTE_POOL_SIZE',
  'ROUTER_BLUEPRINT_ROUTE_NAMESPACE',
  'RELOAD_INTERVAL',
  'COMMIT_INTERVAL',
  'ROUTER_ALLOW_WILDCARD_ROUTES',
  'ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK',
  'ROUTER_DENIED_DOMAINS',
  'ROUTER_ALLOWED_DOMAINS',
  ...Object.keys(IGNORED_WITH_NOTE),
];

export function parseRouterEnv(env: Readonly<Record<string, string>> | Iterable<readonly [string, string]>, opts: RouterEnvOptions = {}): RouterEnvResult {
  const vars = new Map<string, string>(Symbol.iterator in env ? (env as Iterable<readonly [string, string]>) : Object.entries(env));
  const settings: Partial<RouterSettings> = {};
  const warnings: string[] = [];
  const get = (k: string): string | undefined => {
    const v = vars.get(k);
    return v === undefined || v.length === 0 ? undefined : v;
  };

  const cm = get('ROUTER_HAPROXY_CONFIG_MANAGER');
  if (cm !== undefined) {
    const b = parseGoBool(cm);
    if (b === undefined) warnings.push(`ROUTER_HAPROXY_CONFIG_MANAGER=${cm}: not a boolean; the router reads it as false (no config manager)`);
    settings.strategy = b === true ? (opts.configManager ?? 'dcm-slots') : 'reload-always';
  }

  const maxDyn = envInt(get('ROUTER_MAX_DYNAMIC_SERVERS'), 'ROUTER_MAX_DYNAMIC_SERVERS', DEFAULT_MAX_DYNAMIC_SERVERS, 1, warnings);
  if (maxDyn !== undefined) settings.maxDynamicServers = clampSlots(maxDyn, 'ROUTER_MAX_DYNAMIC_SERVERS', warnings);
  const pool = envInt(get('ROUTER_BLUEPRINT_ROUTE_POOL_SIZE'), 'ROUTER_BLUEPRINT_ROUTE_POOL_SIZE', DEFAULT_POOL_SIZE, 0, warnings);
  if (pool !== undefined) settings.blueprintPoolSize = clampSlots(pool, 'ROUTER_BLUEPRINT_ROUTE_POOL_SIZE', warnings);

  const ns = get('ROUTER_BLUEPRINT_ROUTE_NAMESPACE');
  if (ns !== undefined) settings.blueprintNamespace = ns;

  const reload = envInterval(get('RELOAD_INTERVAL'), 'RELOAD_INTERVAL', DEFAULT_RELOAD_INTERVAL_S, 'reload interval', warnings);
  if (reload !== undefined) settings.reloadIntervalMs = reload;
  const commit = envInterval(get('COMMIT_INTERVAL'), 'COMMIT_INTERVAL', DEFAULT_COMMIT_INTERVAL_S, 'dynamic configuration manager commit interval', warnings);
  if (commit !== undefined) settings.commitIntervalMs = commit;

  const wildcard = get('ROUTER_ALLOW_WILDCARD_ROUTES');
  if (wildcard !== undefined) {
    const b = parseGoBool(wildcard);
    if (b === undefined) warnings.push(`ROUTER_ALLOW_WILDCARD_ROUTES=${wildcard}: not a boolean; read as false`);
    settings.allowWildcardRoutes = b === true;
  }
  const ownership = get('ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK');
  if (ownership !== undefined) {
    const b = parseGoBool(ownership);
    if (b === undefined) warnings.push(`ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK=${ownership}: not a boolean; read as false`);
    settings.disableNamespaceOwnershipCheck = b === true;
  }

  const denied = get('ROUTER_DENIED_DOMAINS');
  if (denied !== undefined) settings.deniedDomains = domainList(denied);
  const allowed = get('ROUTER_ALLOWED_DOMAINS');
  if (allowed !== undefined) settings.allowedDomains = domainList(allowed);

  for (const [k, note] of Object.entries(IGNORED_WITH_NOTE)) {
    if (get(k) !== undefined) warnings.push(`${k}: ${note}`);
  }
  const from: RouterEnvResult['from'] = {};
  for (const key of Object.keys(settings) as (keyof RouterSettings)[]) {
    const name = ENV_OF_SETTING[key]!;
    from[key] = { name, value: vars.get(name)! };
  }
  return { settings, from, warnings };
}

/** The variable each setting is read from (the inverse of the reads above). */
const ENV_OF_SETTING: Partial<Record<keyof RouterSettings, string>> = {
  strategy: 'ROUTER_HAPROXY_CONFIG_MANAGER',
  maxDynamicServers: 'ROUTER_MAX_DYNAMIC_SERVERS',
  blueprintPoolSize: 'ROUTER_BLUEPRINT_ROUTE_POOL_SIZE',
  blueprintNamespace: 'ROUTER_BLUEPRINT_ROUTE_NAMESPACE',
  reloadIntervalMs: 'RELOAD_INTERVAL',
  commitIntervalMs: 'COMMIT_INTERVAL',
  allowWildcardRoutes: 'ROUTER_ALLOW_WILDCARD_ROUTES',
  disableNamespaceOwnershipCheck: 'ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK',
  deniedDomains: 'ROUTER_DENIED_DOMAINS',
  allowedDomains: 'ROUTER_ALLOWED_DOMAINS',
};

/** envInt: unset → nothing to set; garbage or below min → the router's default, with a warning. */
function envInt(v: string | undefined, name: string, def: number, min: number, warnings: string[]): number | undefined {
  if (v === undefined) return undefined;
  const n = parseGoInt32(v);
  if (n === undefined) {
    warnings.push(`${name}=${v}: not a 32-bit integer; the router uses its default ${def}`);
    return def;
  }
  if (n < min) {
    warnings.push(`${name}=${v}: below the minimum ${min}; the router uses its default ${def}`);
    return def;
  }
  return n;
}

function clampSlots(n: number, name: string, warnings: string[]): number {
  if (n <= MAX_SLOTS) return n;
  warnings.push(`${name}=${n}: above routerbench's limit ${MAX_SLOTS}; using ${MAX_SLOTS}`);
  return MAX_SLOTS;
}

/** getIntervalFromEnv plus the start-up check `int(d.Seconds()) < 1` → the router exits. */
function envInterval(v: string | undefined, name: string, defSeconds: number, what: string, warnings: string[]): number | undefined {
  if (v === undefined) return undefined;
  const ns = parseGoDuration(v);
  if (ns === undefined) {
    warnings.push(`${name}=${v}: not a Go duration (e.g. 5s, 1h30m); the router uses its default ${defSeconds}s`);
    return defSeconds * 1000;
  }
  if (ns < 1_000_000_000) {
    warnings.push(`${name}=${v}: the router refuses to start ("invalid ${what}: must be a positive duration", at least 1s); using the default ${defSeconds}s`);
    return defSeconds * 1000;
  }
  const ms = Math.floor(ns / 1_000_000);
  if (ms * 1_000_000 !== ns) warnings.push(`${name}=${v}: routerbench keeps whole milliseconds; using ${ms}ms`);
  return ms;
}

/** strconv.ParseBool. */
export function parseGoBool(v: string): boolean | undefined {
  switch (v) {
    case '1':
    case 't':
    case 'T':
    case 'TRUE':
    case 'true':
    case 'True':
      return true;
    case '0':
    case 'f':
    case 'F':
    case 'FALSE':
    case 'false':
    case 'False':
      return false;
    default:
      return undefined;
  }
}

/** strconv.ParseInt(v, 10, 32). */
export function parseGoInt32(v: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(v)) return undefined;
  const n = Number(v);
  return n >= -2147483648 && n <= 2147483647 ? n : undefined;
}

const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** time.ParseDuration → nanoseconds (a float, exact for every duration a router setting plausibly has). */
export function parseGoDuration(s: string): number | undefined {
  let i = 0;
  let sign = 1;
  if (s[0] === '-' || s[0] === '+') {
    if (s[0] === '-') sign = -1;
    i = 1;
  }
  if (s.slice(i) === '0') return 0;
  if (i >= s.length) return undefined;
  let total = 0;
  while (i < s.length) {
    const numStart = i;
    while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
    const intPart = s.slice(numStart, i);
    let frac = '';
    if (s[i] === '.') {
      i++;
      const fracStart = i;
      while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
      frac = s.slice(fracStart, i);
    }
    if (intPart.length === 0 && frac.length === 0) return undefined;
    const unitStart = i;
    while (i < s.length && s[i] !== '.' && !(s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57)) i++;
    const unit = UNIT_NS[s.slice(unitStart, i)];
    if (unit === undefined) return undefined;
    total += Number(`${intPart.length > 0 ? intPart : '0'}.${frac.length > 0 ? frac : '0'}`) * unit;
  }
  if (total > 9223372036854775807) return undefined;
  return sign * Math.round(total);
}

/**
 * The env of a router Deployment as `oc get deploy/router-default -o yaml` prints it (also a `List` holding
 * one): `spec.template.spec.containers[]`, the container named `router` (else the first), its `env` list.
 * `valueFrom` entries cannot be resolved offline and are reported.
 */
export function parseRouterDeployment(yamlText: string, opts: RouterEnvOptions & { container?: string } = {}): RouterEnvResult {
  const doc = parseYaml(yamlText) as unknown;
  const warnings: string[] = [];
  const picked = pickDeployment(doc, []);
  const deployment = picked?.deployment;
  if (picked === undefined || deployment === undefined) throw new Error('not a Deployment (or a List with one): no spec.template.spec.containers');
  const containers = deployment.spec.template.spec.containers;
  const wanted = opts.container ?? 'router';
  const bad = containers.findIndex((c) => c === null || typeof c !== 'object' || Array.isArray(c));
  if (bad >= 0) throw new Error(`spec.template.spec.containers[${bad}] is not a container (a mapping with name and env)`);
  const index = Math.max(0, containers.findIndex((c) => c.name === wanted));
  const container = containers[index];
  if (container === undefined) throw new Error('the Deployment has no containers');
  if (container.name !== wanted && opts.container !== undefined) throw new Error(`no container named ${wanted}`);
  const env: [string, string][] = [];
  if (container.env !== undefined && container.env !== null && !Array.isArray(container.env)) throw new Error(`the ${container.name ?? 'first'} container's env is not a list`);
  for (const e of container.env ?? []) {
    if (typeof e?.name !== 'string') continue;
    if (e.value !== undefined && e.value !== null) env.push([e.name, String(e.value)]);
    else if (e.valueFrom !== undefined) warnings.push(`${e.name}: valueFrom is not resolved offline; treated as unset`);
    else env.push([e.name, '']);
  }
  const parsed = parseRouterEnv(env, opts);
  // Read again for positions only: each setting's source names the line of its env entry.
  const lineCounter = new LineCounter();
  const positions = parseDocument(yamlText, { lineCounter });
  const envPath = [...picked.path, 'spec', 'template', 'spec', 'containers', index, 'env'];
  const lines: Record<string, number> = {};
  (container.env ?? []).forEach((e, i) => {
    if (typeof e?.name === 'string') lines[e.name] = positionOf(positions, lineCounter, [...envPath, i]).line;
  });
  return { settings: parsed.settings, from: parsed.from, lines, warnings: [...warnings, ...parsed.warnings] };
}

interface ContainerYaml {
  name?: string;
  env?: { name?: string; value?: unknown; valueFrom?: unknown }[];
}
interface DeploymentYaml {
  spec: { template: { spec: { containers: ContainerYaml[] } } };
}

/** The Deployment in the document and its path there (under `items` for a List). */
function pickDeployment(doc: unknown, path: (string | number)[]): { deployment: DeploymentYaml; path: (string | number)[] } | undefined {
  const d = doc as { kind?: string; items?: unknown[]; spec?: { template?: { spec?: { containers?: unknown } } } } | null;
  if (d === null || typeof d !== 'object') return undefined;
  if (d.kind === 'List' && Array.isArray(d.items)) {
    const found = d.items.map((item, i) => pickDeployment(item, [...path, 'items', i])).filter((x) => x !== undefined);
    if (found.length > 1) throw new Error(`the List holds ${found.length} Deployments; pass one`);
    return found[0];
  }
  return Array.isArray(d.spec?.template?.spec?.containers) ? { deployment: d as DeploymentYaml, path } : undefined;
}
