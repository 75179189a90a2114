import type { ServedEndpoint } from '../haproxy/names.ts';
import type { CachedServer } from './runtime-view.ts';

/** isDynamicBackendServer: any server whose name starts with the constant prefix `_dynamic`. */
export const DYNAMIC_SERVER_PREFIX = '_dynamic';

/**
 * Whoever keeps a backend's `_dynamic-pod-N` → endpoint ID map: null until a slot is first mapped. Most
 * routes reach a reload period's end without one, and a map made for each route at each period would live
 * until the route's next change, thousands of events on: copied by the collector, then promoted.
 */
export interface SlotHolder {
  slotMap: Map<string, string> | null;
}

export interface StagedReplace {
  /** Some server was staged for a change (upstream's configChanged). */
  changed: boolean;
  /** New endpoints left without a server: more than the free slots. */
  remaining: number;
}

/**
 * ReplaceRouteEndpoints of the 2018 manager, as a pure staging step on the cached servers:
 * 1. `modified` = new endpoints not identical in the old list; `deleted` = old endpoints not in the new list.
 * 2. Walk the servers in `show servers state` order. A slot not in the slot→endpoint map is unused; other
 *    servers stand for the endpoint they are named after (static) or mapped to (slot). Deleted → `maint`
 *    (a slot is unmapped); modified (e.g. an endpoint back after a scale-down, whose static server is in
 *    maint) → new address/port/weight and `ready`.
 * 3. Remaining modified endpoints take unused slots, in server order, endpoints in new-list order
 *    (upstream picks from a Go map, i.e. in random order).
 * A slot freed in step 2 is not reused in the same call, exactly as upstream (it was not collected as unused).
 *
 * `distinctIds`: the caller knows that no ID repeats in `newEndpoints` (a served list: the router drops
 * repeats, see servedEndpoints), so none is looked for. Looking compared each ID with those before it, and
 * the IDs of entries kept from earlier lists are cold by the service's next change: 1.7% of a dcm-slots
 * replay of the day slice.
 */
export function stageEndpointReplace(
  servers: readonly CachedServer[],
  slots: SlotHolder,
  oldEndpoints: readonly ServedEndpoint[],
  newEndpoints: readonly ServedEndpoint[],
  weight: string,
  distinctIds = false,
): StagedReplace {
  const modified = PENDING.reset(newEndpoints, distinctIds);
  let deleted: string[] | null = null;
  let changed = false;
  for (const e of oldEndpoints) {
    const i = modified.find(e.id);
    if (i >= 0) {
      const n = modified.at(i);
      if (n.ip === e.ip && n.port === e.port) modified.take(i);
    } else {
      (deleted ??= []).push(e.id);
      changed = true;
    }
  }
  if (modified.remaining === 0 && deleted === null) return { changed, remaining: 0 };
  const gone = deleted === null ? null : deleted.length > SMALL ? new Set(deleted) : deleted;

  const slotMap = slots.slotMap;
  const unused = UNUSED;
  let unusedCount = 0;
  for (const s of servers) {
    let related = s.name;
    const dynamic = s.name.startsWith(DYNAMIC_SERVER_PREFIX);
    if (dynamic) {
      const mapped = slotMap?.get(s.name);
      if (mapped === undefined) {
        unused[unusedCount++] = s;
        continue;
      }
      related = mapped;
    }
    if (gone !== null && (Array.isArray(gone) ? gone.includes(related) : gone.has(related))) {
      changed = true;
      s.nextState = 'maint';
      if (dynamic) slotMap!.delete(s.name);
      continue;
    }
    const i = modified.find(related);
    if (i >= 0) {
      changed = true;
      stage(s, modified.at(i), weight);
      modified.take(i);
    }
  }

  for (let k = 0; k < unusedCount; k++) {
    const s = unused[k]!;
    // Let go here, so that no server stays reachable from the scratch list.
    unused[k] = undefined;
    const i = modified.first();
    if (i < 0) continue;
    const ep = modified.at(i);
    changed = true;
    (slots.slotMap ??= new Map()).set(s.name, ep.id);
    stage(s, ep, weight);
    modified.take(i);
  }
  return { changed, remaining: modified.remaining };
}

/**
 * Whether an old endpoint's ID is missing from the new list: ReplaceRouteEndpoints sets configChanged for it
 * while diffing, before it lists the backend's servers. (Only asked when that listing failed.)
 */
export function deletesAny(oldEndpoints: readonly ServedEndpoint[], newEndpoints: readonly ServedEndpoint[]): boolean {
  const ids = new Set(newEndpoints.map((e) => e.id));
  return oldEndpoints.some((e) => !ids.has(e.id));
}

/** Up to this many IDs, sets are arrays searched in place: no Map or Set per change in the common case. */
const SMALL = 16;

/**
 * The endpoints of `list` whose ID `other` lacks, in `list` order: the 2026 manager's deleted (old not in
 * new) and added (new not in old) servers. A served list reuses the entries of endpoints that stayed
 * (ServedMemo), so most entries are found in `other` as the same object, without reading their IDs, which
 * are cold in the cache by the next change of the service.
 */
export function missingFrom(list: readonly ServedEndpoint[], other: readonly ServedEndpoint[]): ServedEndpoint[] {
  const out: ServedEndpoint[] = [];
  if (other.length > SMALL) {
    const ids = new Set(other.map((e) => e.id));
    for (const e of list) if (!ids.has(e.id)) out.push(e);
    return out;
  }
  for (const e of list) if (!other.includes(e) && !hasId(other, e.id)) out.push(e);
  return out;
}

function hasId(list: readonly ServedEndpoint[], id: string): boolean {
  for (const e of list) if (e.id === id) return true;
  return false;
}

/**
 * Upstream's `modified` map (new endpoints by ID, insertion-ordered; a repeated ID keeps its first place and
 * takes the later endpoint), with entries taken out as they are handled. Small sets are searched in place;
 * larger ones keep an ID index.
 */
class PendingEndpoints {
  /**
   * The first `size` places of these are the entries; the arrays never shrink. Emptying an array by
   * `length = 0` is a call into V8's runtime (an accessor), three per staging: about 1,300 instructions per
   * dcm-slots event of the saturated day, more than the rest of the staging's bookkeeping.
   */
  private readonly ids: string[] = [];
  private readonly eps: ServedEndpoint[] = [];
  private readonly live: boolean[] = [];
  private size = 0;
  private index: Map<string, number> | null = null;
  private cursor = 0;
  remaining = 0;

  /** Empties it and fills it with these endpoints; `distinct`: no ID repeats among them. */
  reset(endpoints: readonly ServedEndpoint[], distinct: boolean): this {
    this.size = 0;
    this.cursor = 0;
    this.guess = 0;
    this.remaining = 0;
    this.index = endpoints.length > SMALL ? new Map() : null;
    for (const e of endpoints) {
      // A repeated ID is looked for by a scan: the guess in slotOf is for the lookups after.
      const i = this.index !== null ? (this.index.get(e.id) ?? -1) : distinct ? -1 : this.scan(e.id);
      if (i >= 0) {
        this.eps[i] = e;
        continue;
      }
      const at = this.size++;
      this.index?.set(e.id, at);
      this.ids[at] = e.id;
      this.eps[at] = e;
      this.live[at] = true;
      this.remaining++;
    }
    return this;
  }

  /** The live entry for this ID, or -1 (absent, or already taken). */
  find(id: string): number {
    const i = this.slotOf(id);
    return i >= 0 && this.live[i] ? i : -1;
  }

  at(i: number): ServedEndpoint {
    return this.eps[i]!;
  }

  take(i: number): void {
    this.live[i] = false;
    this.remaining--;
  }

  /** The first live entry in insertion order, or -1. */
  first(): number {
    while (this.cursor < this.size && !this.live[this.cursor]) this.cursor++;
    return this.cursor < this.size ? this.cursor : -1;
  }

  /**
   * Where the ID after the last one found would be. The old endpoints and the servers come mostly in the
   * new list's order (the router's, which the last render also followed), so the ID asked for next is
   * usually there: one comparison, where a scan compared every ID before it, each long and alike for its
   * first dozen characters (`pod:<service>-…`). With `distinct` below, dcm-slots went from 49,918-52,455 to
   * 47,843-49,765 instructions per event of the churn log (bench:instructions, garbage collection aside,
   * four runs each, 2 Dec 2026).
   */
  private guess = 0;

  private slotOf(id: string): number {
    if (this.index !== null) return this.index.get(id) ?? -1;
    const g = this.guess;
    if (g < this.size && this.ids[g] === id) {
      this.guess = g + 1;
      return g;
    }
    const i = this.scan(id);
    if (i >= 0) this.guess = i + 1;
    return i;
  }

  /** The place of this ID among the entries, or -1. */
  private scan(id: string): number {
    const ids = this.ids;
    for (let i = 0; i < this.size; i++) if (ids[i] === id) return i;
    return -1;
  }
}

/**
 * Scratch for the one staging in progress: a change stages one backend at a time, to the end, before the
 * next (the function never yields), and an endpoint event stages at least once, so these are not made per
 * call. Each call starts them empty (by count, see PendingEndpoints) and lets go of each unused server as it
 * reads it, so no server stays reachable.
 */
const PENDING = new PendingEndpoints();
const UNUSED: (CachedServer | undefined)[] = [];

/** UpdateServerInfo + EnableServer. */
function stage(s: CachedServer, ep: ServedEndpoint, weight: string): void {
  s.nextAddress = ep.ip;
  if (ep.port > 0) s.nextPort = ep.port;
  s.nextWeight = weight;
  s.nextState = 'ready';
}
