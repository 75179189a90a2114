import { describe, expect, it } from 'vitest';
import type { HaproxyConfig } from '../../core/haproxy/config-model.ts';
import { DEFAULT_RENDER_OPTIONS } from './haproxy-cfg.ts';
import { MockHaproxy } from './mock-haproxy.ts';
import { literalPrefixOf } from './map-state.ts';
import { baseOf, MapSnapshot, probeRequests, readyServers, resolveRoute } from './route-resolver.ts';

const DIR = DEFAULT_RENDER_OPTIONS.mapDir;
const hostKey = (host: string, path = ''): string => `^${host.replace(/\./g, '\\.')}\\.?(:[0-9]+)?${path}(/.*)?$`;

function config(): HaproxyConfig {
  const srv = (name: string, address: string, extra: Partial<{ weight: number; disabled: boolean }> = {}) => ({
    name,
    address,
    port: 8080,
    weight: extra.weight ?? 1,
    disabled: extra.disabled ?? false,
    check: false,
  });
  return {
    backends: [
      { name: 'be_http:ns:web', mode: 'http', balance: 'roundrobin', servers: [srv('a', '10.0.0.1'), srv('b', '10.0.0.2'), srv('slot', '172.4.0.4', { disabled: true })] },
      { name: 'be_http:ns:api', mode: 'http', balance: 'roundrobin', servers: [srv('c', '10.0.0.3'), srv('zero', '10.0.0.4', { weight: 0 })] },
      { name: 'be_edge_http:ns:secure', mode: 'http', balance: 'roundrobin', servers: [srv('d', '10.0.0.5')] },
      { name: 'be_tcp:ns:pass', mode: 'tcp', balance: 'source', servers: [srv('e', '10.0.0.6')] },
    ],
    maps: {
      'os_http_be.map': [
        // The router sorts longer paths first so that they win the first-match lookup.
        { key: hostKey('web.example.com', '/api'), value: 'be_http:ns:api' },
        { key: hostKey('web.example.com'), value: 'be_http:ns:web' },
        { key: hostKey('gone.example.com'), value: 'be_http:ns:deleted' },
      ],
      // Every route has an entry; 1 means its insecure policy is Redirect.
      'os_route_http_redirect.map': [
        { key: hostKey('web.example.com'), value: '0' },
        { key: hostKey('secure.example.com'), value: '1' },
      ],
      'os_edge_reencrypt_be.map': [{ key: hostKey('secure.example.com'), value: 'be_edge_http:ns:secure' }],
      'os_sni_passthrough.map': [{ key: '^pass\\.example\\.com$', value: '1' }],
      'os_tcp_be.map': [{ key: '^pass\\.example\\.com$', value: 'be_tcp:ns:pass' }],
    },
  };
}

function loaded(): MockHaproxy {
  const m = new MockHaproxy();
  m.load(config());
  return m;
}

describe('resolveRoute', () => {
  it('through the indexed lookups, follows every kind of map change a command makes', () => {
    const m = loaded();
    const maps = new MapSnapshot(m);
    // Keys go over the CLI with their backslashes doubled.
    const cli = (key: string): string => key.replace(/\\/g, '\\\\');
    const http = (path: string) => resolveRoute(m, { host: 'web.example.com', path, scheme: 'http' }, maps);
    expect(http('/api/x')).toMatchObject({ backend: 'be_http:ns:api' });
    // A key deleted: the lookup built before must not be used again.
    expect(m.execute(`del map ${DIR}/os_http_be.map ${cli(hostKey('web.example.com', '/api'))}`)).toBe('\n');
    expect(http('/api/x')).toMatchObject({ backend: 'be_http:ns:web' });
    // A value set in place, then a new version committed without the entry.
    expect(m.execute(`set map ${DIR}/os_http_be.map ${cli(hostKey('web.example.com'))} be_http:ns:api`)).toBe('\n');
    expect(http('/')).toMatchObject({ backend: 'be_http:ns:api' });
    expect(m.execute(`prepare map ${DIR}/os_http_be.map`)).toBe('New version created: 1\n\n');
    expect(m.execute(`commit map @1 ${DIR}/os_http_be.map`)).toBe('\n');
    expect(http('/')).toEqual({ kind: 'no-match' });
    expect(m.execute(`add map ${DIR}/os_http_be.map ${cli(hostKey('web.example.com'))} be_http:ns:web`)).toBe('\n');
    expect(http('/')).toMatchObject({ backend: 'be_http:ns:web' });
  });

  it('matches Host header plus path against os_http_be.map, first match in file order', () => {
    const m = loaded();
    expect(resolveRoute(m, { host: 'web.example.com', path: '/api/v1?x=1', scheme: 'http' })).toMatchObject({ kind: 'backend', backend: 'be_http:ns:api' });
    expect(resolveRoute(m, { host: 'web.example.com:80', path: '/index.html', scheme: 'http' })).toMatchObject({ kind: 'backend', backend: 'be_http:ns:web' });
    expect(resolveRoute(m, { host: 'other.example.com', scheme: 'http' })).toEqual({ kind: 'no-match' });
  });

  it('lists only servers that would take traffic: not disabled, not weight 0', () => {
    const m = loaded();
    const r = resolveRoute(m, { host: 'web.example.com', scheme: 'http' });
    expect(r.kind === 'backend' && r.servers).toEqual([
      { address: '10.0.0.1', port: 8080 },
      { address: '10.0.0.2', port: 8080 },
    ]);
    expect(readyServers(m, 'be_http:ns:api')).toEqual([{ address: '10.0.0.3', port: 8080 }]);
  });

  it('follows runtime changes: drained, maint, re-addressed and readied slots', () => {
    const m = loaded();
    m.execute('set server be_http:ns:web/a state drain');
    m.execute('set server be_http:ns:web/b state maint');
    m.execute('set server be_http:ns:web/slot addr 10.0.0.9 port 9090');
    m.execute('set server be_http:ns:web/slot state ready');
    expect(readyServers(m, 'be_http:ns:web')).toEqual([{ address: '10.0.0.9', port: 9090 }]);
  });

  it('sees runtime map entries last, so an earlier file entry still wins', () => {
    const m = loaded();
    // A new, more specific path added at runtime lands after the host-wide entry and never matches.
    m.execute(`add map ${DIR}/os_http_be.map ${hostKey('web.example.com', '/static').replace(/\\/g, '\\\\')} be_http:ns:api`);
    expect(resolveRoute(m, { host: 'web.example.com', path: '/static/x', scheme: 'http' })).toMatchObject({ backend: 'be_http:ns:web' });
    m.execute(`add map ${DIR}/os_http_be.map ${hostKey('new.example.com').replace(/\\/g, '\\\\')} be_http:ns:api`);
    expect(resolveRoute(m, { host: 'new.example.com', scheme: 'http' })).toMatchObject({ backend: 'be_http:ns:api' });
    m.execute(`del map ${DIR}/os_http_be.map ${hostKey('web.example.com', '/api').replace(/\\/g, '\\\\')}`);
    expect(resolveRoute(m, { host: 'web.example.com', path: '/api', scheme: 'http' })).toMatchObject({ backend: 'be_http:ns:web' });
  });

  it('redirects plain HTTP for redirect routes (value 1, not 0) and serves them over terminated TLS', () => {
    const m = loaded();
    expect(resolveRoute(m, { host: 'Secure.Example.com', scheme: 'http' })).toMatchObject({ kind: 'redirect' });
    expect(resolveRoute(m, { host: 'web.example.com', scheme: 'http' })).toMatchObject({ kind: 'backend' });
    expect(resolveRoute(m, { host: 'secure.example.com', scheme: 'https' })).toMatchObject({ kind: 'backend', backend: 'be_edge_http:ns:secure' });
  });

  it('routes passthrough by the lowercased SNI only when the passthrough map knows it', () => {
    const m = loaded();
    expect(resolveRoute(m, { host: 'PASS.example.com', scheme: 'sni-passthrough' })).toMatchObject({ kind: 'backend', backend: 'be_tcp:ns:pass' });
    m.execute(`del map ${DIR}/os_sni_passthrough.map ^pass\\\\.example\\\\.com$`);
    expect(resolveRoute(m, { host: 'pass.example.com', scheme: 'sni-passthrough' })).toEqual({ kind: 'no-match' });
  });

  it('reports a map value naming no backend (a 503), and ignores uncommitted versions', () => {
    const m = loaded();
    expect(resolveRoute(m, { host: 'gone.example.com', scheme: 'http' })).toMatchObject({ kind: 'unknown-backend', backend: 'be_http:ns:deleted' });
    const map = `${DIR}/os_http_be.map`;
    expect(m.execute(`prepare map ${map}`)).toBe('New version created: 1\n\n');
    m.execute(`add map @1 ${map} ${hostKey('gone.example.com').replace(/\\/g, '\\\\')} be_http:ns:web`);
    expect(resolveRoute(m, { host: 'gone.example.com', scheme: 'http' })).toMatchObject({ kind: 'unknown-backend' });
    m.execute(`commit map @1 ${map}`);
    // The commit replaced the whole map with version 1, which holds only the one entry.
    expect(resolveRoute(m, { host: 'gone.example.com', scheme: 'http' })).toMatchObject({ kind: 'backend', backend: 'be_http:ns:web' });
    expect(resolveRoute(m, { host: 'web.example.com', scheme: 'http' })).toEqual({ kind: 'no-match' });
  });

  it('builds base from the lowercased host and the path without the query string', () => {
    expect(baseOf({ host: 'H:8080', path: '/P/q?a=b', scheme: 'http' })).toBe('h:8080/P/q');
    expect(baseOf({ host: 'h', scheme: 'http' })).toBe('h/');
  });

  it('probes a route the ways it is reachable', () => {
    const base = { namespace: 'ns', name: 'r', host: 'r.example.com', service: 's' };
    // Each probe carries the key the frontend looks up: `base` (host + path) for http and https, the SNI for passthrough.
    expect(probeRequests({ ...base, path: '/api' })).toEqual([{ request: { host: 'r.example.com', path: '/api', scheme: 'http' }, expect: 'backend', key: 'r.example.com/api' }]);
    expect(probeRequests({ ...base, tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'Redirect' } })).toEqual([
      { request: { host: 'r.example.com', path: '/', scheme: 'https' }, expect: 'backend', key: 'r.example.com/' },
      { request: { host: 'r.example.com', path: '/', scheme: 'http' }, expect: 'redirect', key: 'r.example.com/' },
    ]);
    expect(probeRequests({ ...base, tls: { termination: 'reencrypt', insecureEdgeTerminationPolicy: 'Allow' } }).map((p) => p.request.scheme)).toEqual(['https', 'http']);
    expect(probeRequests({ ...base, host: 'R.Example.com', tls: { termination: 'passthrough' } })).toEqual([
      { request: { host: 'R.Example.com', scheme: 'sni-passthrough' }, expect: 'backend', key: 'r.example.com' },
    ]);
  });
});

describe('literalPrefixOf', () => {
  it('keeps the literal start of anchored keys and nothing that is optional', () => {
    expect(literalPrefixOf('^a\\.example\\.com\\.?(:[0-9]+)?/api(/.*)?$')).toBe('a.example.com');
    expect(literalPrefixOf('^[^\\.]*\\.example\\.com$')).toBe('');
    // `c+` needs at least one c; `c?` none.
    expect(literalPrefixOf('^abc+')).toBe('abc');
    expect(literalPrefixOf('^abc?')).toBe('ab');
    expect(literalPrefixOf('^a\\db')).toBe('a');
    expect(literalPrefixOf('^a|b')).toBe('');
    expect(literalPrefixOf('abc')).toBe('');
  });
});
