import type { Endpoint } from '../endpoint.ts';
import { findMatchingBlueprint, POOL_NAMESPACE } from '../dcm/blueprints.ts';
import { deletesAny, stageEndpointReplace } from '../dcm/endpoint-diff.ts';
import { BlueprintPool } from '../dcm/pool.ts';
import { RoutesSinceRender } from '../dcm/routes-since-render.ts';
import { commitCommandsOf, RuntimeView, type CachedServer } from '../dcm/runtime-view.ts';
import * as cmd from '../haproxy/commands.ts';
import type { RuntimeCommand } from '../haproxy/commands.ts';
import type { HaproxyConfig } from '../haproxy/config-model.ts';
import { dynamicMapEntries, type MapAssociation } from '../haproxy/map-entries.ts';
import { backendNameOf, preferPortOf, routingKeyName, servedEndpoints, servedForRoute, type ServedEndpoint } from '../haproxy/names.ts';
import { ConfigRenderer } from '../haproxy/config-renderer.ts';
import type { ReloadReason } from '../reload-reason.ts';
import { routeKey, type Route } from '../route.ts';
import { endpointsOf, type RouterState, type StateChange } from '../router-state.ts';
import { NotFoundError, retryCommand, RuntimeApiError, runAccepted, unexpectedReply } from '../runtime-client.ts';
import type { RuntimeProgram } from '../runtime-effect.ts';
import type { RouterStrategy, StrategyContext } from '../strategy.ts';
import { sameServed, ServiceIndex, type ServiceRecord } from './service-index.ts';

export interface DcmSlotsOptions {
  maxDynamicServers: number;
  blueprintPoolSize: number;
  /** Custom blueprints configured at start (ROUTER_BLUEPRINT_ROUTE_NAMESPACE routes present at start). */
  customBlueprints?: readonly Route[];
  /** ROUTER_BLUEPRINT_ROUTE_NAMESPACE: routes there are blueprints too (blueprint_plugin.go). "" = none. */
  blueprintNamespace?: string;
  allowWildcardRoutes?: boolean;
}

/** The manager's per-route bookkeeping (routeBackendEntry). */
interface Entry {
  route: Route;
  /** The route's own backend, `be_*:<ns>:<name>`; exists in HAProxy once a reload wrote it. */
  backendName: string;
  /**
   * What an endpoint change reads of the route, read once: its target port, and the weight its servers
   * take. Reading them from the route on every change was a cache miss on the route object each time.
   */
  readonly preferPort: string | undefined;
  readonly weight: '100%' | '1';
  /** The pool slot backend while the route is served from the pool. */
  poolSlot: string | null;
  /** Map entries added for it at runtime (keys matter for deletion). */
  mapEntries: MapAssociation[] | null;
  /** `_dynamic-pod-N` → endpoint ID; null while no slot is mapped (SlotHolder). */
  slotMap: Map<string, string> | null;
  /** Why its dynamic add failed, if it did: later failures on its missing backend report the same reason. */
  pendingReason: ReloadReason | null;
  /** The reload period its slot state belongs to: reached in a later one, it starts afresh (see `current`). */
  epoch: number;
  /** Still what `entries` holds under its route's key (a service record may then hand it out). */
  live: boolean;
}

/** A dynamic change could not be made: the router falls back to a reload for this reason. */
class Fallback {
  // A plain object, not an Error: it is control flow, thrown and caught within this file (see RuntimeApiError).
  constructor(
    readonly reason: ReloadReason,
    readonly detail: string,
  ) {}
}

/**
 * dcm-slots: the 2018 dynamic config manager (openshift/router pkg/router/template/configmanager/haproxy,
 * as it stood until 2026-02, and router.go's dynamicallyAddRoute/RemoveRoute/ReplaceEndpoints).
 * Route adds take a free slot of a matching blueprint's pool; endpoint changes fill `_dynamic-pod-N`
 * slots and set removed servers to maint; anything it cannot do falls back to a reload with a reason.
 */
export class DcmSlotsStrategy implements RouterStrategy {
  readonly name = 'dcm-slots' as const;
  readonly blueprintPlugin = true;
  readonly keepsAlikeEndpoints = true;
  private readonly pool: BlueprintPool;
  private readonly view = new RuntimeView();
  /**
   * Entries by route key. Upstream drops the entries of the routes a reload wrote when it ends; here they
   * stay, and one reached in a later reload period is cleared then (`current`), which is the same: the route
   * object is the same, so is its backend name, and everything else starts empty. Dropping them made an
   * entry, a slot map and two lookups per endpoint event, 2.6% of a dcm-slots replay of the day slice (the
   * saturated-day bench log's first 200,000 events, commit 9a213a8), since a route's endpoints rarely change
   * twice between reloads.
   */
  private readonly entries = new Map<string, Entry>();
  /** Reload periods ended (the entries' epoch). */
  private epoch = 0;
  /**
   * The entries that mapped a slot in this reload period. A reload's end empties every slot map, these at
   * once: left to the entry's next change, thousands of events on, a map dead since the reload would be
   * copied by each scavenge until promoted, for it hangs from an entry in the old generation.
   */
  private readonly slotted: Entry[] = [];
  /** Route keys removed since the last reload ended: their entries go then, unless the route came back. */
  private readonly removedKeys = new Set<string>();
  private readonly sinceRender = new RoutesSinceRender();
  private readonly backendNames = new WeakMap<Route, string>();
  private readonly index = new ServiceIndex<Entry>();
  private loaded = false;
  private indexed = false;
  private seeded = false;
  private readonly renderer: ConfigRenderer;

  constructor(private readonly opts: DcmSlotsOptions) {
    if (!(opts.maxDynamicServers >= 1)) throw new Error('dcm-slots needs maxDynamicServers >= 1');
    this.pool = new BlueprintPool(opts.blueprintPoolSize, opts.customBlueprints ?? []);
    this.renderer = new ConfigRenderer({ maxDynamicServers: opts.maxDynamicServers, manager: 'slots', allowWildcardRoutes: opts.allowWildcardRoutes === true, served: this.index });
  }

  onChange(change: StateChange, state: RouterState, ctx: StrategyContext): RuntimeProgram<unknown> | void {
    this.renderer.note(change);
    if (change.kind === 'route.added') this.sinceRender.changed(change.route, this.renderer.renderedRoute(routeKey(change.route)));
    else if (change.kind === 'route.modified') this.sinceRender.changed(change.after, this.renderer.renderedRoute(routeKey(change.after)));
    else if (change.kind === 'route.removed') this.removedKeys.add(routeKey(change.route));
    if (change.kind === 'blueprint.changed') {
      // AddBlueprint/RemoveBlueprint (re)provision pool routes: when that changes the router's routes, it reloads.
      if (this.pool.applyChange(change.before, change.after)) ctx.requestReload('blueprint-change');
      return;
    }
    if (!this.loaded) {
      // Before the first reload ends HAProxy has no config to change: a change that reaches the manager is
      // refused (isReloading) and the router reloads again. Only changes through a route reach it: router.go
      // AddEndpoints returns on an EndpointTable DeepEqual to the old one (not-ready addresses are not in it)
      // and calls the manager only for the service's routes (DeleteEndpoints likewise).
      this.syncIndex(change, state);
      // The blueprint plugin's own controller watches the blueprint namespace all along (AddBlueprint and
      // RemoveBlueprint are not refused during a reload): the pool learns of a change there now.
      if (this.seeded) this.watchBlueprintNamespace(change, ctx);
      if (this.reachesManager(change)) ctx.requestReload(ctx.reloadInProgress ? 'reload-in-progress' : 'initial');
      return;
    }
    this.watchBlueprintNamespace(change, ctx);
    switch (change.kind) {
      case 'route.added':
        this.index.add(change.route);
        return this.guard(ctx, this.addRoute(change.route, state, ctx));
      case 'route.removed':
        this.index.remove(change.route);
        return this.guard(ctx, this.removeRoute(change.route, ctx));
      case 'route.modified':
        this.index.remove(change.before);
        this.index.add(change.after);
        // A modify is remove + add; both are attempted whatever the first one's outcome (router.go AddRoute).
        return this.modifyRoute(change.before, change.after, state, ctx);
      case 'endpoints.changed': {
        const rec = this.index.recordAt(change.entry);
        if (rec === undefined) return;
        const keys = rec.routes;
        const oldServed = rec.served.of(change.service, change.before);
        const newServed = rec.served.of(change.service, change.after);
        if (change.deleted && oldServed.length === 0) {
          // DeleteEndpoints of endpoints already empty: RemoveRouteEndpoints has nothing to disable, yet it
          // is refused during a reload, and otherwise arms the commit timer, finds each route's backend and
          // commits it.
          if (ctx.reloadInProgress) {
            ctx.requestReload('reload-in-progress', `reload in progress, cannot dynamically delete endpoints of ${keys[0]}`);
            return;
          }
          ctx.armCommitTimer();
          return this.commitServiceBackends(rec, ctx);
        }
        if (sameServed(oldServed, newServed)) return;
        if (ctx.reloadInProgress) return this.refuseServiceEndpoints(rec, ctx);
        // DeleteEndpoints → RemoveRouteEndpoints defers scheduleRouterReload before anything can fail.
        if (change.deleted) ctx.armCommitTimer();
        return this.replaceServiceEndpoints(rec, oldServed, newServed, ctx, change.deleted);
      }
    }
  }

  /** The index before the first reload ends: built from the state at the first change, then kept. */
  private syncIndex(change: StateChange, state: RouterState): void {
    if (!this.indexed) {
      this.index.rebuild(state);
      this.indexed = true;
      return;
    }
    if (change.kind === 'route.added') this.index.add(change.route);
    else if (change.kind === 'route.removed') this.index.remove(change.route);
    else if (change.kind === 'route.modified') {
      this.index.remove(change.before);
      this.index.add(change.after);
    }
  }

  /** Whether the change reaches the config manager: a route's, or endpoints its routes serve that changed. */
  private reachesManager(change: StateChange): boolean {
    if (change.kind !== 'endpoints.changed') return true;
    const rec = this.index.recordAt(change.entry);
    if (rec === undefined) return false;
    return change.deleted || !sameServed(rec.served.of(change.service, change.before), rec.served.of(change.service, change.after));
  }

  render(state: RouterState): HaproxyConfig {
    if (!this.seeded) this.seedBlueprints(state);
    this.sinceRender.rendered();
    return this.renderer.render(state, this.pool.poolRoutes());
  }

  /** Notify(RouterEventReloadEnd) → reset(): every slot free, slot maps cleared, client caches dropped. */
  onReloaded(state: RouterState): void {
    this.loaded = true;
    this.pool.reset();
    this.view.reset();
    // Entries of routes the reload wrote start afresh (when next reached: see `current`); routes changed
    // meanwhile keep the reason their backend is missing (a reload is pending for them).
    const kept = this.sinceRender.kept(this.entries, state.routes);
    this.epoch++;
    for (const e of this.slotted) e.slotMap = null;
    this.slotted.length = 0;
    for (const [, e] of kept) {
      // Only an entry of the period now ended is kept: an older one was dropped at an earlier reload's end.
      if (e.epoch !== this.epoch - 1) continue;
      e.poolSlot = null;
      e.mapEntries = null;
      e.slotMap = null;
      e.epoch = this.epoch;
    }
    // A removal refused during a reload leaves its entry: gone with the route, unless the route came back.
    for (const key of this.removedKeys) {
      const e = this.entries.get(key);
      if (e !== undefined && state.routes.get(key) !== e.route) this.dropEntry(key, e);
    }
    this.removedKeys.clear();
    // Changes before the first reload ends skip the index (see onChange); every later one keeps it current.
    if (this.indexed) return;
    this.index.rebuild(state);
    this.indexed = true;
  }

  private seedBlueprints(state: RouterState): void {
    this.seeded = true;
    this.pool.seed(state, this.opts.blueprintNamespace ?? '');
  }

  /** The blueprint plugin: a route change in the blueprint namespace is also a blueprint change (a reload). */
  private watchBlueprintNamespace(change: StateChange, ctx: StrategyContext): void {
    const ns = this.opts.blueprintNamespace ?? '';
    if (ns.length === 0) return;
    let changed: boolean;
    if (change.kind === 'route.added' && change.route.namespace === ns) {
      changed = this.pool.upsert(change.route);
    } else if (change.kind === 'route.modified' && change.after.namespace === ns) {
      changed = this.pool.upsert(change.after);
    } else if (change.kind === 'route.removed' && change.route.namespace === ns) {
      changed = this.pool.remove(change.route.name);
    } else {
      return;
    }
    if (changed) ctx.requestReload('blueprint-change');
  }

  /** Pool slot → route key, for checks. */
  poolUsage(): ReadonlyMap<string, string> {
    return this.pool.usageSnapshot();
  }

  // ---- programs ------------------------------------------------------------------------------------

  /** Runs a step; a Fallback or client error becomes a reload request with its reason. */
  private *guard(ctx: StrategyContext, step: RuntimeProgram<void>): RuntimeProgram<void> {
    try {
      yield* step;
    } catch (e) {
      this.fallBack(ctx, e);
    }
  }

  private fallBack(ctx: StrategyContext, e: unknown): void {
    if (e instanceof Fallback) {
      // The request's detail says why; a note repeating it was one more output line per fallback.
      ctx.requestReload(e.reason, e.detail);
    } else if (e instanceof RuntimeApiError) {
      ctx.runtimeError(e.message);
      ctx.requestReload('runtime-api-error');
    } else {
      throw e;
    }
  }

  /** Register(): the entry for a route, created from the route as the router currently has it. */
  private entryOf(route: Route, key = routeKey(route)): Entry {
    const e = this.entries.get(key);
    if (e !== undefined && e.route === route) return this.current(e);
    if (e !== undefined) e.live = false;
    const fresh: Entry = {
      route,
      backendName: this.backendNameOf(route),
      poolSlot: null,
      mapEntries: null,
      preferPort: preferPortOf(route),
      // Passthrough backends take a relative weight: 100% (absolute weights hung the 2018 API).
      weight: route.tls?.termination === 'passthrough' ? '100%' : '1',
      slotMap: null,
      pendingReason: null,
      epoch: this.epoch,
      live: true,
    };
    this.entries.set(key, fresh);
    return fresh;
  }

  /** The entry as upstream has it in this reload period: one from an earlier period starts afresh. */
  private current(e: Entry): Entry {
    if (e.epoch !== this.epoch) {
      e.poolSlot = null;
      e.mapEntries = null;
      // Dropped rather than cleared: it has not been read since the last period, and reading it (its size,
      // or clear) was a cache miss, 1.2% of a dcm-slots replay of the day slice.
      e.slotMap = null;
      e.pendingReason = null;
      e.epoch = this.epoch;
    }
    return e;
  }

  /** entryOf for the service's i-th route, kept in its record: no lookup by route key while it stays. */
  private entryAt(rec: ServiceRecord<Entry>, i: number): Entry {
    const route = rec.routeObjects[i]!;
    const kept = rec.routeData[i];
    if (kept !== undefined && kept.live && kept.route === route) return this.current(kept);
    const e = this.entryOf(route, rec.routes[i]!);
    rec.routeData[i] = e;
    return e;
  }

  private dropEntry(key: string, e: Entry): void {
    e.live = false;
    this.entries.delete(key);
  }

  /**
   * backendNameOf, once per route object: a reload drops the entries of the routes it wrote, so their next
   * endpoint change builds them again, and the same name string keeps its hash for every lookup by it.
   */
  private backendNameOf(route: Route): string {
    let name = this.backendNames.get(route);
    if (name === undefined) {
      name = backendNameOf(route);
      this.backendNames.set(route, name);
    }
    return name;
  }

  private *modifyRoute(before: Route, after: Route, state: RouterState, ctx: StrategyContext): RuntimeProgram<void> {
    yield* this.guard(ctx, this.removeRoute(before, ctx));
    yield* this.guard(ctx, this.addRoute(after, state, ctx));
  }

  /** dynamicallyAddRoute → AddRoute, then ReplaceRouteEndpoints([] → current endpoints) on the slot. */
  private *addRoute(route: Route, state: RouterState, ctx: StrategyContext): RuntimeProgram<void> {
    const entry = this.entryOf(route);
    const refuse = (reason: ReloadReason, detail: string): never => {
      entry.pendingReason = reason;
      throw new Fallback(reason, detail);
    };
    if (ctx.reloadInProgress) refuse('reload-in-progress', `reload in progress, cannot dynamically add route ${routeKey(route)}`);
    if (route.namespace === POOL_NAMESPACE) refuse('route-change', `managed pool blueprint route ${routeKey(route)} ignored`);
    const bp = findMatchingBlueprint(route, this.pool.blueprints);
    if (bp === undefined) refuse('no-blueprint-match', `no blueprint found that would match route ${routeKey(route)}`);
    // manager.go AddRoute defers scheduleRouterReload here, once a blueprint matched: every later failure
    // (no free slot, a map or backend call) still arms the commit timer.
    ctx.armCommitTimer();
    const slot = this.pool.findFreeSlot(bp!);
    if (slot === undefined) refuse('pool-exhausted', `no ${POOL_NAMESPACE}:${bp!.route.name} free pool slot available for ${routeKey(route)}`);

    this.pool.take(slot!, routeKey(route));
    entry.poolSlot = slot!;
    entry.mapEntries = dynamicMapEntries(route, slot!, { allowWildcardRoutes: this.opts.allowWildcardRoutes === true });
    try {
      yield* this.view.applyMapAssociations(entry.mapEntries, true);
      yield* this.view.findBackend(slot!);
      yield* runAccepted(cmd.setDynamicCookieKey(slot!, routingKeyName(route)));
      yield* runAccepted(cmd.enableDynamicCookie(slot!));
    } catch (e) {
      entry.pendingReason = 'runtime-api-error';
      throw e;
    }

    const served = servedForRoute(this.servedNow(route, state), preferPortOf(route));
    yield* this.replaceEndpoints(entry, NO_SERVED, served, ctx);
  }

  /** RemoveRoute: delete its map entries, free its slot, set every server of its backend to maint. */
  private *removeRoute(route: Route, ctx: StrategyContext): RuntimeProgram<void> {
    const key = routeKey(route);
    if (ctx.reloadInProgress) throw new Fallback('reload-in-progress', `reload in progress, cannot dynamically remove route ${key}`);
    if (route.namespace === POOL_NAMESPACE) throw new Fallback('route-change', `managed pool blueprint route ${key} ignored`);
    // manager.go RemoveRoute defers scheduleRouterReload here: it arms whatever follows.
    ctx.armCommitTimer();
    // Upstream finds whatever entry this period has under the key (an earlier period's is gone there).
    const found = this.entries.get(key);
    const entry = found !== undefined && (found.epoch === this.epoch || found.route === route) ? this.current(found) : this.entryOf(route, key);
    const backend = entry.poolSlot ?? entry.backendName;
    const mapEntries = entry.mapEntries ?? dynamicMapEntries(entry.route, backend, { allowWildcardRoutes: this.opts.allowWildcardRoutes === true });
    try {
      yield* this.view.applyMapAssociations(mapEntries, false);
    } catch (e) {
      // Upstream logs and continues despite errors removing map associations.
      if (!(e instanceof RuntimeApiError)) throw e;
      ctx.note(`dcm-slots: continuing despite errors removing map entries of ${key}: ${e.message}`);
    }
    if (entry.poolSlot !== null) this.pool.release(entry.poolSlot);
    this.dropEntry(key, entry);
    yield* this.findBackendOf(entry, backend);
    const servers = yield* this.view.serversOf(backend);
    for (const s of servers) s.nextState = 'maint';
    yield* this.view.commit(backend);
  }

  /**
   * AddEndpoints → dynamicallyReplaceEndpoints: every route of the service, stopping at the first failure.
   * A service of one route is that route's program itself, one generator per change.
   */
  private replaceServiceEndpoints(
    rec: ServiceRecord<Entry>,
    oldServed: readonly ServedEndpoint[],
    newServed: readonly ServedEndpoint[],
    ctx: StrategyContext,
    deleting: boolean,
  ): RuntimeProgram<unknown> | void {
    if (rec.routes.length === 1) return this.replaceRouteEndpoints(rec, 0, oldServed, newServed, ctx, deleting);
    return this.replaceEachRouteEndpoints(rec, oldServed, newServed, ctx, deleting);
  }

  private *replaceEachRouteEndpoints(
    rec: ServiceRecord<Entry>,
    oldServed: readonly ServedEndpoint[],
    newServed: readonly ServedEndpoint[],
    ctx: StrategyContext,
    deleting: boolean,
  ): RuntimeProgram<void> {
    const keys = rec.routes;
    for (let i = 0; i < keys.length; i++) {
      if (!(yield* this.replaceRouteEndpoints(rec, i, oldServed, newServed, ctx, deleting))) return;
    }
  }

  /**
   * One route's share of a service's endpoint change; false when it fell back to a reload. Each route is
   * handed its own port's share of the new endpoints (router.go: endpointsForAlias), but the service's
   * whole old EndpointTable: another port's old endpoints count as deleted (configChanged).
   */
  private replaceRouteEndpoints(
    rec: ServiceRecord<Entry>,
    i: number,
    oldServed: readonly ServedEndpoint[],
    newServed: readonly ServedEndpoint[],
    ctx: StrategyContext,
    deleting = false,
  ): RuntimeProgram<boolean> {
    const entry = this.entryAt(rec, i);
    return this.replaceEndpoints(entry, oldServed, servedForRoute(newServed, entry.preferPort), ctx, deleting);
  }

  /**
   * RemoveRouteEndpoints with no endpoint to disable, on every route of the service until one fails:
   * FindBackend (`show backend` when the list is not cached; a missing backend is an error) and Commit, which
   * writes whatever an earlier failed commit left staged on the backend's cached servers, and nothing else.
   */
  private *commitServiceBackends(rec: ServiceRecord<Entry>, ctx: StrategyContext): RuntimeProgram<void> {
    for (let i = 0; i < rec.routes.length; i++) {
      const entry = this.entryAt(rec, i);
      const backend = entry.poolSlot ?? entry.backendName;
      try {
        if (!this.view.knowsBackend(backend)) yield* this.findBackendOf(entry, backend);
        yield* this.view.commit(backend);
      } catch (e) {
        this.fallBack(ctx, e);
        return;
      }
    }
  }

  /**
   * replaceServiceEndpoints while a reload runs, without a program: the first route's replace is refused
   * before it sends anything, and its failure ends the walk.
   */
  private refuseServiceEndpoints(rec: ServiceRecord<Entry>, ctx: StrategyContext): void {
    this.fallBack(ctx, reloadRefusal(this.entryAt(rec, 0)));
  }

  /**
   * ReplaceRouteEndpoints on the route's current backend (its pool slot while pooled), guarded: a Fallback
   * or client error becomes a reload request, and the answer is false. Its commands are sent here rather
   * than through RuntimeView's programs, which spares two generators per endpoint change (see retryCommand).
   */
  private *replaceEndpoints(
    entry: Entry,
    oldServed: readonly ServedEndpoint[],
    newServed: readonly ServedEndpoint[],
    ctx: StrategyContext,
    deleting = false,
  ): RuntimeProgram<boolean> {
    try {
      if (ctx.reloadInProgress) throw reloadRefusal(entry);
      const weight = entry.weight;
      const backend = entry.poolSlot ?? entry.backendName;
      if (!this.view.knowsBackend(backend)) yield* this.findBackendOf(entry, backend);
      let servers = this.view.cachedServers(backend);
      const cached = servers !== undefined;
      // RemoveRouteEndpoints (an endpoints.delete) lists the servers for each endpoint it disables and
      // ignores DisableServer's error: the endpoints whose listing failed are unmapped and left as they are.
      let skipped = 0;
      while (servers === undefined) {
        const command = cmd.showServersState(backend) as RuntimeCommand & { kind: 'show servers state' };
        try {
          const r = yield command;
          servers = this.view.listedServers(command, r !== undefined && r.ok ? r.reply : yield* retryCommand(command, r));
        } catch (e) {
          if (deleting && e instanceof RuntimeApiError) {
            if (entry.slotMap !== null) unmapSlot(entry.slotMap, oldServed[skipped]!.id);
            // Every listing failed: Commit finds no cached server, writes nothing and returns no error.
            if (++skipped === oldServed.length) return true;
            continue;
          }
          // configChanged is set by a deleted old endpoint before backend.Servers() lists anything: a listing
          // that then fails still arms the commit timer (its deferred check runs on every return).
          if (deletesAny(oldServed, newServed)) ctx.armCommitTimer();
          throw e;
        }
      }
      // Servers just listed are cached only if the change fails before its commit is through (listedServers):
      // what it staged then waits in the cache for the backend's next commit.
      let through = false;
      try {
        // The new list is the route's share of a served list, whose IDs are distinct.
        const unslotted = entry.slotMap === null;
        const staged = stageEndpointReplace(servers, entry, skipped === 0 ? oldServed : oldServed.slice(skipped), newServed, weight, true);
        if (unslotted && entry.slotMap !== null) this.slotted.push(entry);
        // ReplaceRouteEndpoints defers scheduleRouterReload if configChanged, whatever it then returns.
        if (staged.changed) ctx.armCommitTimer();
        if (staged.remaining > 0) {
          throw new Fallback('dynamic-slots-exhausted', `no free dynamic server slots for backend ${backend}, ${staged.remaining} endpoint(s) remaining`);
        }
        for (const command of commitCommandsOf(backend, servers)) {
          const r = yield command;
          const reply = r !== undefined && r.ok ? r.reply : yield* retryCommand(command, r);
          if (reply.kind !== 'ok') throw unexpectedReply(command, reply);
        }
        through = true;
      } finally {
        if (!through && !cached) this.view.hold(backend, servers);
      }
      if (cached) this.view.committed(backend);
      return true;
    } catch (e) {
      this.fallBack(ctx, e);
      return false;
    }
  }

  /** The route's service's served endpoints as the router has them now. */
  private servedNow(route: Route, state: RouterState): readonly ServedEndpoint[] {
    const endpoints = endpointsOf(state, route.namespace, route.service);
    const rec = this.index.recordAt(state.endpoints.entryOf(route.namespace, route.service));
    return rec === undefined ? servedEndpoints(route.service, endpoints) : rec.served.of(route.service, endpoints);
  }

  /**
   * FindBackend for the route's entry; a backend HAProxy does not have is `missing`. Callers on the hot path
   * check `knowsBackend` first, which spares this generator when the list is cached.
   */
  private *findBackendOf(entry: Entry, backend: string): RuntimeProgram<void> {
    try {
      yield* this.view.findBackend(backend);
    } catch (e) {
      throw this.missing(e, entry);
    }
  }

  /** A backend HAProxy does not have yet: the route's earlier failed add already asked for the reload. */
  private missing(e: unknown, entry: Entry): unknown {
    if (e instanceof NotFoundError && entry.pendingReason !== null) {
      return new Fallback(entry.pendingReason, `${e.message} (route ${routeKey(entry.route)} waits for a reload)`);
    }
    return e;
  }
}

const NO_SERVED: readonly ServedEndpoint[] = [];

function reloadRefusal(entry: Entry): Fallback {
  return new Fallback('reload-in-progress', `reload in progress, cannot dynamically change endpoints of ${routeKey(entry.route)}`);
}

/** Forgets the slot an endpoint was mapped to (upstream unmaps it before disabling its server). */
function unmapSlot(slotMap: Map<string, string>, endpointId: string): void {
  for (const [slot, id] of slotMap) {
    if (id === endpointId) {
      slotMap.delete(slot);
      return;
    }
  }
}
