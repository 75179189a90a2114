import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isDottedQuad } from '../../core/dotted-quad.ts';
import { InputEventSchema } from './event-schema.ts';
import { MAX_AT_MS } from './event-time.ts';
import { looksValid } from './fast-event-check.ts';
import { isRouteHost } from './route-host.ts';

const name = fc.oneof(fc.constantFrom('', 'a', 'shop', 'web-1'), fc.string({ maxLength: 4 }));
const ip = fc.oneof(fc.ipV4(), fc.constantFrom('10.0.0', '256.1.1.1', '01.2.3.4', '::1', 'x', ''), fc.ipV6());
// MAX_AT_MS and one past it: the last time the µs clock holds exactly, and the first it does not.
const num = fc.oneof(
  fc.integer({ min: -2, max: 70000 }),
  fc.constantFrom(1.5, NaN, 0, -0, MAX_AT_MS, MAX_AT_MS + 1, 2 ** 53 - 1, 2 ** 53, 1e300),
  fc.constant('80' as unknown as number),
);
/**
 * Hosts near the rule's edges: labels of 63 and 64 characters, 253 and 254 in all, '-' at either end of a
 * label, empty labels, upper case, a space (the audit's "x y.com"), a wildcard, a trailing dot; and random
 * dotted strings over an alphabet with a few characters the rule refuses.
 */
const hostLike = fc.oneof(
  fc.constantFrom(
    'h', 'web.example.com', 'x y.com', 'Web.example.com', '*.example.com', 'example.com.', '.example.com', 'a..b',
    '-a.com', 'a-.com', 'a-b.c-d', '1.2.3.4', 'a_b.com', 'héllo.com', '',
    `${'a'.repeat(63)}.com`, `${'a'.repeat(64)}.com`,
    // 4 labels of 63 plus 3 dots is 255; dropping 2 characters from the last label gives 253, 1 gives 254.
    [1, 2, 3, 4].map((i) => (i === 4 ? 'd'.repeat(61) : String(i).repeat(63))).join('.'),
    [1, 2, 3, 4].map((i) => (i === 4 ? 'd'.repeat(62) : String(i).repeat(63))).join('.'),
  ),
  fc.array(fc.stringMatching(/^[a-z0-9-]{0,8}$/), { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.')),
  fc.stringMatching(/^[a-zA-Z0-9. _*-]{0,12}$/),
  fc.string({ maxLength: 6 }),
);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const endpoint = fc.record(
  {
    ip,
    port: num,
    ready: maybe(fc.oneof(fc.boolean(), fc.constant('yes'))),
    name: maybe(name),
    portName: maybe(fc.oneof(fc.constantFrom('http', 'metrics-2', '-http', 'http-', 'Http', 'a'.repeat(63), 'a'.repeat(64), '', 'h_p'), fc.string({ maxLength: 4 }))),
    extra: maybe(fc.constant(1)),
  },
  { requiredKeys: [] },
);
const tlsLike = fc.oneof(
  fc.record(
    {
      termination: fc.constantFrom('edge', 'passthrough', 'reencrypt', 'Edge', ''),
      insecureEdgeTerminationPolicy: maybe(fc.constantFrom('None', 'Allow', 'Redirect', 'none', '')),
      certificate: maybe(fc.oneof(fc.string({ maxLength: 4 }), fc.constant(1))),
      key: maybe(fc.string({ maxLength: 4 })),
      caCertificate: maybe(fc.constant(null)),
      destinationCACertificate: maybe(fc.string({ maxLength: 4 })),
      extra: maybe(fc.constant(1)),
    },
    { requiredKeys: [] },
  ),
  fc.constantFrom(null, [], 'edge'),
);
const route = fc.record(
  { namespace: name, name, host: fc.oneof(name, hostLike), service: name, path: maybe(fc.constantFrom('/', '/api', 'api', '')), tls: maybe(tlsLike), x: maybe(fc.constant(1)) },
  { requiredKeys: [] },
);
const event = fc.record(
  {
    at: num,
    type: fc.constantFrom('endpoints.set', 'endpoints.delete', 'route.upsert', 'route.delete', 'blueprint.upsert', 'blueprint.delete', 'node.fail', 'bogus'),
    namespace: maybe(name),
    service: maybe(name),
    name: maybe(name),
    endpoints: maybe(fc.array(endpoint, { maxLength: 3 })),
    route: maybe(route),
    node: maybe(name),
  },
  { requiredKeys: [] },
);

describe('the fast event check', () => {
  test.prop([event], { numRuns: 3000 })('never accepts what the schema rejects', (e) => {
    const raw = JSON.parse(JSON.stringify(e));
    if (looksValid(raw)) expect(InputEventSchema.safeParse(raw).success).toBe(true);
  });

  // Every TLS form the schema accepts is decided here: the two must agree on each.
  test.prop([tlsLike], { numRuns: 2000 })('decides a route\'s TLS exactly as the schema does', (tls) => {
    const raw = JSON.parse(JSON.stringify({ at: 1, type: 'route.upsert', route: { namespace: 'a', name: 'b', host: 'h', service: 's', tls } }));
    const schema = InputEventSchema.safeParse(raw).success;
    expect(looksValid(raw)).toBe(schema);
  });

  test.prop([fc.constantFrom('edge', 'passthrough', 'reencrypt'), maybe(fc.constantFrom('None', 'Allow', 'Redirect')), maybe(fc.string())])(
    'accepts a route with TLS itself',
    (termination, insecureEdgeTerminationPolicy, certificate) => {
      const tls = { termination, ...(insecureEdgeTerminationPolicy !== undefined && { insecureEdgeTerminationPolicy }), ...(certificate !== undefined && { certificate }) };
      expect(looksValid({ at: 5, type: 'route.upsert', route: { namespace: 'ns', name: 'r', host: 'r.example.com', service: 's', tls } })).toBe(true);
    },
  );

  test.prop([fc.array(fc.record({ ip: fc.ipV4(), port: fc.integer({ min: 1, max: 65535 }), portName: fc.constantFrom('http', 'https', 'metrics-9090') }, { requiredKeys: ['ip', 'port'] }), { maxLength: 5 })])(
    'accepts the common well-formed endpoint update itself',
    (endpoints) => {
      expect(looksValid({ at: 5, type: 'endpoints.set', namespace: 'ns', service: 'svc', endpoints })).toBe(true);
    },
  );

  // Every label drawn from the rule's own alphabet, 1 to 63 long, alphanumeric at both ends: always a valid host.
  const label = fc.tuple(fc.stringMatching(/^[a-z0-9]$/), fc.stringMatching(/^[-a-z0-9]{0,61}$/), fc.stringMatching(/^[a-z0-9]$/)).map(([a, mid, z]) => (mid === '' ? a : a + mid + z));
  test.prop([fc.array(label, { minLength: 1, maxLength: 3 }).map((l) => l.join('.'))])('accepts a plain route with a valid host itself', (host) => {
    expect(looksValid({ at: MAX_AT_MS, type: 'route.upsert', route: { namespace: 'ns', name: 'r', host, service: 's' } })).toBe(true);
  });

  const portName = fc.oneof(
    fc.constantFrom('http', 'metrics-2', '-http', 'http-', 'Http', 'a'.repeat(63), 'a'.repeat(64), '', 'h_p', 'a', '9'),
    fc.stringMatching(/^[a-zA-Z0-9_-]{0,66}$/),
    fc.string({ maxLength: 6 }),
  );
  test.prop([portName], { numRuns: 3000 })('decides port names exactly as the schema does', (p) => {
    const raw = { at: 1, type: 'endpoints.set', namespace: 'a', service: 'b', endpoints: [{ ip: '10.0.0.1', port: 80, portName: p }] };
    expect(looksValid(structuredClone(raw))).toBe(InputEventSchema.safeParse(raw).success);
  });

  test.prop([hostLike], { numRuns: 5000 })('decides route hosts exactly as the schema does', (host) => {
    const raw = { at: 1, type: 'route.upsert', route: { namespace: 'a', name: 'b', host, service: 's' } };
    const schema = InputEventSchema.safeParse(raw).success;
    expect(looksValid(structuredClone(raw))).toBe(schema);
    expect(isRouteHost(host)).toBe(schema);
  });

  /** Names near the rules' edges: 63/64 and 253/254 characters, dots, '-' at an end, upper case, '/', NUL, newline. */
  const nameLike = fc.oneof(
    fc.constantFrom('shop', 'web-1', 'a.b', 'a..b', '.a', 'a.', '-a', 'a-', 'Shop', 'a b', 'ns/a', 'a\u0000', 'a\nb', 'a_b', '', 'é',
      'a'.repeat(63), 'a'.repeat(64), ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.'), ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(62)].join('.')),
    fc.array(fc.stringMatching(/^[a-z0-9-]{0,8}$/), { minLength: 1, maxLength: 3 }).map((l) => l.join('.')),
    fc.stringMatching(/^[a-zA-Z0-9./ _-]{0,12}$/),
    fc.string({ maxLength: 6 }),
  );
  test.prop([nameLike, fc.constantFrom('namespace', 'name', 'service', 'pod')], { numRuns: 5000 })('decides namespace, route, service and pod names exactly as the schema does', (n, which) => {
    const raws: Record<string, unknown>[] =
      which === 'pod'
        ? [{ at: 1, type: 'endpoints.set', namespace: 'a', service: 'b', endpoints: [{ ip: '10.0.0.1', port: 80, name: n }] }]
        : [
            { at: 1, type: 'route.upsert', route: { namespace: 'a', name: 'b', host: 'h', service: 's', [which]: n } },
            which === 'service' ? { at: 1, type: 'endpoints.delete', namespace: 'a', service: n } : { at: 1, type: 'route.delete', namespace: 'a', name: 'b', [which]: n },
          ];
    for (const raw of raws) expect(looksValid(structuredClone(raw)), JSON.stringify(raw)).toBe(InputEventSchema.safeParse(raw).success);
  });

  it('words a bad name as Kubernetes would, naming the rule', () => {
    const r = InputEventSchema.safeParse({ at: 1, type: 'route.delete', namespace: 'Shop', name: 'b' });
    expect(r.error?.issues[0]?.message).toBe(`expected a namespace name as Kubernetes accepts it: a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit); got "Shop"`);
    const long = InputEventSchema.safeParse({ at: 1, type: 'route.delete', namespace: 'a', name: 'n'.repeat(100_000) });
    expect(long.error?.issues[0]?.message).toMatch(/^a name is at most 253 characters \(a DNS-1123 subdomain\); got "n{80}"… \(100000 characters\)$/);
  });

  const atLike = fc.oneof(fc.integer({ min: MAX_AT_MS - 3, max: MAX_AT_MS + 3 }), fc.integer({ min: -3, max: 3 }), num, fc.double());
  test.prop([atLike], { numRuns: 3000 })('decides times exactly as the schema does', (at) => {
    const raw = { at, type: 'route.delete', namespace: 'a', name: 'b' };
    expect(looksValid(structuredClone(raw))).toBe(InputEventSchema.safeParse(raw).success);
  });

  const createdLike = fc.oneof(atLike, fc.integer({ min: -MAX_AT_MS - 3, max: -MAX_AT_MS + 3 }), fc.constantFrom<unknown>('1', null, true));
  test.prop([createdLike], { numRuns: 3000 })('decides a route\'s creation time exactly as the schema does', (createdAt) => {
    const raw = { at: 1, type: 'route.upsert', route: { namespace: 'a', name: 'b', host: 'h', service: 's', createdAt } };
    expect(looksValid(structuredClone(raw))).toBe(InputEventSchema.safeParse(raw).success);
  });

  const ipish = fc.array(fc.constantFrom('0', '1', '2', '5', '9', '.', '25', '255', '256', '00', 'a', ' '), { maxLength: 12 }).map((p) => p.join(''));
  test.prop([fc.oneof(ipish, fc.ipV4(), fc.string({ maxLength: 16 }))], { numRuns: 5000 })('reads IPv4 exactly as the schema does', (s) => {
    expect(isDottedQuad(s)).toBe(z.ipv4().safeParse(s).success);
  });

  // Corners too rare for the random events to reach: each is something the schema rejects.
  it.each([
    ['a time beyond the safe integers', '{"at":9007199254740992,"type":"endpoints.delete","namespace":"a","service":"b"}'],
    ['a huge time', '{"at":1e300,"type":"route.delete","namespace":"a","name":"b"}'],
    ['an own __proto__ field', '{"at":1,"type":"endpoints.delete","namespace":"a","service":"b","__proto__":{}}'],
    ['an endpoint that is an array', '{"at":1,"type":"endpoints.set","namespace":"a","service":"b","endpoints":[["10.0.0.1",80]]}'],
    ['a port of null', '{"at":1,"type":"endpoints.set","namespace":"a","service":"b","endpoints":[{"ip":"10.0.0.1","port":null}]}'],
    ['a route path of null', '{"at":1,"type":"route.upsert","route":{"namespace":"a","name":"b","host":"h","service":"s","path":null}}'],
    ['a host with a space', '{"at":10000,"type":"route.upsert","route":{"namespace":"a","name":"r","host":"x y.com","service":"s"}}'],
    ['a time one past MAX_AT_MS', `{"at":${MAX_AT_MS + 1},"type":"network.heal"}`],
  ])('rejects %s as the schema does', (_what, line) => {
    const raw = JSON.parse(line);
    expect(InputEventSchema.safeParse(raw).success).toBe(false);
    expect(looksValid(raw)).toBe(false);
  });
});
