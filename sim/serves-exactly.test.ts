import { fc, test } from '@fast-check/vitest';
import { describe } from 'vitest';
import type { Endpoint } from '../core/endpoint.ts';
import type { BackendConfig } from '../core/haproxy/config-model.ts';
import { backendFromConfig, isReady } from './haproxy/backend-state.ts';
import { expectedServers, servesExactly } from './invariants.ts';

// Few addresses and ports, so that repeats (same address and port under two names, one server listed
// twice) and near misses (right address, wrong port) are common.
const ip = fc.constantFrom('10.0.0.1', '10.0.0.2', '10.0.0.3');
const port = fc.constantFrom(8080, 8443);
const endpoint = fc.record({ ip, port, ready: fc.boolean(), name: fc.constantFrom('a', 'b', 'c', 'd') }) as fc.Arbitrary<Endpoint>;
const server = fc.record({ address: ip, port, weight: fc.constantFrom(0, 1), disabled: fc.boolean() });

describe('servesExactly', () => {
  // The reference is the checker's former comparison: the ready servers' "address:port", sorted and joined,
  // equal to the expected list's.
  test.prop([fc.array(endpoint, { maxLength: 6 }), fc.array(server, { maxLength: 8 })])('agrees with comparing the sorted address lists', (endpoints, servers) => {
    const config: BackendConfig = { name: 'be', mode: 'http', balance: 'roundrobin', servers: servers.map((s, i) => ({ name: `s${i}`, ...s, check: false })) };
    const be = backendFromConfig(config, 1, 0);
    const expected = expectedServers('svc', endpoints);
    const actual = be.servers.filter(isReady).map((s) => `${s.address}:${s.port}`).sort().join(',');
    const verdict = actual === expected.joined;
    // The config line of a backend not built yet must give the verdict its built state gives.
    return servesExactly(be, expected) === verdict && servesExactly(config, expected) === verdict;
  });
});
