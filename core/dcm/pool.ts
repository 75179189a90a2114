import { backendNameOf } from '../haproxy/names.ts';
import type { Route } from '../route.ts';
import { sameRoute, type RouterState } from '../router-state.ts';
import { customBlueprintRoute, defaultBlueprintRoutes, poolSizeOf, POOL_NAMESPACE, type Blueprint } from './blueprints.ts';

/**
 * The blueprint list and the pool slots' usage (manager.go blueprintRoutes, poolUsage,
 * provisionRoutePool, findFreeBackendPoolSlot).
 */
export class BlueprintPool {
  private list: Blueprint[];
  /** Pool slot backend name → route key using it. Cleared on every reload. */
  private readonly usage = new Map<string, string>();
  private poolRoutesCache: Route[] | null = null;

  constructor(
    private readonly defaultPoolSize: number,
    customFromSettings: readonly Route[] = [],
  ) {
    this.list = [];
    for (const r of defaultBlueprintRoutes()) this.list.push({ route: r, poolSize: poolSizeOf(r, defaultPoolSize) });
    for (const r of customFromSettings) this.upsert(r);
  }

  get blueprints(): readonly Blueprint[] {
    return this.list;
  }

  /**
   * AddBlueprint: a custom blueprint replaces the one of the same name in the pool namespace in place
   * (whatever namespace it came from), otherwise it is appended after the defaults. Returns whether the
   * router's routes change, which is what makes it reload: not for a blueprint that only changed its host
   * (AddBlueprint compares without it) nor for one whose pool is empty (nothing is provisioned).
   */
  upsert(route: Route): boolean {
    const r = customBlueprintRoute(route);
    const bp: Blueprint = { route: r, poolSize: poolSizeOf(r, this.defaultPoolSize) };
    const i = this.list.findIndex((b) => b.route.name === r.name);
    if (i >= 0 && sameRoute(this.list[i]!.route, r)) return false;
    if (i >= 0) this.list[i] = bp;
    else this.list.push(bp);
    this.poolRoutesCache = null;
    return bp.poolSize > 0;
  }

  /** RemoveBlueprint, by name in the pool namespace (defaults too); whether pool routes went with it. */
  remove(name: string): boolean {
    const i = this.list.findIndex((b) => b.route.name === name);
    if (i < 0) return false;
    const [gone] = this.list.splice(i, 1);
    this.poolRoutesCache = null;
    return gone!.poolSize > 0;
  }

  /** Slot i (1-based) of a blueprint: route `<blueprint>-<i>` in the pool namespace, host "". */
  static slotRoute(bp: Blueprint, i: number): Route {
    return { ...bp.route, namespace: POOL_NAMESPACE, name: `${bp.route.name}-${i}`, host: '' };
  }

  /** Every pool route a reload renders, blueprint by blueprint. */
  poolRoutes(): readonly Route[] {
    if (this.poolRoutesCache === null) {
      const out: Route[] = [];
      for (const bp of this.list) for (let i = 1; i <= bp.poolSize; i++) out.push(BlueprintPool.slotRoute(bp, i));
      this.poolRoutesCache = out;
    }
    return this.poolRoutesCache;
  }

  /** The first free slot's backend name (indices 1..poolSize), or undefined when the pool is exhausted. */
  findFreeSlot(bp: Blueprint): string | undefined {
    for (let i = 1; i <= bp.poolSize; i++) {
      const name = backendNameOf(BlueprintPool.slotRoute(bp, i));
      if (!this.usage.has(name)) return name;
    }
    return undefined;
  }

  take(slot: string, routeKey: string): void {
    this.usage.set(slot, routeKey);
  }

  release(slot: string): void {
    this.usage.delete(slot);
  }

  /** Which route uses a slot (for the invariant "no two routes share a pool slot"). */
  usageSnapshot(): ReadonlyMap<string, string> {
    return this.usage;
  }

  /**
   * At start the manager provisions the blueprints it knows: those from settings (constructor), then the
   * blueprint events that arrived before the initial sync (in key order), then the routes of the blueprint
   * namespace (template.go blueprintRoutes, in name order).
   */
  seed(state: RouterState, blueprintNamespace: string): void {
    const byKey = (a: Route, b: Route): number => {
      const ka = `${a.namespace}/${a.name}`;
      const kb = `${b.namespace}/${b.name}`;
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    };
    for (const r of [...state.blueprints.values()].sort(byKey)) this.upsert(r);
    if (blueprintNamespace.length === 0) return;
    const found = [...state.routes.values()].filter((r) => r.namespace === blueprintNamespace);
    found.sort(byKey);
    for (const r of found) this.upsert(r);
  }

  /** Applies a blueprint event (AddBlueprint / RemoveBlueprint). */
  applyChange(before: Route | undefined, after: Route | undefined): boolean {
    let changed = false;
    if (before !== undefined && (after === undefined || after.name !== before.name)) changed = this.remove(before.name);
    if (after !== undefined) changed = this.upsert(after) || changed;
    return changed;
  }

  /** After a reload every slot is free again. */
  reset(): void {
    this.usage.clear();
  }
}
