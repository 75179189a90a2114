import { ConfigRenderer } from '../haproxy/config-renderer.ts';
import type { HaproxyConfig } from '../haproxy/config-model.ts';
import type { RouterState, StateChange } from '../router-state.ts';
import type { RouterStrategy, StrategyContext } from '../strategy.ts';
import { sameServedSince, ServiceIndex } from './service-index.ts';

/**
 * The template router without a config manager: every change that alters the rendered config requests a
 * reload (the rate limiter coalesces them). Endpoint changes count only when the served (ready) endpoints
 * differ and some route uses the service (router.go AddEndpoints sets stateChanged only with service alias
 * associations).
 */
export class ReloadAlwaysStrategy implements RouterStrategy {
  readonly name = 'reload-always' as const;
  private readonly index = new ServiceIndex();
  private indexed = false;
  private readonly renderer: ConfigRenderer;

  constructor(opts: { allowWildcardRoutes?: boolean } = {}) {
    // Deferred: nothing but the invariant checker reads a reload's config here (no runtime API), so a
    // config is rendered when read, not at every reload (ConfigRenderer).
    this.renderer = new ConfigRenderer({ maxDynamicServers: 0, manager: 'none', allowWildcardRoutes: opts.allowWildcardRoutes === true }, true);
  }

  onChange(change: StateChange, state: RouterState, ctx: StrategyContext): void {
    this.renderer.note(change);
    if (!this.indexed) {
      this.index.rebuild(state);
      this.indexed = true;
    }
    switch (change.kind) {
      case 'route.added':
        this.index.add(change.route);
        ctx.requestReload('route-change');
        return;
      case 'route.removed':
        this.index.remove(change.route);
        ctx.requestReload('route-change');
        return;
      case 'route.modified':
        this.index.remove(change.before);
        this.index.add(change.after);
        ctx.requestReload('route-change');
        return;
      case 'endpoints.changed': {
        if (this.index.recordAt(change.entry) === undefined) return;
        // Compared even for a delete, so that the entry sums up the service's list as it now is.
        const same = sameServedSince(change.service, change.entry, change.before, change.after);
        // DeleteEndpoints marks the state changed without comparing: even endpoints that were empty reload.
        if (!change.deleted && same) return;
        ctx.requestReload('endpoints-change');
        return;
      }
      case 'blueprint.changed':
        // Without a config manager there is no blueprint plugin: the router (RouteAdmission) hands a
        // blueprint event over as the route event it carries, so none comes here that way.
        return;
    }
  }

  render(state: RouterState): HaproxyConfig {
    return this.renderer.render(state);
  }

  onReloaded(state: RouterState): void {
    // Changes of the initial sync reach no strategy; every later one keeps the index current.
    if (this.indexed) return;
    this.index.rebuild(state);
    this.indexed = true;
  }
}
