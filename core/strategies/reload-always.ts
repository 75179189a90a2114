import { renderRouterConfig } from '../haproxy/render.ts';
import { servedEndpoints } from '../haproxy/names.ts';
import type { HaproxyConfig } from '../haproxy/config-model.ts';
import type { RouterState, StateChange } from '../router-state.ts';
import type { RouterStrategy, StrategyContext } from '../strategy.ts';
import { sameServed, ServiceIndex } from './service-index.ts';

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

  constructor(private readonly opts: { allowWildcardRoutes?: boolean } = {}) {}

  onChange(change: StateChange, state: RouterState, ctx: StrategyContext): void {
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
        if (this.index.routesOf(change.namespace, change.service).length === 0) return;
        if (sameServed(servedEndpoints(change.service, change.before), servedEndpoints(change.service, change.after))) return;
        ctx.requestReload('endpoints-change');
        return;
      }
      case 'blueprint.changed':
        // Without a config manager blueprint routes are ordinary routes in their namespace; the blueprint
        // plugin does not run, yet the router still sees a route change.
        ctx.requestReload('blueprint-change');
        return;
    }
  }

  render(state: RouterState): HaproxyConfig {
    return renderRouterConfig(state, { maxDynamicServers: 0, manager: 'none', allowWildcardRoutes: this.opts.allowWildcardRoutes === true });
  }

  onReloaded(state: RouterState): void {
    this.index.rebuild(state);
    this.indexed = true;
  }
}
