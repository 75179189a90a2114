import { describe, expect, it } from 'vitest';
import type { ChurnEvent } from '../core/events.ts';
import type { Route } from '../core/route.ts';
import { createStrategy } from '../core/strategies/index.ts';
import { Harness } from '../core/testing/harness.ts';
import { escapeCliKey } from '../core/haproxy/cli-escape.ts';
import { routeRegexp } from '../core/haproxy/route-regexp.ts';
import { MockHaproxy } from './haproxy/mock-haproxy.ts';
import { checkInvariants } from './invariants.ts';
import { RouterSettingsSchema } from './settings.ts';

function harness(strategy: 'reload-always' | 'dcm-slots' | 'dcm-add-del', extra: Record<string, unknown> = {}) {
  const mock = new MockHaproxy();
  const h = new Harness(createStrategy(RouterSettingsSchema.parse({ strategy, ...extra })), {
    load: (c) => mock.load(c),
    send: (command) => mock.send(command),
  });
  return { mock, h };
}

const route = (name: string, extra: Partial<Route> = {}): Route => ({ namespace: 'ns', name, host: `${name}.example.com`, service: name, ...extra });
const up = (r: Route): ChurnEvent => ({ at: 0, type: 'route.upsert', route: r });
const eps = (svc: string, ...ips: number[]): ChurnEvent => ({
  at: 0,
  type: 'endpoints.set',
  namespace: 'ns',
  service: svc,
  endpoints: ips.map((i) => ({ ip: `10.1.0.${i}`, port: 8080, name: `${svc}-${i}` })),
});

describe('checkInvariants against MockHaproxy', () => {
  it('holds after the initial reload for every kind of route', () => {
    const { mock, h } = harness('dcm-slots');
    h.sync([
      up(route('a')),
      up(route('e', { tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'Allow' } })),
      up(route('p', { tls: { termination: 'passthrough' } })),
      up(route('r', { tls: { termination: 'reencrypt' }, path: '/api' })),
      eps('a', 1, 2),
      eps('e', 3),
      eps('p', 4),
    ]);
    expect(checkInvariants(h.state, mock)).toEqual([]);
  });

  it('detects a backend that lags behind the desired endpoints, then holds after the dynamic change', () => {
    const { mock, h } = harness('dcm-slots');
    h.sync([up(route('a')), eps('a', 1)]);
    // Change the desired state without telling the strategy: HAProxy is now behind.
    h.state.endpoints.set('ns/a', [{ ip: '10.1.0.9', port: 8080 }]);
    expect(checkInvariants(h.state, mock)).toEqual([
      'ns/a via http://a.example.com/: backend be_http:ns:a serves [10.1.0.1:8080], expected [10.1.0.9:8080]',
    ]);
  });

  it('a deleted route resolves nowhere after dcm-slots removes it at runtime', () => {
    const { mock, h } = harness('dcm-slots');
    h.sync([up(route('a')), eps('a', 1), up(route('b')), eps('b', 2)]);
    h.apply({ at: 0, type: 'route.delete', namespace: 'ns', name: 'a' });
    expect(h.requests).toEqual([]);
    expect(checkInvariants(h.state, mock)).toEqual([]);
    // Re-adding it takes a pool slot; still consistent.
    h.apply(up(route('a')));
    expect(h.requests).toEqual([]);
    expect(checkInvariants(h.state, mock)).toEqual([]);
  });

  it('an edge route with the Redirect policy is consistent after it settles', () => {
    // Real HAProxy 2.6 answers "unable to parse '<backend>'." to the 2018 manager's `add map` of a backend
    // name into os_route_http_redirect.map (read with map_reg_int); that makes the add fall back to a reload
    // once the mock types that map's values. Either way the state after the settle must hold.
    const { mock, h } = harness('dcm-slots');
    h.sync([up(route('a')), eps('a', 1)]);
    h.apply(up(route('s', { tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'Redirect' } })));
    h.settle();
    expect(checkInvariants(h.state, mock)).toEqual([]);
  });

  it('reports two routes sharing a pool slot', () => {
    const { mock, h } = harness('dcm-slots');
    h.sync([up(route('a')), eps('a', 1), up(route('b')), eps('b', 2)]);
    mock.execute(`add map /var/lib/haproxy/conf/os_http_be.map ${escapeCliKey(routeRegexp('x.example.com', undefined, false))} be_http:ns:a`);
    h.state.routes.set('ns/x', route('x', { host: 'x.example.com', service: 'a' }));
    const v = checkInvariants(h.state, mock);
    expect(v.some((s) => s.includes('share backend be_http:ns:a'))).toBe(true);
  });
});
