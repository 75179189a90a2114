import type { ChurnEvent } from './events.ts';
import { routeKey, type Route } from './route.ts';

/**
 * The router's admission of routes, before they reach its state: with wildcard routes not allowed
 * (ROUTER_ALLOW_WILDCARD_ROUTES unset, the default), a route with `wildcardPolicy: Subdomain` is rejected,
 * and the router handles it as deleted (openshift/router's HostAdmitter passes a rejected route on as a
 * Deleted event). So a route that turns into a wildcard one is removed, and one that never was admitted
 * changes nothing: no state change, no reload, no runtime command.
 */
export function rejectionOf(route: Route, allowWildcardRoutes: boolean): string | undefined {
  if (allowWildcardRoutes || route.wildcardPolicy !== 'Subdomain') return undefined;
  return 'wildcard routes are not allowed (ROUTER_ALLOW_WILDCARD_ROUTES / router.allowWildcardRoutes)';
}

/** Admission for one router: each rejected route is reported once, when it is first seen. */
export class RouteAdmission {
  private readonly reported = new Set<string>();

  constructor(
    private readonly allowWildcardRoutes: boolean,
    private readonly report: (message: string) => void,
    /**
     * The router runs the blueprint plugin (a config manager is set). Without it a blueprint event is the
     * route event it carries: the route in the blueprint namespace is an ordinary route (template.go creates
     * the plugin only with ROUTER_HAPROXY_CONFIG_MANAGER).
     */
    private readonly blueprintPlugin = true,
  ) {}

  admit(event: ChurnEvent): ChurnEvent {
    const e = this.blueprintPlugin ? event : asRouteEvent(event);
    if (e.type !== 'route.upsert') return e;
    const why = rejectionOf(e.route, this.allowWildcardRoutes);
    if (why === undefined) return e;
    const key = routeKey(e.route);
    if (!this.reported.has(key)) {
      this.reported.add(key);
      this.report(`route ${key} not admitted: ${why}`);
    }
    return { at: e.at, type: 'route.delete', namespace: e.route.namespace, name: e.route.name };
  }
}

/** A blueprint event as the route event it carries; any other event as it is. */
function asRouteEvent(e: ChurnEvent): ChurnEvent {
  if (e.type === 'blueprint.upsert') return { at: e.at, type: 'route.upsert', route: e.route };
  if (e.type === 'blueprint.delete') return { at: e.at, type: 'route.delete', namespace: e.namespace, name: e.name };
  return e;
}
