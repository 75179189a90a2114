import type { ServedEndpoint } from '../haproxy/names.ts';
import type { CachedServer } from './runtime-view.ts';

/** isDynamicBackendServer: any server whose name starts with the constant prefix `_dynamic`. */
export const DYNAMIC_SERVER_PREFIX = '_dynamic';

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
 */
export function stageEndpointReplace(
  servers: readonly CachedServer[],
  slotMap: Map<string, string>,
  oldEndpoints: readonly ServedEndpoint[],
  newEndpoints: readonly ServedEndpoint[],
  weight: string,
): StagedReplace {
  if (oldEndpoints.length <= SMALL && newEndpoints.length <= SMALL) return stageSmall(servers, slotMap, oldEndpoints, newEndpoints, weight);
  const modified = new Map<string, ServedEndpoint>();
  for (const e of newEndpoints) modified.set(e.id, e);
  let deleted: Set<string> | null = null;
  let changed = false;
  for (const e of oldEndpoints) {
    const n = modified.get(e.id);
    if (n !== undefined) {
      if (n.ip === e.ip && n.port === e.port) modified.delete(e.id);
    } else {
      (deleted ??= new Set()).add(e.id);
      changed = true;
    }
  }
  if (modified.size === 0 && deleted === null) return { changed, remaining: 0 };

  const unused: CachedServer[] = [];
  for (const s of servers) {
    let related = s.name;
    const dynamic = s.name.startsWith(DYNAMIC_SERVER_PREFIX);
    if (dynamic) {
      const mapped = slotMap.get(s.name);
      if (mapped === undefined) {
        unused.push(s);
        continue;
      }
      related = mapped;
    }
    if (deleted !== null && deleted.has(related)) {
      changed = true;
      s.nextState = 'maint';
      if (dynamic) slotMap.delete(s.name);
      continue;
    }
    const ep = modified.get(related);
    if (ep !== undefined) {
      changed = true;
      stage(s, ep, weight);
      modified.delete(related);
    }
  }

  for (const s of unused) {
    if (modified.size === 0) break;
    const ep = modified.values().next().value as ServedEndpoint;
    changed = true;
    slotMap.set(s.name, ep.id);
    stage(s, ep, weight);
    modified.delete(ep.id);
  }
  return { changed, remaining: modified.size };
}

/** Up to this many endpoints a side, the endpoint sets are arrays searched in place (no Map or Set per change). */
const SMALL = 16;

/**
 * stageEndpointReplace over arrays: `modified` is an insertion-ordered list with a live flag per entry, read
 * exactly as the Map would be (a repeated new ID keeps its first place and takes the later endpoint; a
 * deleted entry is gone for good), and `deleted` a list of IDs.
 */
function stageSmall(
  servers: readonly CachedServer[],
  slotMap: Map<string, string>,
  oldEndpoints: readonly ServedEndpoint[],
  newEndpoints: readonly ServedEndpoint[],
  weight: string,
): StagedReplace {
  const ids: string[] = [];
  const eps: ServedEndpoint[] = [];
  const live: boolean[] = [];
  for (const e of newEndpoints) {
    const i = ids.indexOf(e.id);
    if (i >= 0) eps[i] = e;
    else {
      ids.push(e.id);
      eps.push(e);
      live.push(true);
    }
  }
  let remaining = ids.length;
  let deleted: string[] | null = null;
  let changed = false;
  for (const e of oldEndpoints) {
    const i = liveIndex(ids, live, e.id);
    if (i >= 0) {
      const n = eps[i]!;
      if (n.ip === e.ip && n.port === e.port) {
        live[i] = false;
        remaining--;
      }
    } else {
      (deleted ??= []).push(e.id);
      changed = true;
    }
  }
  if (remaining === 0 && deleted === null) return { changed, remaining: 0 };

  const unused: CachedServer[] = [];
  for (const s of servers) {
    let related = s.name;
    const dynamic = s.name.startsWith(DYNAMIC_SERVER_PREFIX);
    if (dynamic) {
      const mapped = slotMap.get(s.name);
      if (mapped === undefined) {
        unused.push(s);
        continue;
      }
      related = mapped;
    }
    if (deleted !== null && deleted.includes(related)) {
      changed = true;
      s.nextState = 'maint';
      if (dynamic) slotMap.delete(s.name);
      continue;
    }
    const i = liveIndex(ids, live, related);
    if (i >= 0) {
      changed = true;
      stage(s, eps[i]!, weight);
      live[i] = false;
      remaining--;
    }
  }

  let next = 0;
  for (const s of unused) {
    if (remaining === 0) break;
    while (!live[next]) next++;
    const ep = eps[next]!;
    changed = true;
    slotMap.set(s.name, ep.id);
    stage(s, ep, weight);
    live[next] = false;
    remaining--;
  }
  return { changed, remaining };
}

function liveIndex(ids: readonly string[], live: readonly boolean[], id: string): number {
  for (let i = 0; i < ids.length; i++) if (live[i] && ids[i] === id) return i;
  return -1;
}

/** UpdateServerInfo + EnableServer. */
function stage(s: CachedServer, ep: ServedEndpoint, weight: string): void {
  s.nextAddress = ep.ip;
  if (ep.port > 0) s.nextPort = ep.port;
  s.nextWeight = weight;
  s.nextState = 'ready';
}
