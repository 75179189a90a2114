import { describe, expect, it } from 'vitest';
import type { HaproxyConfig } from '../../core/haproxy/config-model.ts';
import { CfgParseError, parseHaproxyCfg, parseMapFile } from './cfg-parser.ts';
import { renderHaproxyCfg, type RenderOptions } from './haproxy-cfg.ts';
import { MockHaproxy } from './mock-haproxy.ts';
import { DEFAULT_PROCESS_INFO } from './show-info.ts';

const OPTS: RenderOptions = {
  statsSocketPath: '/run/test/haproxy.sock',
  mapDir: '/etc/test',
  cfgFile: '/etc/test/haproxy.cfg',
  httpPort: 20080,
  httpsPort: 20443,
  terminatedPort: 20444,
};

function sample(): HaproxyConfig {
  return {
    backends: [
      {
        name: 'be_http:ns:a',
        mode: 'http',
        balance: 'roundrobin',
        cookieName: 'c0ffee',
        dynamicCookieKey: 'secret',
        servers: [
          { name: 'pod-1', address: '10.0.0.1', port: 8080, weight: 256, disabled: false, check: true, cookie: 'abc' },
          { name: '_dynamic-pod-1', address: '172.4.0.4', port: 8765, weight: 0, disabled: true, check: true },
        ],
      },
      { name: 'be_tcp:ns:b', mode: 'tcp', balance: 'source', servers: [] },
      { name: 'be_tcp:ns:c', mode: 'tcp', balance: 'source', hashType: 'consistent', servers: [] },
    ],
    maps: {
      'os_http_be.map': [{ key: '^a\\.example\\.com\\.?(:[0-9]+)?(/.*)?$', value: 'be_http:ns:a' }],
      'os_tcp_be.map': [{ key: '^b\\.example\\.com$', value: 'be_tcp:ns:b' }],
      'custom_extra.map': [{ key: '^[^\\.]*\\.example\\.com$', value: '1' }],
    },
  };
}

describe('parseHaproxyCfg', () => {
  it('reads back exactly what the renderer wrote, with the same layout', () => {
    const config = sample();
    const r = renderHaproxyCfg(config, OPTS);
    const parsed = parseHaproxyCfg(r.text, { cfgFile: OPTS.cfgFile, readFile: (p) => r.mapFiles.get(p) ?? '' });
    // The renderer references every standard map, so empty ones come back as empty lists.
    expect(parsed.config).toEqual({
      backends: config.backends,
      maps: { ...config.maps, 'os_route_http_redirect.map': [], 'os_sni_passthrough.map': [], 'os_edge_reencrypt_be.map': [] },
    });
    expect([...parsed.layout.backendIds]).toEqual([...r.layout.backendIds]);
    expect([...parsed.layout.maps].sort((a, b) => a.id - b.id)).toEqual([...r.layout.maps].sort((a, b) => a.id - b.id));
    expect(parsed.layout.serverLines).toEqual(r.layout.serverLines);
  });

  it('expands server-template lines as HAProxy names them (prefix + number)', () => {
    const cfg = ['defaults', '  mode http', 'backend be', '  server-template _dynamic-pod- 1-3 172.4.0.4:8765 check disabled', '  server-template s 2 10.0.0.1'].join('\n');
    const { config, layout } = parseHaproxyCfg(cfg, { cfgFile: 'x.cfg', readFile: () => '' });
    // Each server is declared where its template is (lines 4 and 5), as HAProxy says in its messages.
    expect(layout.serverLines).toEqual({ cfgFile: 'x.cfg', byBackend: new Map([['be', [4, 4, 4, 5, 5]]]) });
    expect(config.backends[0]!.servers.map((s) => [s.name, s.address, s.port, s.disabled, s.check])).toEqual([
      ['_dynamic-pod-1', '172.4.0.4', 8765, true, true],
      ['_dynamic-pod-2', '172.4.0.4', 8765, true, true],
      ['_dynamic-pod-3', '172.4.0.4', 8765, true, true],
      ['s1', '10.0.0.1', 0, false, false],
      ['s2', '10.0.0.1', 0, false, false],
    ]);
    // Mode comes from defaults; balance defaults to roundrobin as in HAProxy.
    expect(config.backends[0]).toMatchObject({ mode: 'http', balance: 'roundrobin' });
  });

  it('numbers proxies in file order from 2 and maps by creation order (ACLs take ids too)', () => {
    const cfg = [
      'frontend f',
      '  acl a1 hdr(host) -m found', // ref 0
      '  http-request deny if { path_beg /x }', // ref 1
      '  use_backend %[base,map_reg(/m/late.map)]', // deferred: after the two httpclient ACLs
      '  http-request set-var(txn.x) base,map(/m/early.map)', // ref 2
      'backend b1',
      'backend b2',
    ].join('\n');
    const { layout } = parseHaproxyCfg(cfg, { cfgFile: 'x.cfg', readFile: () => 'k v\n' });
    expect([...layout.backendIds]).toEqual([
      ['b1', 3],
      ['b2', 4],
    ]);
    // early: ref 2 (after a1 and the anonymous ACL); late: 3 parse-time refs + 2 httpclient ACLs = id 5.
    expect(layout.maps.map((m) => [m.file, m.id, m.match, m.line])).toEqual([
      ['early.map', 2, 'str', 5],
      ['late.map', 5, 'reg', 4],
    ]);
  });

  it('counts predefined ACLs once per proxy, takes listen sections as proxies, and lists every use of a map', () => {
    // Measured on HAProxy 2.6.12 with these sections after a global and a defaults section: `show map` gave
    // ids 2, 5 and 6 and a.map's description named both of its lines; `show backend` listed st and b1; b1 had id 5.
    const cfg = [
      'frontend f1', // proxy 2
      '  tcp-request inspect-delay 5s',
      '  tcp-request content accept if HTTP', // ref 0: HTTP, first use in f1
      '  http-request deny if TRUE !HTTP', // ref 1: TRUE; HTTP is f1's already
      '  http-request set-var(txn.a) base,map_reg(/m/a.map)', // ref 2: a.map (line 5)
      'frontend f2', // proxy 3
      '  http-request deny if HTTP METH_GET', // refs 3, 4: each proxy makes its own
      '  http-request set-var(txn.b) base,map_reg(/m/b.map)', // ref 5: b.map
      'listen st', // proxy 4, a backend too
      '  http-request set-var(txn.c) base,map_reg(/m/c.map) if HTTP', // ref 6: the map before its condition; HTTP ref 7
      '  http-request set-var(txn.d) base,map_reg(/m/a.map)', // a.map again (line 11): no new ref
      'backend b1', // proxy 5
    ].join('\n');
    const { config, layout } = parseHaproxyCfg(cfg, { cfgFile: 't.cfg', readFile: () => 'k v\n' });
    expect(config.backends.map((b) => b.name)).toEqual(['st', 'b1']);
    expect([...layout.backendIds]).toEqual([
      ['st', 4],
      ['b1', 5],
    ]);
    expect(layout.maps.map((m) => [m.file, m.id, m.line, m.alsoAt ?? []])).toEqual([
      ['a.map', 2, 5, [11]],
      ['b.map', 5, 8, []],
      ['c.map', 6, 10, []],
    ]);
    const m = new MockHaproxy();
    m.load(parseHaproxyCfg(cfg, { cfgFile: 't.cfg', readFile: () => 'k v\n' }).config, layout);
    expect(m.execute('show map').split('\n')[1]).toBe(
      "2 (/m/a.map) pattern loaded from file '/m/a.map' used by map at file 't.cfg' line 5, by map at file 't.cfg' line 11. curr_ver=0 next_ver=0 entry_cnt=1",
    );
  });

  it('reads the global stats sockets: path, octal mode, level', () => {
    const cfg = ['global', '  stats socket /run/a.sock mode 600 level admin', '  stats socket ipv4@127.0.0.1:9999', '  stats socket unix@/run/b.sock level user', 'backend b'].join('\n');
    expect(parseHaproxyCfg(cfg, { cfgFile: 's.cfg', readFile: () => '' }).statsSockets).toEqual([
      { path: '/run/a.sock', mode: 0o600, level: 'admin', line: 2 },
      { path: '/run/b.sock', level: 'user', line: 4 },
    ]);
    expect(() => parseHaproxyCfg('global\n  stats socket /a mode 9', { cfgFile: 's.cfg', readFile: () => '' })).toThrow("s.cfg:2: 'stats socket' mode must be octal");
  });

  it("reads the global maxconn as HAProxy 2.6 does (atol), and the mock's process figures follow it", () => {
    const parse = (line: string) => parseHaproxyCfg(`global\n${line}\nfrontend f\n  bind :80\nbackend b`, { cfgFile: 'm.cfg', readFile: () => '' });
    expect(parse('  maxconn 5000').layout.maxconn).toBe(5000);
    // Measured on 2.6.12: `maxconn 12abc` runs with 12; `abc` and `0` leave the limit to ulimit -n.
    expect(parse('  maxconn 12abc').layout.maxconn).toBe(12);
    expect(parse('  maxconn abc').layout.maxconn).toBeUndefined();
    expect(parse('  maxconn 0').layout.maxconn).toBeUndefined();
    expect(() => parse('  maxconn')).toThrow("m.cfg:2: 'maxconn' expects an integer argument.");
    const m = new MockHaproxy();
    const parsed = parse('  maxconn 5000');
    m.load(parsed.config, parsed.layout);
    const info = m.execute('show info');
    expect(info).toContain('\nMaxconn: 5000\nHard_maxconn: 5000\n');
    // A frontend's slim (column 7 of show stat) is the global maxconn unless it sets its own.
    const slim = m
      .execute('show stat')
      .split('\n')
      .filter((l) => l.startsWith('f,FRONTEND,'))
      .map((l) => l.split(',')[6]);
    expect(slim).toEqual(['5000']);
    // Without a global maxconn the figures are the mock's ProcessInfo's.
    const plain = parse('  nbthread 1');
    m.load(plain.config, plain.layout);
    expect(m.execute('show info')).toContain(`\nMaxconn: ${DEFAULT_PROCESS_INFO.maxconn}\n`);
  });

  it("gives each frontend its maxconn and each backend its fullconn: its own, else a tenth of its frontends' (2.6.12, measured)", () => {
    const cfg = [
      'global',
      '  maxconn 5000',
      'defaults',
      '  maxconn 1000',
      'frontend f1',
      '  use_backend be1 if { path_beg /y }',
      '  default_backend be1',
      'frontend f2',
      '  maxconn 333',
      '  default_backend be1',
      '  use_backend be2 if { path_beg /x }',
      'frontend f3',
      '  maxconn 0',
      '  use_backend %[req.hdr(host),lower,map(/m.map)]',
      '  use_backend be3 if { path_beg /q }',
      'backend be1',
      'backend be2',
      'backend be4',
      '  fullconn 77',
      'backend be3',
      'listen l1',
      '  maxconn 200',
      'listen l2',
      '  maxconn 300',
      '  default_backend be2',
      '',
    ].join('\n');
    const parsed = parseHaproxyCfg(cfg, { cfgFile: 'c.cfg', readFile: () => '' });
    expect(parsed.layout.frontends?.map((f) => [f.name, f.maxconn, f.backends])).toEqual([
      // f1 inherits the defaults' 1,000 and names be1 twice (counted once); f3's `maxconn 0` is the process's.
      ['f1', 1000, ['be1']],
      ['f2', 333, ['be1', 'be2']],
      ['f3', undefined, ['be3']],
      ['l1', 200, ['l1']],
      // With a default_backend, a listen section's own half is not its default.
      ['l2', 300, ['be2']],
    ]);
    const m = new MockHaproxy();
    m.load(parsed.config, parsed.layout);
    const slim = Object.fromEntries(
      m
        .execute('show stat')
        .split('\n')
        .filter((l) => /^[^,]+,(FRONTEND|BACKEND),/.test(l))
        .map((l) => l.split(','))
        .map((f) => [`${f[0]} ${f[1]}`, f[6]]),
    );
    // be1: (1000 + 333 + 9) / 10 = 134; be2: (333 + 300 + 9) / 10 = 64; be3: f3 at the global 5,000 gives
    // 500; be4 its own 77, named by none; l1: its own frontend half, (200 + 9) / 10 = 20; l2's half: 1.
    expect(slim).toEqual({
      'f1 FRONTEND': '1000',
      'f2 FRONTEND': '333',
      'f3 FRONTEND': '5000',
      'be1 BACKEND': '134',
      'be2 BACKEND': '64',
      'be4 BACKEND': '77',
      'be3 BACKEND': '500',
      'l1 FRONTEND': '200',
      'l1 BACKEND': '20',
      'l2 FRONTEND': '300',
      'l2 BACKEND': '1',
    });
    // A backend named but not defined is refused, as HAProxy refuses it.
    expect(() => parseHaproxyCfg('frontend f\n  default_backend nope\nbackend b', { cfgFile: 'c.cfg', readFile: () => '' })).toThrow(
      "c.cfg:2: Proxy 'f': unable to find required default_backend: 'nope'.",
    );
  });

  it('names the file and line of what it cannot read', () => {
    const read = () => '';
    expect(() => parseHaproxyCfg('backend b\n  balance uri', { cfgFile: 'r.cfg', readFile: read })).toThrow('r.cfg:2: unsupported balance');
    expect(() => parseHaproxyCfg('backend b\n  balance source\n  hash-type avalanche', { cfgFile: 'r.cfg', readFile: read })).toThrow('r.cfg:3: unsupported hash-type');
    expect(() => parseHaproxyCfg('backend b\n  server s 10.0.0.1:80 weight 300', { cfgFile: 'r.cfg', readFile: read })).toThrow(/r\.cfg:2: .*weight/);
    expect(() => parseHaproxyCfg('listen', { cfgFile: 'r.cfg', readFile: read })).toThrow(CfgParseError);
    expect(() => parseHaproxyCfg('frontend f\n  use_backend %[base,map_beg(/m.map)]', { cfgFile: 'r.cfg', readFile: read })).toThrow(
      "r.cfg:2: unsupported converter 'map_beg'",
    );
    const missing = () => {
      throw new Error('ENOENT');
    };
    expect(() => parseHaproxyCfg('frontend f\n\n  use_backend %[base,map_reg(/nope.map)]', { cfgFile: 'r.cfg', readFile: missing })).toThrow(
      "r.cfg:3: cannot read map file '/nope.map': ENOENT",
    );
  });

  it('parses map files: comments, blank lines, values with spaces; a key without value is an error', () => {
    expect(parseMapFile('# c\n\nk1 v1\nk2   v 2  \r\n')).toEqual([
      { key: 'k1', value: 'v1' },
      { key: 'k2', value: 'v 2' },
    ]);
    expect(() => parseMapFile('k1 v1\nlonely\n', '/x.map')).toThrow('/x.map:2:');
  });

  it('feeds a mock that answers like the parsed file', () => {
    const r = renderHaproxyCfg(sample(), OPTS);
    const parsed = parseHaproxyCfg(r.text, { cfgFile: OPTS.cfgFile, readFile: (p) => r.mapFiles.get(p) ?? '' });
    const m = new MockHaproxy();
    m.load(parsed.config, parsed.layout);
    expect(m.execute('show backend')).toBe('# name\nbe_http:ns:a\nbe_tcp:ns:b\nbe_tcp:ns:c\n\n');
    expect(m.execute('get weight be_http:ns:a/pod-1')).toBe('256 (initial 256)\n\n');
    // `balance source` hashes into a static table, unless `hash-type consistent` (passthrough backends) makes
    // it a weighted tree that takes new servers (HAProxy 2.6.12 answers these two the same way).
    expect(m.execute('add server be_tcp:ns:b/s 10.0.0.9:443')).toBe('Backend must use a dynamic load balancing to support dynamic servers.\n');
    expect(m.execute('add server be_tcp:ns:c/s 10.0.0.9:443')).toBe('New server registered.\n\n');
  });
});
