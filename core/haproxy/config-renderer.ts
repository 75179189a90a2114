import type { Endpoint } from '../endpoint.ts';
import { routeKey, serviceKey, type Route } from '../route.ts';
import type { RouterState, StateChange } from '../router-state.ts';
import { recordLineage, type ListEdit } from '../list-lineage.ts';
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
  /** Its index in `sorted` when the edit log was `posSeq` long (see positionOf). */
  pos: number;
  posSeq: number;
}

interface MapLine {
  file: string;
  /** `<key> <value>`, the text the reload sorts. */
  line: string;
  entry: MapEntry;
}

const NO_ENDPOINTS: readonly Endpoint[] = [];

/** What a render reads of the state: the current one, or the state as a deferred render's reload saw it. */
interface StateView {
  readonly routes: { get(key: string): Route | undefined };
  readonly endpoints: { get(serviceKey: string): readonly Endpoint[] | undefined };
}
/** The deferred renderer's change log drops the changes no waiting config needs once they are this many. */
const UNDO_DROP_MIN = 4096;
/** Past this many noted services (or as many as have routes), the next render looks at every service. */
const ALL_DIRTY_MIN = 4096;

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
   * service twice is harmless (a row whose endpoints are current is skipped). A long stretch without a
   * render (reload-always's configs are rendered only when read; dcm-slots may go an hour) stops listing
   * once the list holds more names than there are services with routes: the next render then looks at
   * every service, which costs no more than the list would. Until 2 Dec 2026 the list was compacted through
   * a Set instead, which read every listed name's hash from memory: 2.4% of a reload-always replay of the
   * saturated day.
   */
  private readonly dirtyServices: string[] = [];
  /** How many of `dirtyServices` are current: the array keeps its length, so it is not regrown per reload. */
  private dirtyCount = 0;
  private allDirtyAt: number;
  /** Every service is to be looked at by the next render; `dirtyServices` is not kept meanwhile. */
  private allServicesDirty = false;
  /** Rows in template order. */
  private sorted: Row[] = [];
  /**
   * The backend list last handed out and the rows placed and taken out since, as edits of it (its lineage,
   * core/list-lineage.ts); `undefined` after a full render, which records no edits.
   */
  private handedOut: BackendConfig[] | undefined = undefined;
  private edits: ListEdit<BackendConfig>[] = [];
  /**
   * Each row's backend in step with `sorted`, and the rows rendered again since the last hand-out: a config's
   * backend list is this one copied, once those rows' places are set. Reading every row for its backend at
   * each reload read two thousand rows that had left the cache (2.3–2.6% of a dcm replay of the saturated
   * day). A row's place is its place when last known, moved by the places taken and given since: the edit
   * log, `sorted`'s splices in order (an insertion at `at` as `at`, a removal as `~at`), which `editBase`
   * numbers from. Searching by sort key instead compared keys that had left the cache, and cost more.
   */
  private backendsInOrder: BackendConfig[] = [];
  private rerendered: Row[] = [];
  private editLog: number[] = [];
  private editBase = 0;
  /** Rows found by their sort key: those last placed before the edits the log keeps, and none else. */
  searched = 0;
  /**
   * Each map file's lines in file order, their entries in the same order (kept in step), and the entry
   * lists last handed out. A reload hands out a copy of a changed file's entries, since the config it
   * starts must not see later changes: copying the list whole is a memory copy, where mapping each line to
   * its entry cost 3% of a reload-always replay of a saturated day (1 Dec 2026).
   */
  private readonly lines = new Map<string, MapLine[]>();
  private readonly entries = new Map<string, MapEntry[]>();
  private readonly dirtyFiles = new Set<string>();
  /**
   * Each map file's lines placed and taken out since its last hand-out, as edits of that list (its lineage,
   * for the mock's entries at load); none while `mapsWhole`, after a full render.
   */
  private readonly mapEdits = new Map<string, ListEdit<MapEntry>[]>();
  private mapsWhole = true;
  private maps: Record<string, MapEntry[]> = {};
  /** See `deferred` in the constructor. */
  private readonly deferred: boolean;
  private readonly allDirtyMin: number;
  private readonly refindCost: number;
  private readonly editLogMax: number;
  /** Deferred configs not yet read, oldest first (at most two: see defer). */
  private pending: DeferredJob[] = [];
  /**
   * Every change noted while a deferred config waits, in order: the key and what it held before (a route
   * or undefined under a route key; a service's endpoints under a service key). Undone newest first, they
   * give the state a waiting config's reload saw. `undoBase` is the position of undoKeys[0] in the whole
   * sequence of changes, so a config's mark stays valid when the head is dropped.
   */
  private undoKeys: string[] = [];
  private undoRoute: boolean[] = [];
  private undoBefore: (Route | readonly Endpoint[] | undefined)[] = [];
  private undoBase = 0;
  /** Entries before this one are no waiting config's: their `before` is already let go. */
  private undoLive = 0;

  /**
   * `deferred`: a render after the first returns a config that renders itself when first read, as the
   * state was when it was asked for. Reload-always's configs are read by nothing but the invariant checker
   * (no runtime API), so a replay that checks at the end renders one config, not one per reload: the
   * render was 10-24% of such a replay. A config must be read before the second render after it (by
   * then its reload has ended and the next has too: HAProxy runs a later one); reading it later throws.
   * `tuning` is for tests, which change it to take each path often (RendererTuning).
   */
  constructor(
    opts: RenderOptions,
    deferred = false,
    tuning: RendererTuning = {},
  ) {
    this.allDirtyMin = tuning.allDirtyMin ?? ALL_DIRTY_MIN;
    this.refindCost = tuning.refindCost ?? REFIND_COST;
    this.editLogMax = tuning.editLogMax ?? EDIT_LOG_MAX;
    this.allDirtyAt = this.allDirtyMin;
    this.manager = opts.manager ?? (opts.maxDynamicServers > 0 ? 'slots' : 'none');
    this.slots = this.manager === 'slots' ? opts.maxDynamicServers : 0;
    this.wildcard = opts.allowWildcardRoutes === true;
    this.served = opts.served;
    this.deferred = deferred;
  }

  /** Every change applied to the state since the last render must be noted before the next render. */
  note(change: StateChange): void {
    switch (change.kind) {
      case 'route.added': {
        const key = routeKey(change.route);
        this.dirtyRoutes.add(key);
        if (this.pending.length > 0) this.remember(key, true, undefined);
        return;
      }
      case 'route.removed': {
        const key = routeKey(change.route);
        this.dirtyRoutes.add(key);
        if (this.pending.length > 0) this.remember(key, true, change.route);
        return;
      }
      case 'route.modified': {
        const key = routeKey(change.after);
        this.dirtyRoutes.add(key);
        if (this.pending.length > 0) this.remember(key, true, change.before);
        return;
      }
      case 'endpoints.changed':
        if (!this.allServicesDirty) {
          this.dirtyServices[this.dirtyCount++] = change.key;
          if (this.dirtyCount > this.allDirtyAt) this.allServicesDirty = true;
        }
        // The state holds no list for a service without endpoints: undone, it has none again.
        if (this.pending.length > 0) this.remember(change.key, false, change.before.length === 0 ? undefined : change.before);
        return;
      case 'blueprint.changed':
        // Blueprints reach the config only as the pool routes the caller passes as `extra`.
        return;
    }
  }

  private remember(key: string, route: boolean, before: Route | readonly Endpoint[] | undefined): void {
    this.undoKeys.push(key);
    this.undoRoute.push(route);
    this.undoBefore.push(before);
  }

  /** The route object the last render wrote under this route key, if any. */
  renderedRoute(key: string): Route | undefined {
    if (this.deferred) throw new Error('renderedRoute: a deferred renderer has no last render to ask');
    return this.rows.get(key)?.route;
  }

  /** The config for `state` plus `extra` backends (pool slot routes, rendered as ordinary routes). */
  render(state: RouterState, extra: readonly Route[] = []): HaproxyConfig {
    if (this.deferred && this.synced === state) return this.defer(state, extra);
    if (this.synced !== state) {
      // Another state, rendered whole: configs waiting on the old one could no longer be rendered.
      for (const dead of this.pending) dead.dead = true;
      this.pending.length = 0;
      this.renderAll(state, extra);
    }
    else this.renderChanged(state, extra);
    this.dirtyRoutes.clear();
    this.servicesRendered();
    return this.handOut();
  }

  /**
   * A config that renders when first read. The one handed out before it may still be read (HAProxy runs
   * it until this one's reload ends); any older one cannot be, and is dropped with the changes only it
   * needed.
   */
  private defer(state: RouterState, extra: readonly Route[]): HaproxyConfig {
    const pending = this.pending;
    if (pending.length > 1) {
      for (const dead of pending.splice(0, pending.length - 1)) dead.dead = true;
      // The changes before the waiting config's mark are needed no more: what they held is let go at once
      // (kept, the replaced endpoint lists lived on into the old generation), the entries dropped in bulk.
      const keepFrom = pending[0]!.mark - this.undoBase;
      for (let i = this.undoLive; i < keepFrom; i++) this.undoBefore[i] = undefined;
      this.undoLive = keepFrom;
      if (keepFrom >= UNDO_DROP_MIN && keepFrom * 2 >= this.undoKeys.length) {
        this.undoLive = 0;
        this.undoKeys.splice(0, keepFrom);
        this.undoRoute.splice(0, keepFrom);
        this.undoBefore.splice(0, keepFrom);
        this.undoBase += keepFrom;
      }
    }
    if (pending.length === 0) {
      // No change is noted without a waiting config: the log starts afresh here.
      this.undoBase += this.undoKeys.length;
      this.undoLive = 0;
      this.undoKeys.length = 0;
      this.undoRoute.length = 0;
      this.undoBefore.length = 0;
    }
    const job: DeferredJob = { state, mark: this.undoBase + this.undoKeys.length, extra, dead: false, rendered: undefined };
    pending.push(job);
    return new DeferredConfig(this, job);
  }

  /** Renders a deferred config, and any handed out before it, as the state was when each was asked for. */
  materialize(job: DeferredJob): Rendered {
    if (job.dead) throw new Error('a deferred config was read after it could no longer be rendered: a later reload ended, or another state was rendered whole (see ConfigRenderer)');
    for (;;) {
      const next = this.pending.shift()!;
      next.rendered = this.renderAt(next);
      if (next === job) return next.rendered;
    }
  }

  /** The state `config` was asked for (the current one with every later change undone), rendered. */
  private renderAt(config: DeferredJob): Rendered {
    const from = config.mark - this.undoBase;
    const routesBefore = new Map<string, Route | undefined>();
    const endpointsBefore = new Map<string, readonly Endpoint[] | undefined>();
    // Newest first, so the change nearest the mark has the last word.
    for (let i = this.undoKeys.length - 1; i >= from; i--) {
      if (this.undoRoute[i]) routesBefore.set(this.undoKeys[i]!, this.undoBefore[i] as Route | undefined);
      else endpointsBefore.set(this.undoKeys[i]!, this.undoBefore[i] as readonly Endpoint[] | undefined);
    }
    const state = config.state;
    const view: StateView =
      routesBefore.size === 0 && endpointsBefore.size === 0
        ? state
        : {
            routes: { get: (k) => (routesBefore.has(k) ? routesBefore.get(k) : state.routes.get(k)) },
            endpoints: { get: (k) => (endpointsBefore.has(k) ? endpointsBefore.get(k) : state.endpoints.get(k)) },
          };
    this.renderChanged(view, config.extra);
    // What changed after the mark is still to render, for the next config.
    this.dirtyRoutes.clear();
    for (const k of routesBefore.keys()) this.dirtyRoutes.add(k);
    this.servicesRendered();
    for (const k of endpointsBefore.keys()) this.dirtyServices[this.dirtyCount++] = k;
    return this.handOut();
  }

  /** The rows as a config: a new backend list, and each map file's entries, copied if changed since the last. */
  private handOut(): Rendered {
    const sorted = this.sorted;
    const inOrder = this.backendsInOrder;
    const rerendered = this.rerendered;
    if (rerendered.length * this.refindCost > sorted.length) {
      for (let i = 0; i < sorted.length; i++) inOrder[i] = sorted[i]!.backend;
    } else {
      for (const row of rerendered) {
        const at = this.positionOf(row);
        if (at >= 0) inOrder[at] = row.backend;
      }
    }
    rerendered.length = 0;
    const backends = inOrder.slice();
    if (this.handedOut !== undefined) recordLineage(backends, this.handedOut, this.edits);
    this.handedOut = backends;
    this.edits = [];
    if (this.dirtyFiles.size > 0) {
      const maps: Record<string, MapEntry[]> = {};
      for (const [file, es] of this.entries) {
        const last = this.maps[file];
        if (!this.dirtyFiles.has(file)) {
          maps[file] = last!;
          continue;
        }
        const copy = es.slice();
        if (!this.mapsWhole && last !== undefined) recordLineage(copy, last, this.mapEdits.get(file) ?? NO_EDITS);
        maps[file] = copy;
      }
      this.maps = maps;
      this.dirtyFiles.clear();
      this.mapEdits.clear();
      this.mapsWhole = false;
    }
    return { backends, maps: this.maps };
  }

  private renderAll(state: RouterState, extra: readonly Route[]): void {
    this.synced = state;
    this.handedOut = undefined;
    this.mapsWhole = true;
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
    this.editBase += this.editLog.length;
    this.editLog = [];
    for (let i = 0; i < rows.length; i++) {
      rows[i]!.pos = i;
      rows[i]!.posSeq = this.editBase;
    }
    this.backendsInOrder = rows.map((r) => r.backend);
    this.rerendered.length = 0;

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

  private renderChanged(state: StateView, extra: readonly Route[]): void {
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
    if (this.allServicesDirty) {
      for (const [svc, rows] of this.rowsByService) this.renderServiceRows(rows, state.endpoints.get(svc));
    } else {
      for (let i = 0; i < this.dirtyCount; i++) {
        const svc = this.dirtyServices[i]!;
        const rows = this.rowsByService.get(svc);
        if (rows !== undefined) this.renderServiceRows(rows, state.endpoints.get(svc));
      }
    }
    this.renderExtra(state, extra);
  }

  /** Only servers change: each row keeps its place and its map lines. */
  private renderServiceRows(rows: readonly Row[], endpoints: readonly Endpoint[] | undefined): void {
    for (const row of rows) if (row.endpoints !== endpoints) this.renderServers(row, endpoints);
  }

  /** The noted services are rendered: listing starts again, up to as many as now have routes. */
  private servicesRendered(): void {
    this.dirtyCount = 0;
    this.allServicesDirty = false;
    this.allDirtyAt = Math.max(this.allDirtyMin, this.rowsByService.size);
  }

  /** Pool routes are few and handed over whole each time; they are re-placed only when the list changes. */
  private renderExtra(state: StateView, extra: readonly Route[]): void {
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
    const at = lowerBound(this.sorted, row.sortKey, (r) => r.sortKey, compareKeys);
    this.sorted.splice(at, 0, row);
    this.backendsInOrder.splice(at, 0, row.backend);
    this.edits.push({ at, insert: true, value: row.backend });
    this.logEdit(at);
    row.pos = at;
    row.posSeq = this.editBase + this.editLog.length;
    for (const l of row.mapLines) {
      const ls = this.lines.get(l.file);
      if (ls === undefined) continue;
      // After equal lines, as the stable full sort leaves later rows.
      const at = upperBound(ls, l.line, (x) => x.line, compareMapLines);
      ls.splice(at, 0, l);
      this.entries.get(l.file)!.splice(at, 0, l.entry);
      this.mapEditsOf(l.file).push({ at, insert: true, value: l.entry });
      this.dirtyFiles.add(l.file);
    }
  }

  private unplace(row: Row): void {
    const at = this.positionOf(row);
    this.sorted.splice(at, 1);
    this.backendsInOrder.splice(at, 1);
    this.edits.push({ at, insert: false, value: row.backend });
    this.logEdit(~at);
    for (const l of row.mapLines) {
      const ls = this.lines.get(l.file);
      if (ls === undefined) continue;
      const at = ls.indexOf(l, lowerBound(ls, l.line, (x) => x.line, compareMapLines));
      ls.splice(at, 1);
      this.entries.get(l.file)!.splice(at, 1);
      this.mapEditsOf(l.file).push({ at, insert: false, value: l.entry });
      this.dirtyFiles.add(l.file);
    }
  }

  private newRow(state: StateView, route: Route): Row {
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
      pos: -1,
      posSeq: -1,
    };
  }

  private renderServers(row: Row, endpoints: readonly Endpoint[] | undefined): void {
    row.endpoints = endpoints;
    row.backend = backendWithEndpoints(row.shape, endpoints ?? NO_ENDPOINTS, this.served, row.serviceKey);
    this.rerendered.push(row);
  }

  private mapEditsOf(file: string): ListEdit<MapEntry>[] {
    let edits = this.mapEdits.get(file);
    if (edits === undefined) this.mapEdits.set(file, (edits = []));
    return edits;
  }

  private logEdit(edit: number): void {
    const log = this.editLog;
    if (log.length >= this.editLogMax) {
      // Rows last placed before the kept part are found by their sort key.
      const drop = log.length >> 1;
      log.splice(0, drop);
      this.editBase += drop;
    }
    log.push(edit);
  }

  /** The row's index in `sorted`, or -1 if it is not there: its last known place moved by the edits since. */
  private positionOf(row: Row): number {
    const sorted = this.sorted;
    const log = this.editLog;
    const now = this.editBase + log.length;
    let pos = row.pos;
    if (row.posSeq >= this.editBase) {
      for (let k = row.posSeq - this.editBase; k < log.length && pos >= 0; k++) {
        const e = log[k]!;
        if (e >= 0) {
          if (e <= pos) pos++;
        } else if (~e < pos) pos--;
        else if (~e === pos) pos = -1;
      }
    } else {
      pos = -1;
    }
    if (pos < 0 || sorted[pos] !== row) {
      this.searched++;
      pos = -1;
      for (let i = lowerBound(sorted, row.sortKey, (r) => r.sortKey, compareKeys); i < sorted.length && sorted[i]!.sortKey === row.sortKey; i++) {
        if (sorted[i] === row) {
          pos = i;
          break;
        }
      }
      if (pos < 0) return -1;
    }
    row.pos = pos;
    row.posSeq = now;
    return pos;
  }
}

const NO_EDITS: readonly ListEdit<MapEntry>[] = [];

/** What tests change to take each of the renderer's paths often; the defaults otherwise. */
export interface RendererTuning {
  /** ALL_DIRTY_MIN. */
  allDirtyMin?: number;
  /** REFIND_COST: 0 always finds the rows rendered again one by one. */
  refindCost?: number;
  /** EDIT_LOG_MAX: small, rows are often found by their sort key. */
  editLogMax?: number;
}

/**
 * Past this share of rows rendered again (one in REFIND_COST), the backend list is read from every row in
 * order rather than each of those rows put in its place.
 */
const REFIND_COST = 8;
/** Edits kept in the log; a row last placed before the kept ones is found by its sort key. */
const EDIT_LOG_MAX = 4096;

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

type Rendered = { backends: BackendConfig[]; maps: Record<string, MapEntry[]> };

/** A deferred render waiting to be read: the state it is of, and how many changes had been noted by then. */
interface DeferredJob {
  readonly state: RouterState;
  readonly mark: number;
  readonly extra: readonly Route[];
  /** It can no longer be rendered: a later reload ended, or another state was rendered whole. */
  dead: boolean;
  rendered: Rendered | undefined;
}

/**
 * A config rendered when first read (ConfigRenderer's `deferred`). JSON of it is that of the plain config.
 * Its fields are accessors on the prototype: defined on each config, they were 0.4% of a reload-always
 * replay of the saturated day's first 200,000 events.
 */
class DeferredConfig implements HaproxyConfig {
  constructor(
    private readonly renderer: ConfigRenderer,
    private readonly job: DeferredJob,
  ) {}

  get backends(): BackendConfig[] {
    return (this.job.rendered ?? this.renderer.materialize(this.job)).backends;
  }

  get maps(): Record<string, MapEntry[]> {
    return (this.job.rendered ?? this.renderer.materialize(this.job)).maps;
  }

  toJSON(): HaproxyConfig {
    return { backends: this.backends, maps: this.maps };
  }
}
