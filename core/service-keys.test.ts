import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { serviceKey } from './route.ts';
import { applyChurn, emptyRouterState } from './router-state.ts';
import { ServiceKeys } from './service-keys.ts';

describe('ServiceKeys', () => {
  // That it is the same string object each time cannot be observed from JavaScript (strings compare by
  // value); what can be, and matters, is that it is always the right key, among many services.
  test.prop([fc.array(fc.tuple(fc.constantFrom('a', 'b', 'a/b', ''), fc.constantFrom('x', 'b/x', 'y', '')), { maxLength: 30 })])(
    'gives each service its key, however the calls interleave',
    (calls) => {
      const keys = new ServiceKeys();
      for (const [ns, svc] of calls) expect(keys.of(ns, svc)).toBe(serviceKey(ns, svc));
    },
  );

  // A model: the set of services asked for and not forgotten since. Repeats in a row (the memo's case) are common.
  test.prop([fc.array(fc.tuple(fc.boolean(), fc.constantFrom('a', 'b', 'a/b'), fc.constantFrom('x', 'b/x', 'y')), { maxLength: 40 })])(
    'remembers exactly the services asked for and not forgotten since, with the right keys',
    (calls) => {
      const keys = new ServiceKeys();
      const model = new Set<string>();
      for (const [forget, ns, svc] of calls) {
        if (forget) {
          keys.forget(ns, svc);
          model.delete(JSON.stringify([ns, svc]));
        } else {
          expect(keys.of(ns, svc)).toBe(serviceKey(ns, svc));
          expect(keys.of(ns, svc)).toBe(serviceKey(ns, svc));
          model.add(JSON.stringify([ns, svc]));
        }
        expect(keys.size).toBe(model.size);
      }
    },
  );

  it('remembers each service once, forgets one, and makes its key again when it comes back', () => {
    const keys = new ServiceKeys();
    keys.of('ns', 'a');
    keys.of('ns', 'a');
    keys.of('ns', 'b');
    keys.of('other', 'a');
    expect(keys.size).toBe(3);
    keys.forget('ns', 'a');
    keys.forget('ns', 'never-seen');
    keys.forget('nowhere', 'a');
    expect(keys.size).toBe(2);
    expect(keys.of('ns', 'a')).toBe('ns/a');
    expect(keys.size).toBe(3);
  });

  it('is what applyChurn keys the endpoints by, and an endpoints.delete forgets it', () => {
    const state = emptyRouterState();
    const set = { at: 0, type: 'endpoints.set' as const, namespace: 'ns', service: 'web', endpoints: [{ ip: '10.0.0.1', port: 80 }] };
    const change = applyChurn(state, set);
    expect(change?.kind === 'endpoints.changed' && change.key).toBe('ns/web');
    expect([...state.endpoints.keys()]).toEqual(['ns/web']);
    expect(state.serviceKeys.size).toBe(1);
    applyChurn(state, { at: 1, type: 'endpoints.delete', namespace: 'ns', service: 'web' });
    expect(state.endpoints.size).toBe(0);
    expect(state.serviceKeys.size).toBe(0);
  });
});
