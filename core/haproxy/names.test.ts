import { fc, test as propTest } from '@fast-check/vitest';
import { expect, test } from 'vitest';
import type { Endpoint } from '../endpoint.ts';
import { endpointServerName, md5Hex, preferPortOf, ServedMemo, servedEndpoints, servedForRoute } from './names.ts';

const http = (i: number): Endpoint => ({ ip: `10.0.0.${i}`, port: 8080, name: `web-${i}`, portName: 'http' });
const https = (i: number): Endpoint => ({ ip: `10.0.0.${i}`, port: 8443, name: `web-${i}`, portName: 'https' });
const unnamed = (i: number): Endpoint => ({ ip: `10.0.0.${i}`, port: 9000 });

test('md5Hex gives MD5 in lower-case hex (RFC 1321, appendix A.5 test suite), the same when asked again', () => {
  expect(md5Hex('')).toBe('d41d8cd98f00b204e9800998ecf8427e');
  expect(md5Hex('abc')).toBe('900150983cd24fb0d6963f7d28e17f72');
  expect(md5Hex('message digest')).toBe('f96b697d7cb7938d525a2f31aaf161d0');
  expect(md5Hex('abc')).toBe('900150983cd24fb0d6963f7d28e17f72');
});

test('server names carry the port name in their fourth field, empty for an unnamed port (plugin.go)', () => {
  expect(endpointServerName('web', http(1))).toBe('pod:web-1:web:http:10.0.0.1:8080');
  expect(endpointServerName('web', unnamed(2))).toBe('ept:web::10.0.0.2:9000');
  // The same address and port under two port names are two endpoints.
  expect(servedEndpoints('web', [http(1), { ...http(1), portName: 'alt' }]).map((e) => e.id)).toEqual([
    'pod:web-1:web:http:10.0.0.1:8080',
    'pod:web-1:web:alt:10.0.0.1:8080',
  ]);
});

test('a targetPort selects endpoints by port name or by number, as text (endpointsForAlias)', () => {
  const served = servedEndpoints('web', [http(1), http(2), https(1), unnamed(3)]);
  const ids = (port: string | number | undefined) =>
    servedForRoute(served, preferPortOf({ namespace: 'ns', name: 'r', host: 'h', service: 'web', ...(port === undefined ? {} : { targetPort: port }) })).map((e) => `${e.ip}:${e.port}`);
  expect(ids(undefined)).toEqual(['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.1:8443', '10.0.0.3:9000']);
  expect(ids('http')).toEqual(['10.0.0.1:8080', '10.0.0.2:8080']);
  expect(ids(8443)).toEqual(['10.0.0.1:8443']);
  // A numeric string compares with the port number too; an unnamed port can only be chosen by number.
  expect(ids('9000')).toEqual(['10.0.0.3:9000']);
  expect(ids('metrics')).toEqual([]);
});

test('without a targetPort, or when every endpoint matches, the route shares the service list itself', () => {
  const served = servedEndpoints('web', [http(1), http(2)]);
  expect(servedForRoute(served, undefined)).toBe(served);
  expect(servedForRoute(served, 'http')).toBe(served);
  // A filtered list keeps the order, whichever endpoint is dropped first.
  const mixed = servedEndpoints('web', [https(1), http(1), https(2), http(2)]);
  expect(servedForRoute(mixed, 'http').map((e) => e.id)).toEqual(['pod:web-1:web:http:10.0.0.1:8080', 'pod:web-2:web:http:10.0.0.2:8080']);
  expect(servedForRoute(mixed, 'https').map((e) => e.id)).toEqual(['pod:web-1:web:https:10.0.0.1:8443', 'pod:web-2:web:https:10.0.0.2:8443']);
});

test('two endpoints whose fields differ but whose IDs agree are served once, the first kept (plugin.go dedupes by ID)', () => {
  // 'pod:web-1:web:p:fd00:1::2:8080' both times: the port name's colon moves the split between port name and address.
  const first: Endpoint = { ip: '1::2', port: 8080, name: 'web-1', portName: 'p:fd00' };
  const second: Endpoint = { ip: 'fd00:1::2', port: 8080, name: 'web-1', portName: 'p' };
  expect(endpointServerName('web', first)).toBe(endpointServerName('web', second));
  expect(new ServedMemo().of('web', [first, second]).map((e) => e.ip)).toEqual(['1::2']);
  expect(new ServedMemo().of('web', [second, first]).map((e) => e.ip)).toEqual(['fd00:1::2']);
});

// Endpoints from a small pool of identities, so that successive lists share endpoints, repeat one (an ID
// served once), differ only in readiness or in an unset against an empty port name (the same ID, other fields).
const anyEndpoint = fc.record(
  {
    ip: fc.constantFrom('10.0.0.1', '10.0.0.2', 'fd00::1', '1::2', 'fd00:1::2'),
    port: fc.constantFrom(8080, 8443),
    name: fc.constantFrom('web-1', 'web-2'),
    // With a `:` in a port name two endpoints can share an ID (p:fd00 + 1::2 against p + fd00:1::2).
    portName: fc.constantFrom('', 'http', 'p', 'p:fd00'),
    ready: fc.boolean(),
  },
  { requiredKeys: ['ip', 'port'] },
);
propTest.prop([fc.array(fc.array(anyEndpoint, { maxLength: 20 }), { minLength: 1, maxLength: 8 })])(
  'ServedMemo serves every list as servedEndpoints does, reusing the entries of endpoints it saw in the list before',
  (lists) => {
    const memo = new ServedMemo();
    let before: readonly ReturnType<typeof servedEndpoints>[number][] = [];
    for (const list of lists) {
      const served = memo.of('web', list);
      expect(served).toEqual(servedEndpoints('web', list));
      // Asked again about the same list, the memo answers with the same result.
      expect(memo.of('web', list)).toBe(served);
      // An entry served before with the same fields is the earlier object (searched for when there were up to 16).
      for (const e of served) {
        const old = before.find((b) => b.id === e.id && b.ip === e.ip && b.port === e.port && b.portName === e.portName);
        if (old !== undefined && before.length <= 16) expect(e).toBe(old);
      }
      before = served;
    }
  },
);
