import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HaproxyConfig } from '../../core/haproxy/config-model.ts';
import { renderHaproxyCfg, renderMapFile, writeRenderedCfg, type RenderOptions } from './haproxy-cfg.ts';
import { MockHaproxy } from './mock-haproxy.ts';

const haproxyAvailable = spawnSync('haproxy', ['-v']).status === 0;

function sample(): HaproxyConfig {
  return {
    backends: [
      {
        name: 'be_http:ns:web',
        mode: 'http',
        balance: 'roundrobin',
        cookieName: '0b1f6c2e',
        dynamicCookieKey: 'k',
        servers: [
          { name: 'pod:web-1:web:http:10.0.0.1:8080', address: '10.0.0.1', port: 8080, weight: 256, disabled: false, check: true, cookie: 'c1' },
          { name: 'v6', address: 'fd00::1', port: 8080, weight: 1, disabled: false, check: false },
          { name: '_dynamic-pod-1', address: '172.4.0.4', port: 8765, weight: 0, disabled: true, check: true },
        ],
      },
      { name: 'be_tcp:ns:pass', mode: 'tcp', balance: 'source', servers: [] },
      { name: 'be_secure:ns:re', mode: 'http', balance: 'random', servers: [] },
      { name: 'be_edge_http:ns:f', mode: 'http', balance: 'first', servers: [] },
      { name: 'be_edge_http:ns:s', mode: 'http', balance: 'static-rr', servers: [] },
      { name: 'be_edge_http:ns:l', mode: 'http', balance: 'leastconn', servers: [] },
    ],
    maps: {
      'os_http_be.map': [{ key: '^web\\.example\\.com\\.?(:[0-9]+)?(/.*)?$', value: 'be_http:ns:web' }],
      'custom_extra.map': [{ key: '^[^\\.]*\\.example\\.com$', value: '1' }],
    },
  };
}

function options(dir: string): RenderOptions {
  return { statsSocketPath: join(dir, 's.sock'), mapDir: dir, cfgFile: join(dir, 'haproxy.cfg'), httpPort: 31080, httpsPort: 31443, terminatedPort: 31444 };
}

describe('renderHaproxyCfg', () => {
  it.skipIf(!haproxyAvailable)('writes a cfg that haproxy 2.6 accepts (haproxy -c)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'routerbench-cfg-'));
    try {
      const r = renderHaproxyCfg(sample(), options(dir));
      writeRenderedCfg(r, join(dir, 'haproxy.cfg'), (p, t) => writeFileSync(p, t));
      const check = spawnSync('haproxy', ['-c', '-f', join(dir, 'haproxy.cfg')], { encoding: 'utf8' });
      expect(check.stdout + check.stderr).toContain('Configuration file is valid');
      expect(check.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('listens on 127.0.0.1 only, on the given ports, and exposes an admin stats socket', () => {
    const r = renderHaproxyCfg(sample(), options('/d'));
    const binds = r.text.split('\n').filter((l) => l.trim().startsWith('bind '));
    expect(binds.map((l) => l.trim())).toEqual(['bind 127.0.0.1:31080', 'bind 127.0.0.1:31443', 'bind 127.0.0.1:31444']);
    expect(r.text).toContain('stats socket /d/s.sock mode 600 level admin');
  });

  it('knows the line of every server it writes', () => {
    const r = renderHaproxyCfg(sample(), options('/tmp/x'));
    const text = r.text.split('\n');
    expect(r.layout.serverLines!.cfgFile).toBe('/tmp/x/haproxy.cfg');
    for (const be of sample().backends) {
      const lines = r.layout.serverLines!.byBackend.get(be.name)!;
      expect(lines.map((n) => text[n - 1]!.split(' ')[3])).toEqual(be.servers.map((s) => s.name));
    }
  });

  it('refuses privileged or invalid ports', () => {
    expect(() => renderHaproxyCfg(sample(), { ...options('/d'), httpPort: 80 })).toThrow(/httpPort/);
    expect(() => renderHaproxyCfg(sample(), { ...options('/d'), terminatedPort: 70000 })).toThrow(/terminatedPort/);
  });

  it('writes server lines with weight, cookie, check and disabled, IPv6 in brackets', () => {
    const lines = renderHaproxyCfg(sample(), options('/d')).text.split('\n');
    expect(lines).toContain('  server pod:web-1:web:http:10.0.0.1:8080 10.0.0.1:8080 weight 256 cookie c1 check inter 5000ms');
    expect(lines).toContain('  server v6 [fd00::1]:8080 weight 1');
    expect(lines).toContain('  server _dynamic-pod-1 172.4.0.4:8765 weight 0 check inter 5000ms disabled');
    expect(lines).toContain('  cookie 0b1f6c2e insert indirect nocache httponly dynamic');
  });

  it('references every standard map plus any other, and writes one file per map', () => {
    const r = renderHaproxyCfg(sample(), options('/d'));
    expect([...r.mapFiles.keys()].sort()).toEqual(
      ['custom_extra.map', 'os_edge_reencrypt_be.map', 'os_http_be.map', 'os_route_http_redirect.map', 'os_sni_passthrough.map', 'os_tcp_be.map'].map(
        (f) => `/d/${f}`,
      ),
    );
    expect(r.mapFiles.get('/d/os_http_be.map')).toBe('^web\\.example\\.com\\.?(:[0-9]+)?(/.*)?$ be_http:ns:web\n');
    // Every map's first reference is on the line the layout says.
    const lines = r.text.split('\n');
    for (const m of r.layout.maps) expect(lines[m.line - 1]).toContain(m.path);
  });

  it('writes os_wildcard_domain.map as the template does, but references it nowhere, so HAProxy does not load it', () => {
    const config = { ...sample(), maps: { ...sample().maps, 'os_wildcard_domain.map': [{ key: '^[^\\.]*\\.example\\.com$', value: '1' }] } };
    const r = renderHaproxyCfg(config, options('/d'));
    expect(r.mapFiles.get('/d/os_wildcard_domain.map')).toBe('^[^\\.]*\\.example\\.com$ 1\n');
    expect(r.text).not.toContain('os_wildcard_domain.map');
    expect(r.layout.maps.map((m) => m.file)).not.toContain('os_wildcard_domain.map');
    // ... and the mock, loading the same config, lists it nowhere either.
    const mock = new MockHaproxy();
    mock.load(config);
    expect(mock.execute('show map')).not.toContain('os_wildcard_domain.map');
  });

  it('cannot write a key containing a blank to a map file', () => {
    expect(() => renderMapFile([{ key: 'a b', value: 'v' }])).toThrow(/cannot be written/);
  });
});
