import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { BackendConfig } from '../../core/haproxy/config-model.ts';
import { backendFromConfig } from './backend-state.ts';
import { parseDynamicServerOptions, readDynamicServerOptions } from './dynamic-server-options.ts';

const config = (names: readonly string[]): BackendConfig => ({
  name: 'be',
  mode: 'http',
  balance: 'roundrobin',
  servers: names.map((name) => ({ name, address: '10.0.0.1', port: 80, weight: 1, disabled: false, check: false })),
});

/** Keyword lines a manager sends, and lines that are refused, warned about, or depend on the backend (`id`). */
const line = fc.oneof(
  fc.constantFrom(['weight', '1', 'check', 'inter', '5000ms'], ['weight', '1', 'check', 'inter', '5000ms'], ['weight', '1', 'ssl', 'verify', 'none', 'check-ssl', 'check', 'inter', '2s'], ['weight', '1', 'id', '1'], ['id', '2', 'check'], ['check', 'inter', '5000msx']),
  fc.array(fc.constantFrom('weight', '1', '300', 'check', 'inter', '5000ms', '5000msx', 'id', '1', '2', 'agent-check', 'agent-port', 'port', '80', 'bogus', 'enabled', 'disabled'), { maxLength: 8 }),
);

describe('parseDynamicServerOptions', () => {
  test.prop([fc.array(fc.tuple(line, fc.constantFrom('s1', 's2', 'new'), fc.constantFrom(0, 2)), { minLength: 1, maxLength: 20 })], { numRuns: 300 })(
    'answers as reading the keywords afresh does, whatever was read before',
    (adds) => {
      const backends = [backendFromConfig(config(['s1', 's2']), 1, 0), backendFromConfig(config([]), 2, 0)];
      for (const [words, name, pad] of adds) {
        const be = backends[name === 'new' ? 1 : 0]!;
        // The text path passes the whole command line, the typed path the keywords alone.
        const line = [...Array(pad).fill('x'), ...words];
        expect(parseDynamicServerOptions(be, name, line, pad)).toEqual(readDynamicServerOptions(be, name, line, pad));
      }
    },
  );
});
