import { describe, expect, it } from 'vitest';
import type { HaproxyConfig } from '../../core/haproxy/config-model.ts';
import { MockHaproxy } from './mock-haproxy.ts';

/**
 * `show stat` of the mock: HAProxy 2.6's rules for what the mock knows (the bytes of whole tables are
 * checked against a real HAProxy in conformance.test.ts and introspection-commands.test.ts). Field positions
 * are the 2.6 header's: 17 status, 18 weight, 19 act, 23 lastchg, 27 iid, 28 sid, 76 algo, 99 uweight.
 */
const config: HaproxyConfig = {
  backends: [
    {
      name: 'be_http:ns:a',
      mode: 'http',
      balance: 'roundrobin',
      servers: [
        { name: 's1', address: '10.0.0.1', port: 8080, weight: 10, disabled: false, check: false },
        { name: 's2', address: '10.0.0.2', port: 8080, weight: 20, disabled: false, check: false },
        { name: '_dynamic-pod-1', address: '172.4.0.4', port: 8765, weight: 0, disabled: true, check: true },
      ],
    },
    { name: 'be_http:ns:empty', mode: 'http', balance: 'random', servers: [] },
  ],
  maps: {},
};

function rows(reply: string): string[][] {
  return reply.split('\n').filter((l) => l !== '' && !l.startsWith('# ')).map((l) => l.split(','));
}

describe('show stat in the mock', () => {
  it('lists the frontends, then each backend’s servers and its BACKEND row, by proxy id', () => {
    let now = 100;
    const mock = new MockHaproxy({ clockS: () => now });
    mock.load(config);
    now = 130;
    const r = rows(mock.execute('show stat'));
    // The rendered cfg's frontends take ids 2-4 (the httpclient proxy has 1), the backends 5 and 6.
    expect(r.map((f) => [f[0], f[1], f[27]])).toEqual([
      ['public', 'FRONTEND', '2'],
      ['public_ssl', 'FRONTEND', '3'],
      ['fe_sni', 'FRONTEND', '4'],
      ['be_http:ns:a', 's1', '5'],
      ['be_http:ns:a', 's2', '5'],
      ['be_http:ns:a', '_dynamic-pod-1', '5'],
      ['be_http:ns:a', 'BACKEND', '5'],
      ['be_http:ns:empty', 'BACKEND', '6'],
    ]);
    // An unchecked running server: "no check"; a `disabled` one: MAINT. 30 s since the load.
    expect(r[3]!.slice(17, 20)).toEqual(['no check', '10', '1']);
    expect(r[5]![17]).toBe('MAINT');
    expect(r[3]![23]).toBe('30');
    // The backend sums the weights of its usable servers (10 + 20) and counts them (act); UP as tot_weight > 0.
    expect([r[6]![17], r[6]![18], r[6]![19], r[6]![99]]).toEqual(['UP', '30', '2', '30']);
    // A backend with no server at all is UP (weight 0); 2.6 names `random` "unknown".
    expect([r[7]![17], r[7]![18], r[7]![76]]).toEqual(['UP', '0', 'unknown']);
  });

  it('a backend whose servers are all drained or in maintenance is DOWN; a drained server keeps its weight column', () => {
    const mock = new MockHaproxy();
    mock.load(config);
    mock.execute('set server be_http:ns:a/s1 state drain');
    mock.execute('set server be_http:ns:a/s2 state maint');
    const r = rows(mock.execute('show stat be_http:ns:a -1 -1'));
    expect(r.map((f) => [f[1], f[17], f[18]])).toEqual([
      ['s1', 'DRAIN', '10'],
      ['s2', 'MAINT', '20'],
      ['_dynamic-pod-1', 'MAINT', '0'],
      ['BACKEND', 'DOWN', '0'],
    ]);
  });

  it('filters by proxy (id or name), type bits (1 frontend, 2 backend, 4 server) and server id', () => {
    const mock = new MockHaproxy();
    mock.load(config);
    expect(rows(mock.execute('show stat 5 6 2')).map((f) => f[1])).toEqual(['s2', 'BACKEND']);
    expect(rows(mock.execute('show stat -1 1 -1')).map((f) => f[0])).toEqual(['public', 'public_ssl', 'fe_sni']);
    expect(rows(mock.execute('show stat be_http:ns:a 4 99'))).toEqual([]);
    // Fewer than three words: no filter.
    expect(rows(mock.execute('show stat 5'))).toHaveLength(8);
    expect(mock.execute('show stat nosuch -1 -1')).toBe('No such proxy.\n\n');
    expect(mock.execute('show stat typed')).toMatch(/does not model 'show stat typed'/);
  });
});
