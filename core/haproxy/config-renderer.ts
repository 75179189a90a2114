import type { Endpoint } from '../endpoint.ts';
import { routeKey, serviceKey, type Route } from '../route.ts';
import type { RouterState, StateChange } from '../router-state.ts';
import type { BackendConfig, HaproxyConfig, MapEntry } from './config-model.ts';
import { compareMapLines, MAP_FILES, MAP_WILDCARD, renderedMapEntries } from './map-entries.ts';
import { aliasKey, backendNameOf, type ServedSource } from './names.ts';
import { backendShape, backendWithEndpoints, type BackendShape, type RenderOptions } from './render.ts';

/** A fresh full render, as a reload without history writes it (tests, one-off renders). */
export function renderRouterConfig(state: RouterState, opts: RenderOptions): HaproxyConfig {
  return new ConfigRenderer(opts).render(state, opts.extraBackends);
}

/** One route's part of the config: its backend and its map lines, with what they were rendered from. */
interface Row {
  /** `<namespace>:<name>`: the template's iteration order. */
  readonly sortKey: string;
  readonly serviceKey: string;
  readonly route: Route;
  readonly shape: BackendShape;
  readonly mapLines: readonly MapLine[];
  endpoints: readonly Endpoint[] | undefined;
  backend: BackendConfig;
}

interface MapLine {
  file: string;
  /** `<key> <value>`, the text the reload sorts. */
  line: string;
  entry: MapEntry;
}

const NO_ENDPOINTS: readonly Endpoint[] = [];
/** The dirty-service list is compacted when it passes this, or twice its distinct services. */
const DIRTY_COMPACT_MIN = 4096;

/**
 * What a reload writes, kept up to date between reloads. The real router re-renders its whole template on
 * every reload; under churn that is thousands of reloads of a thousand routes each, almost all unchanged.
 * This renderer is told every change (`note`) and re-renders only the routes and services it names, keeping
 * the backends and each map file sorted as it goes, so a reload costs what changed. Its output equals a
 * fresh full render of the same state (property-tested in config-renderer.test.ts); the configs it returns
 * share unchanged backends and map lists, so treat them as read-only.
 */
export class ConfigRenderer {
  private readonly manager: 'none' | 'slots' | 'add-del';
  private readonly slots: number;
  private readonly wildcard: boolean;
  private readonly served: ServedSource | undefined;
  /** The state this renderer has seen whole; another state object means a full render. */
  private synced: RouterState | null = null;
  private readonly rows = new Map<string, Row>();
  private readonly rowsByService = new Map<string, Row[]>();
  private extraRows: readonly Row[] = [];
  private readonly dirtyRoutes = new Set<string>();
  /**
   * Services noted since the last render, repeats and all. A Set here, cleared at every reload, cost about
   * 10% of a reload-always replay: its hash table grew again from empty after every reload. Rendering a
   * service twice is harmless (a row whose endpoints are current is skipped), and a long stretch without a
   * render (dcm-slots may go an hour) is compacted now and then, so the list stays bounded by the services.
   */
  private readonly dirtyServices: string[] = [];
  /** How many of `dirtyServices` are current: the array keeps its length, so it is not regrown per reload. */
  private dirtyCount = 0;
  private compactDirtyAt = DIRTY_COMPACT_MIN;
  /** Rows in template order. */
  private sorted: Row[] = [];
  /**
   * Each map file's lines in file order, their entries in the same order (kept in step), and the entry
   * lists last handed out. A reload hands out a copy of a changed file's entries, since the config it
   * starts must not see later changes: copying the list whole is a memory copy, where mapping each line to
   * its entry cost 3% of a reload-always replay of a saturated day (1 Dec 2026).
   */
  private readonly lines = new Map<string, MapLine[]>();
  private readonly entries = new Map<string, MapEntry[]>();
  private readonly dirtyFiles = new Set<string>();
  private maps: Record<string, MapEntry[]> = {};

  constructor(opts: RenderOptions) {
    this.manager = opts.manager ?? (opts.maxDynamicServers > 0 ? 'slots' : 'none');
    this.slots = this.manager === 'slots' ? opts.maxDynamicServers : 0;
    this.wildcard = opts.allowWildcardRoutes === true;
    this.served = opts.served;
  }

  /** Every change applied to the state since the last render must be noted before the next render. */
  note(change: StateChange): void {
    switch (change.kind) {
      case 'route.added':
        this.dirtyRoutes.add(routeKey(change.route));
        return;
      case 'route.removed':
        this.dirtyRoutes.add(routeKey(change.route));
        return;
      case 'route.modified':
        this.dirtyRoutes.add(routeKey(change.after));
        return;
      case 'endpoints.changed':
        this.dirtyServices[this.dirtyCount++] = change.key;
        if (this.dirtyCount > this.compactDirtyAt) this.compactDirtyServices();
        return;
      case 'blueprint.changed':
        // Blueprints reach the config only as the pool routes the caller passes as `extra`.
        return;
    }
  }

  private compactDirtyServices(): void {
    const unique = new Set(this.dirtyServices.slice(0, this.dirtyCount));
    this.dirtyServices.length = 0;
    for (const svc of unique) this.dirtyServices.push(svc);
    this.dirtyCount = unique.size;
    this.compactDirtyAt = Math.max(DIRTY_COMPACT_MIN, 2 * unique.size);
  }

  /** The route object the last render wrote under this route key, if any. */
  renderedRoute(key: string): Route | undefined {
    return this.rows.get(key)?.route;
  }

  /** The config for `state` plus `extra` backends (pool slot routes, rendered as ordinary routes). */
  render(state: RouterState, extra: readonly Route[] = []): HaproxyConfig {
    if (this.synced !== state) this.renderAll(state, extra);
    else this.renderChanged(state, extra);
    this.dirtyRoutes.clear();
    this.dirtyCount = 0;

    const sorted = this.sorted;
    const backends: BackendConfig[] = new Array(sorted.length);
    for (let i = 0; i < sorted.length; i++) backends[i] = sorted[i]!.backend;
    if (this.dirtyFiles.size > 0) {
      const maps: Record<string, MapEntry[]> = {};
      for (const [file, es] of this.entries) maps[file] = this.dirtyFiles.has(file) ? es.slice() : this.maps[file]!;
      this.maps = maps;
      this.dirtyFiles.clear();
    }
    return { backends, maps: this.maps };
  }

  private renderAll(state: RouterState, extra: readonly Route[]): void {
    this.synced = state;
    this.rows.clear();
    this.rowsByService.clear();
    const rows: Row[] = [];
    for (const [key, route] of state.routes) {
      const row = this.newRow(state, route);
      this.rows.set(key, row);
      this.indexByService(row);
      rows.push(row);
    }
    this.extraRows = extra.map((r) => this.newRow(state, r));
    rows.push(...this.extraRows);
    rows.sort((a, b) => compareKeys(a.sortKey, b.sortKey));
    this.sorted = rows;

    this.lines.clear();
    this.entries.clear();
    for (const f of MAP_FILES) this.lines.set(f, []);
    if (this.wildcard) this.lines.set(MAP_WILDCARD, []);
    for (const row of rows) for (const l of row.mapLines) this.lines.get(l.file)?.push(l);
    for (const [file, ls] of this.lines) {
      ls.sort((a, b) => compareMapLines(a.line, b.line));
      this.entries.set(file, ls.map((l) => l.entry));
      this.dirtyFiles.add(file);
    }
  }

  private renderChanged(state: RouterState, extra: readonly Route[]): void {
    for (const key of this.dirtyRoutes) {
      const route = state.routes.get(key);
      const row = this.rows.get(key);
      if (row !== undefined && row.route === route) continue;
      if (row !== undefined) {
        this.rows.delete(key);
        const list = this.rowsByService.get(row.serviceKey)!;
        list.splice(list.indexOf(row), 1);
        if (list.length === 0) this.rowsByService.delete(row.serviceKey);
        this.unplace(row);
      }
      if (route !== undefined) {
        const added = this.newRow(state, route);
        this.rows.set(key, added);
        this.indexByService(added);
        this.place(added);
      }
    }
    for (let i = 0; i < this.dirtyCount; i++) {
      const svc = this.dirtyServices[i]!;
      const rows = this.rowsByService.get(svc);
      if (rows === undefined) continue;
      const endpoints = state.endpoints.get(svc);
      // Only servers change: the row keeps its place and its map lines.
      for (const row of rows) if (row.endpoints !== endpoints) this.renderServers(row, endpoints);
    }
    this.renderExtra(state, extra);
  }

  /** Pool routes are few and handed over whole each time; they are re-placed only when the list changes. */
  private renderExtra(state: RouterState, extra: readonly Route[]): void {
    const old = this.extraRows;
    let same = extra.length === old.length;
    for (let i = 0; same && i < extra.length; i++) same = old[i]!.route === extra[i];
    if (same) {
      for (const row of old) {
        const endpoints = state.endpoints.get(row.serviceKey);
        if (row.endpoints !== endpoints) this.renderServers(row, endpoints);
      }
      return;
    }
    for (const row of old) this.unplace(row);
    this.extraRows = extra.map((r) => this.newRow(state, r));
    for (const row of this.extraRows) this.place(row);
  }

  private indexByService(row: Row): void {
    const list = this.rowsByService.get(row.serviceKey);
    if (list === undefined) this.rowsByService.set(row.serviceKey, [row]);
    else list.push(row);
  }

  /** Inserts the row's backend and map lines where a full sort would put them. */
  private place(row: Row): void {
    this.sorted.splice(lowerBound(this.sorted, row.sortKey, (r) => r.sortKey, compareKeys), 0, row);
    for (const l of row.mapLines) {
      const ls = this.lines.get(l.file);
      if (ls === undefined) continue;
      // After equal lines, as the stable full sort leaves later rows.
      const at = upperBound(ls, l.line, (x) => x.line, compareMapLines);
      ls.splice(at, 0, l);
      this.entries.get(l.file)!.splice(at, 0, l.entry);
      this.dirtyFiles.add(l.file);
    }
  }

  private unplace(row: Row): void {
    this.sorted.splice(this.sorted.indexOf(row, lowerBound(this.sorted, row.sortKey, (r) => r.sortKey, compareKeys)), 1);
    for (const l of row.mapLines) {
      const ls = this.lines.get(l.file);
      if (ls === undefined) continue;
      const at = ls.indexOf(l, lowerBound(ls, l.line, (x) => x.line, compareMapLines));
      ls.splice(at, 1);
      this.entries.get(l.file)!.splice(at, 1);
      this.dirtyFiles.add(l.file);
    }
  }

  private newRow(state: RouterState, route: Route): Row {
    const svc = serviceKey(route.namespace, route.service);
    const endpoints = state.endpoints.get(svc);
    const name = backendNameOf(route);
    const shape = backendShape(route, name, this.manager, this.slots);
    return {
      sortKey: aliasKey(route),
      serviceKey: svc,
      route,
      shape,
      mapLines: renderedMapEntries(route, name, { allowWildcardRoutes: this.wildcard }).map((e) => ({
        file: e.map,
        line: `${e.key} ${e.value}`,
        entry: { key: e.key, value: e.value },
      })),
      endpoints,
      backend: backendWithEndpoints(shape, endpoints ?? NO_ENDPOINTS, this.served, svc),
    };
  }

  private renderServers(row: Row, endpoints: readonly Endpoint[] | undefined): void {
    row.endpoints = endpoints;
    row.backend = backendWithEndpoints(row.shape, endpoints ?? NO_ENDPOINTS, this.served, row.serviceKey);
  }
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first index whose key is not before `key`. */
function lowerBound<T>(xs: readonly T[], key: string, keyOf: (x: T) => string, cmp: (a: string, b: string) => number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(keyOf(xs[mid]!), key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose key is after `key`. */
function upperBound<T>(xs: readonly T[], key: string, keyOf: (x: T) => string, cmp: (a: string, b: string) => number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(keyOf(xs[mid]!), key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
