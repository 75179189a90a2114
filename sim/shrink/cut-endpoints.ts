import { endpointId, type Endpoint } from '../../core/endpoint.ts';
import type { InputEvent } from '../../core/events.ts';
import { serviceKey } from '../../core/route.ts';
import { ddmin } from './ddmin.ts';
import type { PassResult, Probe } from './probe.ts';

/**
 * Fewer endpoints: first each service's pods (an endpoint, by address, port, pod and port name) cut by ddmin
 * from all of that service's `endpoints.set` at once, since a failure often needs the same pod in two sets
 * (one that goes and comes back); then each `endpoints.set` in turn, its own endpoints cut by ddmin with the
 * rest of the log as it stands. The result is 1-minimal in each event's endpoints.
 */
export async function cutEndpoints(events: InputEvent[], probe: Probe): Promise<PassResult> {
  const stop = { shouldStop: () => probe.shouldStop() };
  let current = events;
  let changed = false;
  for (const service of servicesOf(current)) {
    const base = current;
    const pods = podsOf(base, service);
    if (pods.length === 0) continue;
    const keeping = (kept: string[]): InputEvent[] => {
      const keep = new Set(kept);
      return base.map((e) => (e.type === 'endpoints.set' && serviceKey(e.namespace, e.service) === service ? { ...e, endpoints: e.endpoints.filter((ep) => keep.has(endpointId(ep))) } : e));
    };
    const r = await ddmin(pods, (kept) => probe.fails(keeping(kept)), stop);
    if (r.items.length < pods.length) {
      current = keeping(r.items);
      changed = true;
    }
    if (r.stopped) return { events: current, changed, stopped: true };
  }
  for (let i = 0; i < current.length; i++) {
    const e = current[i]!;
    if (e.type !== 'endpoints.set' || e.endpoints.length === 0) continue;
    const base = current;
    const withEndpoints = (endpoints: Endpoint[]): InputEvent[] => base.map((x, j) => (j === i ? { ...e, endpoints } : x));
    const r = await ddmin(e.endpoints, (endpoints) => probe.fails(withEndpoints(endpoints)), stop);
    if (r.items.length < e.endpoints.length) {
      current = withEndpoints(r.items);
      changed = true;
    }
    if (r.stopped) return { events: current, changed, stopped: true };
  }
  return { events: current, changed, stopped: false };
}

/** The services with an `endpoints.set`, in the order they first have one. */
function servicesOf(events: readonly InputEvent[]): string[] {
  const out = new Set<string>();
  for (const e of events) if (e.type === 'endpoints.set') out.add(serviceKey(e.namespace, e.service));
  return [...out];
}

/** A service's distinct endpoints over all its sets, in the order they first appear. */
function podsOf(events: readonly InputEvent[], service: string): string[] {
  const out = new Set<string>();
  for (const e of events) if (e.type === 'endpoints.set' && serviceKey(e.namespace, e.service) === service) for (const ep of e.endpoints) out.add(endpointId(ep));
  return [...out];
}
