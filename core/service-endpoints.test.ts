import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { Endpoint } from './endpoint.ts';
import { serviceKey } from './route.ts';
import { applyChurn, emptyRouterState } from './router-state.ts';
import { ServiceEndpoints } from './service-endpoints.ts';

describe('ServiceEndpoints', () => {
  // That it is the same string object each time cannot be observed from JavaScript (strings compare by
  // value); what can be, and matters, is that it is always the right key, among many services.
  test.prop([fc.array(fc.tuple(fc.constantFrom('a', 'b', 'a/b', ''), fc.constantFrom('x', 'b/x', 'y', '')), { maxLength: 30 })])(
    'gives each service its key, however the calls interleave',
    (calls) => {
      const services = new ServiceEndpoints();
      for (const [ns, svc] of calls) expect(services.keyOf(ns, svc)).toBe(serviceKey(ns, svc));
    },
  );

  // A model: a Map of the endpoints set and not forgotten since, and the set of services asked for and not
  // forgotten since. Repeats in a row (the memo's case) are common.
  test.prop([
    fc.array(fc.tuple(fc.constantFrom('ask', 'put', 'forget'), fc.constantFrom('a', 'b', 'c'), fc.constantFrom('x', 'y', 'z'), fc.nat(3)), { maxLength: 40 }),
  ])('remembers exactly the services asked for and not forgotten since, and reads as a map of those with endpoints', (calls) => {
    const services = new ServiceEndpoints();
    const asked = new Set<string>();
    const model = new Map<string, Endpoint[]>();
    for (const [op, ns, svc, n] of calls) {
      const key = serviceKey(ns, svc);
      if (op === 'forget') {
        services.forget(ns, svc);
        asked.delete(key);
        model.delete(key);
      } else {
        const entry = services.entryOf(ns, svc);
        expect(entry.key).toBe(key);
        expect(services.entryOf(ns, svc)).toBe(entry);
        asked.add(key);
        if (op === 'put') {
          const endpoints = Array.from({ length: n }, (_, i) => ({ ip: `10.0.0.${i}`, port: 80 }));
          services.put(entry, endpoints);
          model.set(key, endpoints);
        }
        expect(entry.endpoints).toBe(model.get(key));
      }
      expect(services.services).toBe(asked.size);
      expect(services.size).toBe(model.size);
      expect(new Map(services)).toEqual(model);
      for (const k of ['a/x', 'b/y', 'c/z']) {
        expect(services.get(k)).toBe(model.get(k));
        expect(services.has(k)).toBe(model.has(k));
      }
    }
  });

  it('remembers each service once, forgets one, and makes a new entry when it comes back', () => {
    const services = new ServiceEndpoints();
    const a = services.entryOf('ns', 'a');
    services.entryOf('ns', 'b');
    services.entryOf('other', 'a');
    expect(services.entryOf('ns', 'a')).toBe(a);
    expect(services.services).toBe(3);
    services.forget('ns', 'a');
    services.forget('ns', 'never-seen');
    services.forget('nowhere', 'a');
    expect(services.services).toBe(2);
    const again = services.entryOf('ns', 'a');
    expect(again).not.toBe(a);
    expect(again.key).toBe('ns/a');
    expect(services.services).toBe(3);
  });

  it('sets by key at the first slash, and refuses a key without one', () => {
    const services = new ServiceEndpoints();
    services.set('ns/web/x', [{ ip: '10.0.0.1', port: 80 }]);
    expect(services.entryOf('ns', 'web/x').endpoints).toEqual([{ ip: '10.0.0.1', port: 80 }]);
    expect(() => services.set('web', [])).toThrow(/not a service key/);
  });

  it('is what applyChurn keeps the endpoints in, and an endpoints.delete forgets the service', () => {
    const state = emptyRouterState();
    const set = { at: 0, type: 'endpoints.set' as const, namespace: 'ns', service: 'web', endpoints: [{ ip: '10.0.0.1', port: 80 }] };
    const change = applyChurn(state, set);
    expect(change?.kind === 'endpoints.changed' && change.key).toBe('ns/web');
    expect(change?.kind === 'endpoints.changed' && change.entry).toBe(state.endpoints.entryOf('ns', 'web'));
    expect([...state.endpoints.keys()]).toEqual(['ns/web']);
    expect(state.endpoints.services).toBe(1);
    applyChurn(state, { at: 1, type: 'endpoints.delete', namespace: 'ns', service: 'web' });
    expect(state.endpoints.size).toBe(0);
    expect(state.endpoints.services).toBe(0);
  });
});
