import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { BackendConfig } from '../../core/haproxy/config-model.ts';
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
