import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { BackendConfig } from '../../core/haproxy/config-model.ts';
import { renderRouterConfig } from '../../core/haproxy/config-renderer.ts';
import { applyChurn, emptyRouterState } from '../../core/router-state.ts';
import { backendFromConfig, nextFreeServerId } from './backend-state.ts';

const config = (names: readonly string[]): BackendConfig => ({
  name: 'be',
  mode: 'http',
  balance: 'roundrobin',
  servers: names.map((name) => ({ name, address: '10.0.0.1', port: 80, weight: 1, disabled: false, check: false })),
});

/**
 * The name lookup is a Map filled in server order (the later of two servers of one name wins) and kept
 * in step with deletions (a deleted name is forgotten, even when another server had it): the plain model
 * below. The backend answers so whether it scans, indexes, or indexes only once a name repeats.
 */
describe('MockBackend server lookup', () => {
  test.prop([fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 8 })], { numRuns: 300 })(
    'finds what a Map of the config names, less the deleted ones, finds',
    (names, deletions) => {
      const be = backendFromConfig(config(names), 1, 0);
      const model = new Map(be.servers.map((s) => [s.name, s]));
      for (const d of deletions) {
        if (be.servers.length === 0) break;
        const victim = be.servers[d % be.servers.length]!;
        be.remove(victim);
        model.delete(victim.name);
        for (const n of ['a', 'b', 'c', 'd']) expect(be.server(n)).toBe(model.get(n));
      }
      for (const n of ['a', 'b', 'c', 'd']) expect(be.server(n)).toBe(model.get(n));
    },
  );
});

describe('nextFreeServerId', () => {
  test.prop([fc.array(fc.integer({ min: 1, max: 24 }), { maxLength: 30 })], { numRuns: 300 })('is the smallest id no server uses', (ids) => {
    const be = backendFromConfig(config(ids.map((_, i) => `s${i}`)), 1, 0);
    be.servers.forEach((s, i) => (s.id = ids[i]!));
    let expected = 1;
    while (ids.includes(expected)) expected++;
    expect(nextFreeServerId(be)).toBe(expected);
  });
});

/**
 * A renderer marks the addresses it knows to be dotted quads (ServerConfig.canonicalAddress) so that the
 * rebuild after a reload need not parse them: the servers built must be those built without the hint.
 */
describe('backendFromConfig with the renderer\'s address hint', () => {
  const octet = fc.oneof(fc.integer({ min: 0, max: 255 }).map(String), fc.constantFrom('00', '010', '256'));
  const ipv4ish = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
  const ipv6 = fc.ipV6().chain((v6) => fc.constantFrom(v6, v6.toUpperCase(), `0:0:${v6.split(':').slice(2).join(':')}`));
  const ip = fc.oneof(fc.ipV4(), ipv4ish, ipv6, fc.constantFrom('::ffff:10.0.0.1', '0:0:0:0:0:ffff:a00:1'));
  test.prop([fc.array(fc.record({ ip, port: fc.integer({ min: 1, max: 65535 }), slots: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 12 })], { numRuns: 300 })(
    'builds what the config without the hint builds',
    (endpoints) => {
      const state = emptyRouterState();
      applyChurn(state, { at: 0, type: 'route.upsert', route: { namespace: 'ns', name: 'r', host: 'r.example.com', service: 's' } });
      applyChurn(state, { at: 0, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints: endpoints.map(({ ip, port }) => ({ ip, port })) });
      const cfg = renderRouterConfig(state, { maxDynamicServers: endpoints[0]!.slots }).backends[0]!;
      expect(cfg.servers.some((s) => s.canonicalAddress === true)).toBe(endpoints.some((e) => /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(e.ip)) || endpoints[0]!.slots > 0);
      const unhinted: BackendConfig = { ...cfg, servers: cfg.servers.map(({ canonicalAddress: _, ...s }) => s) };
      expect(backendFromConfig(cfg, 1, 0).servers).toEqual(backendFromConfig(unhinted, 1, 0).servers);
    },
  );
});
