import { routeKey, type Route } from '../route.ts';

/**
 * Which of the 2018 manager's per-route entries outlive a reload's end. The reload wrote every route that
 * was current when its config was rendered: their entries start afresh, and so do those of routes no longer
 * current. An entry whose route became current after the render is kept (its slot state cleared): the
 * reason its backend is missing still stands until the next reload writes it (`keptAtReloadEnd`).
 *
 * Asking the renderer what it wrote under every entry's key cost 2% of a dcm-slots replay of the day slice
 * (the saturated-day bench log's first 200,000 events, commit 6201eea), two lookups missing the cache per
 * entry per reload. Only a route change after the render can make a route current that the render did not
 * write, so the routes changed since the render are all there is to look at, and usually there are none.
 */
export class RoutesSinceRender {
  /**
   * The last route made current under each key since the render: only it can still be current. Kept by key
   * so that a period without a reload (dcm-slots may go an hour) holds one route per changed key, not
   * every route object it saw.
   */
  private readonly routes = new Map<string, Route>();

  /** A config was rendered from the current routes. */
  rendered(): void {
    this.routes.clear();
  }

  /** `route` became current (added, or a modification's new route); `written` is what the last render wrote under its key. */
  changed(route: Route, written: Route | undefined): void {
    const key = routeKey(route);
    if (written !== route) this.routes.set(key, route);
    else this.routes.delete(key);
  }

  /**
   * The entries (each under its route's key) that `keptAtReloadEnd` keeps, given the routes current now;
   * every route that became current since the last render must have been told to `changed`.
   */
  kept<E extends { readonly route: Route }>(entries: ReadonlyMap<string, E>, current: ReadonlyMap<string, Route>): [string, E][] {
    const out: [string, E][] = [];
    for (const [key, route] of this.routes) {
      const e = entries.get(key);
      if (e !== undefined && e.route === route && current.get(key) === route) out.push([key, e]);
    }
    return out;
  }
}

/** The rule itself, for one entry: its route is current, and is not the route the last render wrote under its key. */
export function keptAtReloadEnd(entry: { readonly route: Route }, written: Route | undefined, current: Route | undefined): boolean {
  return written !== entry.route && current === entry.route;
}
