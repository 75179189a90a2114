import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { BackendConfig } from '../../core/haproxy/config-model.ts';
import { renderRouterConfig } from '../../core/haproxy/config-renderer.ts';
import { applyChurn, emptyRouterState } from '../../core/router-state.ts';
import { backendFromConfig, nextFreeServerId } from './backend-state.ts';
import { parseHaproxyCfg } from './cfg-parser.ts';
import { MockHaproxy } from './mock-haproxy.ts';

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

/**
 * srv_check_state's paused bit (8) and the health of servers that never ran a check, as HAProxy 2.6.12 showed
 * them (measured: these configs and commands over the stats socket, `show servers state be` after each
 * group; the servers' addresses were unreachable, so only servers without a running check are compared).
 * Each row: op state, admin state, check health, check state (2 configured, 4 enabled, 8 paused).
 */
describe('check state and health without a check run', () => {
  const cfg = [
    'backend be',
    '  server s1 192.0.2.1:80',
    '  server s3 192.0.2.3:80 disabled',
    '  server s4 192.0.2.4:80 check disabled',
    '  server s5 192.0.2.5:80 check port 81 disabled weight 0',
    '',
  ].join('\n');
  const rows = (m: MockHaproxy, names: readonly string[]): string[] =>
    m
      .execute('show servers state be')
      .split('\n')
      .map((l) => l.split(' '))
      .filter((f) => f[1] === 'be' && names.includes(f[3]!))
      .map((f) => [f[3], f[5], f[6], f[12], f[13]].join(' '));
  const loaded = (): MockHaproxy => {
    const parsed = parseHaproxyCfg(cfg, { cfgFile: 'h.cfg', readFile: () => '' });
    const m = new MockHaproxy();
    m.load(parsed.config, parsed.layout);
    return m;
  };

  it('keeps `disabled` paused for good without a check, and clears it on ready only while checks are enabled', () => {
    const m = loaded();
    expect(rows(m, ['s3', 's4', 's5'])).toEqual(['s3 0 5 0 8', 's4 0 5 0 14', 's5 0 5 0 14']);
    for (const c of ['set server be/s1 state maint', 'set server be/s3 state ready', 'set server be/s3 state maint', 'set server be/s3 state drain']) m.execute(c);
    // A server without checks is not paused by maintenance (s1); s3 stays paused through ready, maint, drain.
    expect(rows(m, ['s1', 's3'])).toEqual(['s1 0 1 0 0', 's3 2 12 0 8']);
    for (const c of ['set server be/s1 state ready', 'set server be/s3 state ready', 'set server be/s5 state maint', 'set server be/s5 state ready', 'disable health be/s4']) m.execute(c);
    // s1 back from maintenance at health 0; s5 with checks: unpaused and at the rise count; s4, checks turned
    // off while paused, keeps the pause: configured + paused.
    expect(rows(m, ['s1', 's3', 's4', 's5'])).toEqual(['s1 2 0 0 0', 's3 2 4 0 8', 's4 0 5 0 10', 's5 2 4 2 6']);
  });

  it('pauses a dynamic server added `disabled`, which ready does not clear without `enable health`', () => {
    const m = loaded();
    for (const c of [
      'add server be/d1 192.0.2.9:80',
      'add server be/d2 192.0.2.9:80 check',
      'add server be/d3 192.0.2.9:80 disabled',
      'add server be/d4 192.0.2.9:80 check disabled',
      'add server be/d5 192.0.2.9:80 check enabled',
    ]) {
      expect(m.execute(c)).toBe('New server registered.\n\n');
    }
    const names = ['d1', 'd2', 'd3', 'd4', 'd5'];
    expect(rows(m, names)).toEqual(['d1 0 1 0 0', 'd2 0 1 0 2', 'd3 0 5 0 8', 'd4 0 5 0 10', 'd5 2 0 2 2']);
    for (const c of ['set server be/d1 state ready', 'set server be/d2 state ready', 'set server be/d3 state ready', 'set server be/d4 state ready', 'enable health be/d2']) m.execute(c);
    expect(rows(m, names)).toEqual(['d1 2 0 0 0', 'd2 2 0 0 6', 'd3 2 4 0 8', 'd4 2 4 0 10', 'd5 2 0 2 2']);
  });
});
