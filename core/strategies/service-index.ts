import type { ServedEndpoint } from '../haproxy/names.ts';
import { routeKey, serviceKey, type Route } from '../route.ts';
import type { RouterState } from '../router-state.ts';

/**
 * Which routes use a service (the router's ServiceAliasAssociations), kept in route-key order because the
 * router visits them in Go map order and we need one deterministic order.
 */
export class ServiceIndex {
  private readonly byService = new Map<string, string[]>();

  rebuild(state: RouterState): void {
    this.byService.clear();
    for (const r of state.routes.values()) this.add(r);
  }

  add(r: Route): void {
    const k = serviceKey(r.namespace, r.service);
    const key = routeKey(r);
    const list = this.byService.get(k);
    if (list === undefined) {
      this.byService.set(k, [key]);
      return;
    }
    let i = list.length;
    while (i > 0 && list[i - 1]! > key) i--;
    if (list[i - 1] !== key) list.splice(i, 0, key);
  }

  remove(r: Route): void {
    const k = serviceKey(r.namespace, r.service);
    const list = this.byService.get(k);
    if (list === undefined) return;
    const i = list.indexOf(routeKey(r));
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.byService.delete(k);
  }

  routesOf(namespace: string, service: string): readonly string[] {
    return this.byService.get(serviceKey(namespace, service)) ?? EMPTY;
  }
}

const EMPTY: readonly string[] = [];

/** The router's EndpointTable comparison (reflect.DeepEqual): same served endpoints in the same order. */
export function sameServed(a: readonly ServedEndpoint[], b: readonly ServedEndpoint[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.id !== b[i]!.id) return false;
  return true;
}
