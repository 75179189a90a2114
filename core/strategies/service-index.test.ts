import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../endpoint.ts';
import { servedEndpoints } from '../haproxy/names.ts';
import { sameServed, sameServedEndpoints } from './service-index.ts';

// Few distinct values so duplicates, reorders and not-ready twins come up often.
const endpointArb: fc.Arbitrary<Endpoint> = fc
  .record({
    ip: fc.constantFrom('10.0.0.1', '10.0.0.2'),
    port: fc.constantFrom(80, 8080),
    name: fc.constantFrom(undefined, 'p1', 'p2'),
    ready: fc.constantFrom(undefined, true, false),
    portName: fc.constantFrom(undefined, 'http', 'web'),
  })
  .map(({ ip, port, name, ready, portName }) => ({ ip, port, ...(name !== undefined && { name }), ...(ready !== undefined && { ready }), ...(portName !== undefined && { portName }) }));

describe('sameServedEndpoints', () => {
  test.prop([fc.array(endpointArb, { maxLength: 20 }), fc.array(endpointArb, { maxLength: 20 })], { numRuns: 2000 })(
    'answers as comparing the served lists does',
    (a, b) => {
      expect(sameServedEndpoints('svc', a, b)).toBe(sameServed(servedEndpoints('svc', a), servedEndpoints('svc', b)));
      expect(sameServedEndpoints('svc', a, a)).toBe(true);
    },
  );

  it('sees through duplicates and not-ready entries', () => {
    const e = { ip: '10.0.0.1', port: 80, name: 'p1' };
    // [e, e] serves e once (plugin.go drops repeated IDs), so it serves as [e] does.
    expect(sameServedEndpoints('svc', [e, e], [e])).toBe(true);
    expect(sameServedEndpoints('svc', [e, { ...e, ip: '10.0.0.2', ready: false }], [e])).toBe(true);
    expect(sameServedEndpoints('svc', [e], [{ ...e, port: 81 }])).toBe(false);
  });
});
