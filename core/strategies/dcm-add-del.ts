import { BackendList } from '../dcm/backend-list.ts';
import { missingFrom } from '../dcm/endpoint-diff.ts';
import { BlueprintPool } from '../dcm/pool.ts';
import type { Endpoint } from '../endpoint.ts';
import * as cmd from '../haproxy/commands.ts';
import type { RuntimeCommand, RuntimeReply } from '../haproxy/commands.ts';
import type { HaproxyConfig } from '../haproxy/config-model.ts';
import { aliasKey, backendNameOf, preferPortOf, servedEndpoints, servedForRoute, type ServedEndpoint } from '../haproxy/names.ts';
import { ConfigRenderer } from '../haproxy/config-renderer.ts';
import { routeKey, type Route } from '../route.ts';
import { endpointsOf, type RouterState, type StateChange } from '../router-state.ts';
import type { ServiceEntry } from '../service-endpoints.ts';
import { NotFoundError, retryCommand, RuntimeApiError, runAccepted, unexpectedReply } from '../runtime-client.ts';
import type { RuntimeProgram } from '../runtime-effect.ts';
import type { RouterStrategy, StrategyContext } from '../strategy.ts';
import { sameServed, ServiceIndex } from './service-index.ts';

export interface DcmAddDelOptions {
  /**
   * The 2026 manager still provisions the blueprint pools at start (Initialize → provisionRoutePool), so a
   * reload writes `blueprintPoolSize` empty pool backends per blueprint even though routes never use them.
   */
  blueprintPoolSize?: number;
  customBlueprints?: readonly Route[];
  blueprintNamespace?: string;
  allowWildcardRoutes?: boolean;
  /** ROUTER_BACKEND_CHECK_INTERVAL; the template's default is 5000ms. */
  checkInterval?: string;
  /** The router's working directory (--working-dir), where route destination CAs are written. */
  workingDir?: string;
  /** DEFAULT_DESTINATION_CA_PATH, "" when unset or missing. */
  defaultDestinationCA?: string;
  /** ROUTER_DISABLE_HTTP2. */
  disableHttp2?: boolean;
}

const HEALTH_INTERVAL_ANNOTATION = 'router.openshift.io/haproxy.health.check.interval';
const NO_SERVED: readonly ServedEndpoint[] = [];
const POD_MAXCONN_ANNOTATION = 'haproxy.router.openshift.io/pod-concurrent-connections';
const TIME_SPEC = /^(?:[1-9][0-9]*(us|ms|s|m|h|d)?)$/;
const GO_ATOI = /^[+-]?[0-9]+$/;

/**
 * dcm-add-del: the 2026 rewrite (openshift/router "use add/del haproxy api calls", the current manager):
 * route add, change and delete always reload (dynamicallyAddRoute/RemoveRoute return early, OCPBUGS-77344);
 * endpoint changes become `add server` / `del server` on the route's own backend, servers named after the
 * endpoint ID, set to maint before deletion, health checks enabled from the second endpoint on.
 */
export class DcmAddDelStrategy implements RouterStrategy {
  readonly name = 'dcm-add-del' as const;
  readonly blueprintPlugin = true;
  readonly keepsAlikeEndpoints = true;
  private readonly index = new ServiceIndex<RouteRecord>();
  private readonly backends = new BackendList();
  private loaded = false;
  private readonly pool: BlueprintPool;
  private seeded = false;
  /** Routes added or changed since the last reload started: HAProxy does not have their backend yet. */
  private readonly pending = new Map<string, Route>();
  private indexed = false;
  private readonly renderer: ConfigRenderer;
  /**
   * The router's per-route EndpointTable: the served endpoints it believes HAProxy has for each route, the
   * "old" side of every endpoint diff. Set when a route is added or changed; replaced for a route just
   * before its runtime update is tried, so a failure stops the walk over the service's routes with the
   * later routes' tables left behind; never touched by a reload or by a deletion of the endpoints. A stale
   * table makes the next diff add servers that exist or delete ones that do not: the real router's extra
   * `runtime-api-error` reloads. Kept in the route's record (RouteRecord), with what its endpoint changes
   * need of the route itself. The map holds every record; the service index's record also keeps each of its
   * routes' records (routeData), so an endpoint change reaches them without a lookup by route key (2.6% of
   * a dcm-add-del replay of the churn slice).
   */
  private readonly records = new Map<string, RouteRecord>();
  /** Keyword lists by their JSON text (see serverKeywords). */
  private readonly keywordLists = new Map<string, readonly string[]>();

  constructor(private readonly opts: DcmAddDelOptions = {}) {
    this.pool = new BlueprintPool(opts.blueprintPoolSize ?? 10, opts.customBlueprints ?? []);
    this.renderer = new ConfigRenderer({ maxDynamicServers: 0, manager: 'add-del', allowWildcardRoutes: opts.allowWildcardRoutes === true, served: this.index });
  }

  onChange(change: StateChange, state: RouterState, ctx: StrategyContext): RuntimeProgram | void {
    this.renderer.note(change);
    this.keepTables(change, state);
    if (!this.loaded) {
      if (change.kind === 'blueprint.changed') this.pool.applyChange(change.before, change.after);
      if (this.reachesManager(change, state)) ctx.requestReload(ctx.reloadInProgress ? 'reload-in-progress' : 'initial');
      return;
    }
    switch (change.kind) {
      case 'route.added':
        this.index.add(change.route);
        this.pending.set(routeKey(change.route), change.route);
        ctx.requestReload('route-change');
        return;
      case 'route.removed':
        this.index.remove(change.route);
        this.pending.delete(routeKey(change.route));
        ctx.requestReload('route-change');
        return;
      case 'route.modified':
        this.index.remove(change.before);
        this.index.add(change.after);
        this.pending.set(routeKey(change.after), change.after);
        ctx.requestReload('route-change');
        return;
      case 'blueprint.changed':
        // Blueprints only feed the (now unused) route pool; the pool routes still change the router state.
        if (this.pool.applyChange(change.before, change.after)) ctx.requestReload('blueprint-change');
        return;
      case 'endpoints.changed':
        if (change.deleted) return this.removeServiceEndpoints(change.entry, change.service, change.before, ctx);
        return this.replaceServiceEndpoints(change.entry, change.service, change.before, change.after, ctx);
    }
  }

  /**
   * Route tables that change whatever the runtime does: dynamicallyAddRoute records the service's endpoints
   * for an added or changed route; a removed route takes its table along. Before the first reload has
   * ended, an endpoint change still updates the first route's table (in key order) before its update is
   * refused as "reload in progress".
   */
  private keepTables(change: StateChange, state: RouterState): void {
    switch (change.kind) {
      case 'route.added':
      case 'route.modified': {
        const r = change.kind === 'route.added' ? change.route : change.after;
        this.recordOf(routeKey(r)).table = tableOf(r, state);
        return;
      }
      case 'route.removed':
        this.records.delete(routeKey(change.route));
        return;
      case 'endpoints.changed': {
        if (this.loaded || change.deleted) return;
        const first = this.routeKeysOf(change.namespace, change.service, state)[0];
        const route = first === undefined ? undefined : state.routes.get(first);
        if (route !== undefined) this.recordOf(first!).table = servedForRoute(servedEndpoints(change.service, change.after), preferPortOf(route));
        return;
      }
      default:
        return;
    }
  }

  /**
   * Whether a change before the first reload ends asks for a reload: router.go's AddEndpoints and
   * DeleteEndpoints act only for a service that has routes (no route: nothing to change, nothing to commit),
   * and AddEndpoints returns at once on an EndpointTable equal to the old one (not-ready addresses are not in
   * it). Route and blueprint changes always do.
   */
  private reachesManager(change: StateChange, state: RouterState): boolean {
    if (change.kind !== 'endpoints.changed') return true;
    if (this.routeKeysOf(change.namespace, change.service, state).length === 0) return false;
    return change.deleted || !sameServed(servedEndpoints(change.service, change.before), servedEndpoints(change.service, change.after));
  }

  /** The service's routes in key order: from the index once it is built, from the state before. */
  private routeKeysOf(namespace: string, service: string, state: RouterState): readonly string[] {
    if (this.indexed) return this.index.routesOf(namespace, service);
    const keys: string[] = [];
    for (const [key, r] of state.routes) if (r.namespace === namespace && r.service === service) keys.push(key);
    return keys.sort();
  }

  render(state: RouterState): HaproxyConfig {
    if (!this.seeded) {
      this.seeded = true;
      this.pool.seed(state, this.opts.blueprintNamespace ?? '');
      // The routes of the initial sync were added before the strategy saw any change, and dynamicallyAddRoute
      // gave each the service's endpoints of that moment: the state the first reload renders. A change refused
      // while that reload runs then updates only the first route's table (keepTables), as upstream.
      for (const [key, r] of state.routes) {
        const rec = this.recordOf(key);
        if (rec.table === undefined) rec.table = tableOf(r, state);
      }
    }
    return this.renderer.render(state, this.pool.poolRoutes());
  }

  onReloaded(state: RouterState): void {
    this.loaded = true;
    this.backends.forget();
    for (const [key, r] of this.pending) if (this.renderer.renderedRoute(key) === r || state.routes.get(key) !== r) this.pending.delete(key);
    // Changes before the first reload ends skip the index (see onChange); every later one keeps it current.
    if (this.indexed) return;
    this.index.rebuild(state);
    this.indexed = true;
  }

  /** dynamicallyReplaceEndpoints: every route of the service in key order, stopping at the first failure. */
  private *replaceServiceEndpoints(
    entry: ServiceEntry,
    service: string,
    before: readonly Endpoint[],
    after: readonly Endpoint[],
    ctx: StrategyContext,
  ): RuntimeProgram<void> {
    const rec = this.index.recordAt(entry);
    if (rec === undefined) return;
    const { routes: keys, routeObjects: routes } = rec;
    const oldServed = rec.served.of(service, before);
    const newServed = rec.served.of(service, after);
    if (sameServed(oldServed, newServed)) return;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const route = routes[i]!;
      // The record as the service record keeps it, else by key (then kept there until the route changes).
      const record = rec.routeData[i] ?? (rec.routeData[i] = this.recordOf(key));
      const oldServed = record.table ?? NO_SERVED;
      // The route's share of the service: only its targetPort's endpoints (endpointsForAlias).
      const routeServed = servedForRoute(newServed, preferPortOf(route));
      record.table = routeServed;
      if (ctx.reloadInProgress) {
        ctx.requestReload('reload-in-progress', `reload in progress, cannot dynamically change endpoints of ${key}`);
        return;
      }
      const { errors, missingBackend } = yield* this.replaceRouteEndpoints(this.factsOf(record, route), oldServed, routeServed, ctx);
      if (this.failed(key, route, errors, missingBackend, ctx)) return;
    }
  }

  /**
   * dynamicallyRemoveEndpoints (an `endpoints.delete`): RemoveRouteEndpoints on every route of the service,
   * with the service's last endpoints rather than the route's table, which it leaves as it was. Those are
   * every port's: a route with a targetPort is asked to delete servers it never had, which fails and
   * reloads. Stops at the first failure.
   */
  private *removeServiceEndpoints(entry: ServiceEntry, service: string, before: readonly Endpoint[], ctx: StrategyContext): RuntimeProgram<void> {
    const served = servedEndpoints(service, before);
    const rec = this.index.recordAt(entry);
    if (rec === undefined) return;
    const { routes: keys, routeObjects: routes } = rec;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const route = routes[i]!;
      if (ctx.reloadInProgress) {
        ctx.requestReload('reload-in-progress', `reload in progress, cannot dynamically delete endpoints of ${key}`);
        return;
      }
      // RemoveRouteEndpoints arms the commit timer whatever follows.
      ctx.armCommitTimer();
      const backend = this.factsOf(rec.routeData[i] ?? (rec.routeData[i] = this.recordOf(key)), route).backend;
      const errors: string[] = [];
      let missingBackend = false;
      try {
        yield* this.backends.find(backend);
        for (const e of served) {
          try {
            yield* this.deleteServer(backend, e);
          } catch (err) {
            collect(errors, err);
          }
        }
      } catch (e) {
        if (!(e instanceof RuntimeApiError)) throw e;
        errors.push(e.message);
        missingBackend = e instanceof NotFoundError;
      }
      if (this.failed(key, route, errors, missingBackend, ctx)) return;
    }
  }

  /** After a route's update: asks for the reload its errors call for, and says whether the walk stops. */
  private failed(key: string, route: Route, errors: readonly string[], missingBackend: boolean, ctx: StrategyContext): boolean {
    if (missingBackend && this.pending.get(key) === route) {
      // Its backend is not in HAProxy yet: the route change already asked for the reload that writes it.
      ctx.requestReload('route-change', `${errors.join('; ')} (route ${key} waits for a reload)`);
      return true;
    }
    if (errors.length === 0) return false;
    ctx.runtimeError(errors.join('; '));
    ctx.requestReload('runtime-api-error');
    return true;
  }

  /**
   * ReplaceRouteEndpoints: deletes, then adds, then health checks; errors are collected, not fail-fast.
   * Commands are sent here and in deleteServer/addServer rather than through runAccepted, which spares
   * three generators per command (see retryCommand).
   */
  private *replaceRouteEndpoints(
    facts: RouteFacts,
    oldServed: readonly ServedEndpoint[],
    newServed: readonly ServedEndpoint[],
    ctx: StrategyContext,
  ): RuntimeProgram<{ errors: string[]; missingBackend: boolean }> {
    const backend = facts.backend;
    const errors: string[] = [];
    if (!this.backends.knows(backend)) {
      try {
        yield* this.backends.find(backend);
      } catch (e) {
        if (e instanceof RuntimeApiError) return { errors: [e.message], missingBackend: e instanceof NotFoundError };
        throw e;
      }
    }
    const deleted = missingFrom(oldServed, newServed);
    const added = missingFrom(newServed, oldServed);
    // Same ID means same address and port here, so "modified" endpoints never occur in this model.
    if (deleted.length + added.length > 0) ctx.armCommitTimer();

    for (const e of deleted) {
      try {
        yield* this.deleteServer(backend, e);
      } catch (err) {
        collect(errors, err);
      }
    }
    for (const e of added) {
      try {
        yield* this.addServer(backend, facts.keywords, e);
      } catch (err) {
        collect(errors, err);
      }
    }

    // Health checks: on for new servers (and the former single one) once there is more than one endpoint;
    // off for the single remaining one.
    if (newServed.length > 1) {
      const enable = added.slice();
      if (oldServed.length === 1) enable.push(oldServed[0]!);
      for (const e of enable) {
        const command = cmd.enableHealth(backend, e.id);
        try {
          const r = yield command;
          accept(command, r !== undefined && r.ok ? r.reply : yield* retryCommand(command, r));
        } catch (err) {
          collect(errors, err);
        }
      }
    } else if (newServed.length === 1 && oldServed.length !== 1) {
      const command = cmd.disableHealth(backend, newServed[0]!.id);
      try {
        const r = yield command;
        accept(command, r !== undefined && r.ok ? r.reply : yield* retryCommand(command, r));
      } catch (err) {
        collect(errors, err);
      }
    }
    return { errors, missingBackend: false };
  }

  /** DeleteServer: maint first (an error there counts), then `del server` (any failure is only logged). */
  private *deleteServer(backend: string, e: ServedEndpoint): RuntimeProgram<void> {
    const maint = cmd.setServerState(backend, e.id, 'maint');
    const r = yield maint;
    accept(maint, r !== undefined && r.ok ? r.reply : yield* retryCommand(maint, r));
    const del = cmd.delServer(backend, e.id);
    const d = yield del;
    // "disabling backend server instead of deleting due to a delete failure": whatever the failure, a refusal
    // or a socket that failed every retry, the server is left in maint and no error is returned.
    if (d === undefined || !d.ok) {
      try {
        yield* retryCommand(del, d);
      } catch (err) {
        if (!(err instanceof RuntimeApiError)) throw err;
      }
    }
  }

  /** AddServer: `add server`, retried once after deleting a leftover server of the same name; then `state ready`. */
  private *addServer(backend: string, keywords: readonly string[], e: ServedEndpoint): RuntimeProgram<void> {
    const command = cmd.addServer(backend, e.id, e.ip, e.port, keywords);
    const r = yield command;
    const reply = r !== undefined && r.ok ? r.reply : yield* retryCommand(command, r);
    if (reply.kind !== 'ok') {
      if (reply.kind !== 'refused' || !reply.text.includes('Already exists a server ')) throw unexpectedReply(command, reply);
      yield* runAccepted(cmd.delServer(backend, e.id));
      yield* runAccepted(command);
    }
    // weight 1 > 0 → ready (drain only for weight 0).
    const ready = cmd.setServerState(backend, e.id, 'ready');
    const s = yield ready;
    accept(ready, s !== undefined && s.ok ? s.reply : yield* retryCommand(ready, s));
  }

  /** The route key's record, made empty if it has none. */
  private recordOf(key: string): RouteRecord {
    let rec = this.records.get(key);
    if (rec === undefined) {
      rec = { table: undefined, factsOf: undefined, backend: '', keywords: NO_KEYWORDS };
      this.records.set(key, rec);
    }
    return rec;
  }

  /** The record's facts, worked out again only when the route object changed since. */
  private factsOf(rec: RouteRecord, route: Route): RouteFacts {
    if (rec.factsOf !== route) {
      rec.factsOf = route;
      rec.backend = backendNameOf(route);
      rec.keywords = this.serverKeywords(route);
    }
    return rec;
  }

  /** innerAddServer's keywords after the address: `weight 1`, reencrypt TLS options, `check inter`, `maxconn`. */
  /**
   * The route's `add server` keywords, as one frozen list shared by every route with the same options (most
   * routes have `weight 1 check inter 5000ms`): the mock then recognises a list it has checked and read
   * before by identity (reachesCliVerbatim, parseDynamicServerOptions).
   */
  private serverKeywords(route: Route): readonly string[] {
    const words = this.keywordsOf(route);
    const text = JSON.stringify(words);
    let shared = this.keywordLists.get(text);
    if (shared === undefined) {
      if (this.keywordLists.size >= KEYWORD_LISTS_MAX) this.keywordLists.clear();
      shared = Object.freeze(words);
      this.keywordLists.set(text, shared);
    }
    return shared;
  }

  private keywordsOf(route: Route): string[] {
    const k = ['weight', '1'];
    if (route.tls?.termination === 'reencrypt') {
      k.push('ssl');
      if (this.opts.disableHttp2 !== true) k.push('alpn', 'h2,http/1.1');
      const defaultCA = this.opts.defaultDestinationCA ?? '';
      const destCA = route.tls.destinationCACertificate ?? '';
      if (destCA.length === 0 && defaultCA.length > 0) k.push('verifyhost', `${route.service}.${route.namespace}.svc`);
      if (destCA.length > 0) k.push('verify', 'required', 'ca-file', `${this.opts.workingDir ?? '/var/lib/haproxy'}/router/cacerts/${aliasKey(route)}.pem`);
      else if (defaultCA.length > 0) k.push('verify', 'required', 'ca-file', defaultCA);
      else k.push('verify', 'none');
      k.push('check-ssl');
    }
    const annotated = route.annotations?.[HEALTH_INTERVAL_ANNOTATION];
    const env = this.opts.checkInterval;
    const inter = annotated !== undefined && TIME_SPEC.test(annotated) ? annotated : env !== undefined && TIME_SPEC.test(env) ? env : '5000ms';
    k.push('check', 'inter', inter);
    const maxconn = route.annotations?.[POD_MAXCONN_ANNOTATION];
    if (maxconn !== undefined && GO_ATOI.test(maxconn)) k.push('maxconn', maxconn);
    return k;
  }
}

/** What every endpoint change of a route needs and only the route object decides. */
interface RouteFacts {
  /** Its backend, `be_*:<ns>:<name>`. */
  readonly backend: string;
  /** Its servers' `add server` keywords (serverKeywords). */
  readonly keywords: readonly string[];
}

/**
 * What the manager keeps per route key: its EndpointTable (undefined until one is recorded) and its facts,
 * worked out once per route object rather than per change (a new name string to hash, a keyword array).
 */
interface RouteRecord extends RouteFacts {
  table: readonly ServedEndpoint[] | undefined;
  /** The route object the facts are of; undefined until first asked. */
  factsOf: Route | undefined;
  backend: string;
  keywords: readonly string[];
}

const NO_KEYWORDS: readonly string[] = [];
/** Distinct keyword lists kept (one per CA file at most, so bounded by the routes); cleared whole past it. */
const KEYWORD_LISTS_MAX = 10_000;

/** A client error is collected for the route's report; anything else is a bug and goes on up. */
function collect(errors: string[], e: unknown): void {
  if (!(e instanceof RuntimeApiError)) throw e;
  errors.push(e.message);
}

/** A reply that must be the acceptance (`set`, `enable`, `add`, `del`); anything else throws. */
function accept(command: RuntimeCommand, reply: RuntimeReply): void {
  if (reply.kind !== 'ok') throw unexpectedReply(command, reply);
}

/** The route's EndpointTable as dynamicallyAddRoute records it: its port's share of the service. */
function tableOf(r: Route, state: RouterState): readonly ServedEndpoint[] {
  return servedForRoute(servedEndpoints(r.service, endpointsOf(state, r.namespace, r.service)), preferPortOf(r));
}
