import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { Endpoint } from './endpoint.ts';
import { compareEndpoints, compareIp, inRouterOrder } from './endpoint-order.ts';
import { applyChurn, emptyRouterState } from './router-state.ts';
import { createStrategy } from './strategies/index.ts';
import { FakeHaproxy } from './testing/fake-haproxy.ts';
import { Harness } from './testing/harness.ts';

describe('endpoints in the router’s order (EndpointSlice conversion, DefaultEndpoint*OrderByFuncs)', () => {
  test('ports by number then name, addresses by the bytes of net.ParseIP (IPv4 as ::ffff:a.b.c.d)', () => {
    const list: Endpoint[] = [
      { ip: '10.0.0.10', port: 9090, portName: 'metrics' },
      { ip: '10.0.0.9', port: 8080, portName: 'web' },
      { ip: 'fd00::1', port: 8080, portName: 'web' },
      { ip: '10.0.0.10', port: 8080, portName: 'web' },
      { ip: '::1', port: 8080, portName: 'web' },
    ];
    // 8080 before 9090; within 8080: ::1 (0…01) < ::ffff:10.0.0.9 < ::ffff:10.0.0.10 (bytes 0…ffff 0a000009/0a) < fd00::1.
    expect(inRouterOrder(list).map((e) => `${e.ip}:${e.port}`)).toEqual(['::1:8080', '10.0.0.9:8080', '10.0.0.10:8080', 'fd00::1:8080', '10.0.0.10:9090']);
    expect(compareIp('::ffff:10.0.0.9', '10.0.0.9')).toBe(0);
    expect(compareIp('2001:db8::', '2001:db8:0:0:0:0:0:1')).toBeLessThan(0);
  });

  test('a sorted list is returned as it is (no copy)', () => {
    const list: Endpoint[] = [{ ip: '10.0.0.1', port: 80 }, { ip: '10.0.0.2', port: 80 }];
    expect(inRouterOrder(list)).toBe(list);
  });

  // Addresses that tie, differ by a byte, are IPv6 or not dotted quads at all; ports and port names that tie.
  const anyEndpoint = fc.record(
    {
      ip: fc.constantFrom('10.0.0.1', '10.0.0.2', '10.0.0.10', '9.255.255.255', '::1', '::ffff:10.0.0.2', 'fd00::1', '010.0.0.1'),
      port: fc.constantFrom(80, 8080),
      portName: fc.constantFrom('', 'http', 'web'),
    },
    { requiredKeys: ['ip', 'port'] },
  );
  test.prop([fc.array(anyEndpoint, { maxLength: 8 })], { numRuns: 2000 })('a list is kept when every neighbour pair is in order, else sorted', (list) => {
    const sorted = list.every((e, i) => i === 0 || compareEndpoints(list[i - 1]!, e) <= 0);
    const got = inRouterOrder(list);
    if (sorted) expect(got).toBe(list);
    else expect(got).toEqual([...list].sort(compareEndpoints));
  });

  const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
  test.prop([octets, octets])('IPv4 addresses compare as their four bytes, most significant first', (a, b) => {
    // net.ParseIP gives ::ffff:a.b.c.d; bytes.Compare then decides at the first octet that differs.
    const i = a.findIndex((o, k) => o !== b[k]);
    const want = i < 0 ? 0 : Math.sign(a[i]! - b[i]!);
    expect(Math.sign(compareIp(a.join('.'), b.join('.')))).toBe(want);
  });

  const ips = fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.constantFrom(8080, 9090), fc.boolean()), { minLength: 1, maxLength: 8, selector: ([a, b, p]) => `${a}.${b}:${p}` });
  test.prop([ips, fc.integer({ min: 0, max: 1000 })])('an endpoints.set that only reorders its addresses is no change, and the state holds them sorted', (list, seed) => {
    const eps: Endpoint[] = list.map(([a, b, port, ready]) => ({ ip: `10.${a}.${b}.1`, port, ready }));
    const shuffled = [...eps].sort((x, y) => ((x.ip.length * 31 + x.port + seed) % 7) - ((y.ip.length * 31 + y.port + seed) % 7));
    const state = emptyRouterState();
    const first = applyChurn(state, { at: 0, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints: eps });
    expect(first).not.toBeNull();
    expect(applyChurn(state, { at: 1, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints: shuffled })).toBeNull();
    const kept = [...state.endpoints.values()][0]!;
    for (let i = 1; i < kept.length; i++) {
      const [x, y] = [kept[i - 1]!, kept[i]!];
      expect(x.port < y.port || (x.port === y.port && compareIp(x.ip, y.ip) <= 0)).toBe(true);
    }
  });
});

describe('a reorder that only drops a not-ready address is no change for any strategy', () => {
  // Before: 10.0.0.2, 10.0.0.1 and a not-ready 10.0.0.3 (the table, sorted: .1, .2). After: .1, .2 alone.
  // The state changed (the not-ready address left) but the EndpointTable, sorted, is the same: DeepEqual,
  // so upstream's AddEndpoints returns without a reload or a runtime call.
  const before: Endpoint[] = [{ ip: '10.0.0.2', port: 8080 }, { ip: '10.0.0.1', port: 8080 }, { ip: '10.0.0.3', port: 8080, ready: false }];
  const after: Endpoint[] = [{ ip: '10.0.0.1', port: 8080 }, { ip: '10.0.0.2', port: 8080 }];
  test.each(['reload-always', 'dcm-slots', 'dcm-add-del'] as const)('%s', (name) => {
    const fake = new FakeHaproxy();
    const h = new Harness(createStrategy({ strategy: name, maxDynamicServers: 5, blueprintPoolSize: 2, blueprintNamespace: '', blueprints: [], allowWildcardRoutes: false }), fake);
    h.sync([{ at: 0, type: 'route.upsert', route: { namespace: 'ns', name: 'r', host: 'r.example.com', service: 's' } }, { at: 0, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints: before }]);
    fake.commands.length = 0;
    h.apply({ at: 1, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints: after });
    expect(h.requests).toEqual([]);
    expect(fake.commands).toEqual([]);
    expect(h.commitArms).toBe(0);
  });
});
