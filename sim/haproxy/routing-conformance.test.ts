import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HaproxyConfig } from '../../core/haproxy/config-model.ts';
import { renderHaproxyCfg, writeRenderedCfg } from './haproxy-cfg.ts';
import { MockHaproxy } from './mock-haproxy.ts';
import { resolveRoute, type RouteRequest } from './route-resolver.ts';

/**
 * The route resolver against real traffic: a real HAProxy 2.6 runs the rendered cfg with local TCP servers
 * as endpoints; requests go through its frontends, and the endpoint that answers must be one of the ready
 * servers of the backend the resolver names from the mock's maps (or the outcome must be the same:
 * redirect, or no backend at all). Runtime map and server changes are applied to both first.
 */

const haproxyAvailable = spawnSync('haproxy', ['-v']).status === 0;
const describeReal = haproxyAvailable ? describe : describe.skip;

interface Endpoint {
  name: string;
  port: number;
  server: Server;
  /** Connections received (a passthrough connection is identified this way). */
  accepted: number;
}

/** A TCP endpoint that answers any request with its name as an HTTP response. */
function startEndpoint(name: string): Promise<Endpoint> {
  return new Promise((resolve) => {
    const ep: Endpoint = { name, port: 0, server: createServer(), accepted: 0 };
    ep.server.on('connection', (sock) => {
      ep.accepted++;
      sock.once('data', () => sock.end(`HTTP/1.1 200 OK\r\nContent-Length: ${name.length}\r\nConnection: close\r\n\r\n${name}`));
      sock.on('error', () => sock.destroy());
    });
    ep.server.listen(0, '127.0.0.1', () => {
      const a = ep.server.address();
      ep.port = typeof a === 'object' && a !== null ? a.port : 0;
      resolve(ep);
    });
  });
}

async function freePort(): Promise<number> {
  const ep = await startEndpoint('probe');
  await new Promise((r) => ep.server.close(r));
  return ep.port;
}

/** Status line and body of one HTTP/1.1 request. */
function httpGet(port: number, host: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const c = createConnection(port, '127.0.0.1');
    let raw = '';
    c.setEncoding('utf8');
    c.on('connect', () => c.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
    c.on('data', (d: string) => (raw += d));
    c.on('end', () => {
      const status = Number(raw.split(' ')[1]);
      resolve({ status, body: raw.slice(raw.indexOf('\r\n\r\n') + 4) });
    });
    c.on('error', reject);
  });
}

/** Sends a TLS ClientHello with this SNI; resolves when HAProxy closes or the endpoint hangs up. */
function sniHello(port: number, servername: string): Promise<void> {
  return new Promise((resolve) => {
    const s = tlsConnect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false });
    s.on('error', () => resolve());
    s.on('close', () => resolve());
    s.setTimeout(2000, () => s.destroy());
  });
}

function ask(socketPath: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const c = createConnection(socketPath);
    c.setEncoding('utf8');
    c.on('connect', () => c.write(`${request}\n`));
    c.on('data', (d: string) => (out += d));
    c.on('end', () => resolve(out));
    c.on('error', reject);
  });
}

const esc = (key: string): string => key.replace(/\\/g, '\\\\');
const hostKey = (host: string, path = ''): string => `^${host.replace(/\./g, '\\.')}\\.?(:[0-9]+)?${path}(/.*)?$`;

const TITLE = 'route resolver agrees with a real HAProxy 2.6 routing real requests';
describeReal(haproxyAvailable ? TITLE : `${TITLE}: skipped, \`haproxy\` is not on PATH (CI installs it)`, () => {
  let dir = '';
  let proc: ChildProcess | undefined;
  let stderr = '';
  const eps = new Map<string, Endpoint>();
  const ports = { http: 0, https: 0, terminated: 0 };
  const mock = new MockHaproxy();

  beforeAll(async () => {
    for (const n of ['web-1', 'web-2', 'api-1', 'edge-1', 'pass-1']) eps.set(n, await startEndpoint(n));
    ports.http = await freePort();
    ports.https = await freePort();
    ports.terminated = await freePort();
    const server = (n: string) => ({ name: n, address: '127.0.0.1', port: eps.get(n)!.port, weight: 1, disabled: false, check: false });
    const config: HaproxyConfig = {
      backends: [
        { name: 'be_http:ns:web', mode: 'http', balance: 'roundrobin', servers: [server('web-1'), server('web-2')] },
        { name: 'be_http:ns:api', mode: 'http', balance: 'roundrobin', servers: [server('api-1')] },
        { name: 'be_edge_http:ns:edge', mode: 'http', balance: 'roundrobin', servers: [server('edge-1')] },
        { name: 'be_tcp:ns:pass', mode: 'tcp', balance: 'source', servers: [server('pass-1')] },
      ],
      maps: {
        'os_http_be.map': [
          { key: hostKey('web.example.com', '/api'), value: 'be_http:ns:api' },
          { key: hostKey('web.example.com'), value: 'be_http:ns:web' },
          { key: `^[^\\.]*${hostKey('.wild.example.com').slice(1)}`, value: 'be_http:ns:api' },
        ],
        'os_route_http_redirect.map': [
          { key: hostKey('web.example.com'), value: '0' },
          { key: hostKey('edge.example.com'), value: '1' },
        ],
        'os_edge_reencrypt_be.map': [{ key: hostKey('edge.example.com'), value: 'be_edge_http:ns:edge' }],
        'os_sni_passthrough.map': [{ key: '^pass\\.example\\.com$', value: '1' }],
        'os_tcp_be.map': [{ key: '^pass\\.example\\.com$', value: 'be_tcp:ns:pass' }],
      },
    };
    dir = mkdtempSync(join(tmpdir(), 'routerbench-routing-'));
    const cfgPath = join(dir, 'haproxy.cfg');
    const rendered = renderHaproxyCfg(config, {
      statsSocketPath: join(dir, 'haproxy.sock'),
      mapDir: dir,
      cfgFile: cfgPath,
      httpPort: ports.http,
      httpsPort: ports.https,
      terminatedPort: ports.terminated,
    });
    writeRenderedCfg(rendered, cfgPath, (p, t) => writeFileSync(p, t));
    mock.load(config, rendered.layout);
    proc = spawn('haproxy', ['-db', '-f', cfgPath], { stdio: ['ignore', 'ignore', 'pipe'] });
    proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    for (let i = 0; i < 100; i++) {
      if (proc.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`);
      try {
        await ask(join(dir, 'haproxy.sock'), 'show backend');
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error(`haproxy did not start: ${stderr}`);
  });

  afterAll(async () => {
    if (proc?.pid !== undefined && proc.exitCode === null) process.kill(proc.pid, 'SIGTERM');
    for (const ep of eps.values()) await new Promise((r) => ep.server.close(r));
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  /** Both sides agree on one HTTP request: same endpoint set, or same non-200 outcome. */
  async function agree(req: RouteRequest, port: number): Promise<string> {
    const real = await httpGet(port, req.host, req.path ?? '/');
    const predicted = resolveRoute(mock, req);
    if (predicted.kind === 'backend') {
      expect(real.status, `${req.host}${req.path ?? ''}`).toBe(200);
      const byPort = [...eps.values()].find((e) => e.name === real.body);
      expect(predicted.servers.map((s) => s.port), `${req.host}${req.path ?? ''} answered by ${real.body}`).toContain(byPort?.port);
      return real.body;
    }
    if (predicted.kind === 'redirect') expect(real.status).toBe(302);
    else expect(real.status).toBe(503);
    return String(real.status);
  }

  const change = async (line: string): Promise<void> => {
    const real = await ask(join(dir, 'haproxy.sock'), line);
    expect(mock.execute(line)).toBe(real);
  };

  it('routes plain HTTP by host and path, first match in file order, wildcard and unknown hosts', async () => {
    expect(await agree({ host: 'web.example.com', path: '/api/users', scheme: 'http' }, ports.http)).toBe('api-1');
    expect(['web-1', 'web-2']).toContain(await agree({ host: 'web.example.com:80', path: '/', scheme: 'http' }, ports.http));
    expect(await agree({ host: 'x.wild.example.com', path: '/', scheme: 'http' }, ports.http)).toBe('api-1');
    expect(await agree({ host: 'nobody.example.com', path: '/', scheme: 'http' }, ports.http)).toBe('503');
    expect(await agree({ host: 'edge.example.com', path: '/', scheme: 'http' }, ports.http)).toBe('302');
    expect(await agree({ host: 'EDGE.example.com', path: '/', scheme: 'https' }, ports.terminated)).toBe('edge-1');
    expect(['web-1', 'web-2']).toContain(await agree({ host: 'WEB.Example.COM', path: '/x', scheme: 'http' }, ports.http));
    expect(await agree({ host: 'edge.example.com', path: '/', scheme: 'https' }, ports.terminated)).toBe('edge-1');
  });

  it('follows runtime changes: maint servers, map entries added last, deleted entries', async () => {
    await change('set server be_http:ns:web/web-1 state maint');
    for (let i = 0; i < 4; i++) expect(await agree({ host: 'web.example.com', path: '/', scheme: 'http' }, ports.http)).toBe('web-2');
    // Added at runtime after the host-wide entry, this more specific path never matches.
    await change(`add map ${dir}/os_http_be.map ${esc(hostKey('web.example.com', '/static'))} be_http:ns:api`);
    expect(await agree({ host: 'web.example.com', path: '/static/a.css', scheme: 'http' }, ports.http)).toBe('web-2');
    await change(`add map ${dir}/os_http_be.map ${esc(hostKey('new.example.com'))} be_http:ns:api`);
    expect(await agree({ host: 'new.example.com', path: '/', scheme: 'http' }, ports.http)).toBe('api-1');
    await change(`del map ${dir}/os_http_be.map ${esc(hostKey('web.example.com', '/api'))}`);
    expect(await agree({ host: 'web.example.com', path: '/api/users', scheme: 'http' }, ports.http)).toBe('web-2');
    await change(`set map ${dir}/os_route_http_redirect.map ${esc(hostKey('web.example.com'))} 1`);
    expect(await agree({ host: 'web.example.com', path: '/', scheme: 'http' }, ports.http)).toBe('302');
    await change(`set map ${dir}/os_http_be.map ${esc(hostKey('new.example.com'))} be_http:ns:missing`);
    expect(await agree({ host: 'new.example.com', path: '/', scheme: 'http' }, ports.http)).toBe('503');
  });

  it('routes TLS passthrough by SNI to the backend the resolver names', async () => {
    const pass = eps.get('pass-1')!;
    const before = pass.accepted;
    const predicted = resolveRoute(mock, { host: 'PASS.example.com', scheme: 'sni-passthrough' });
    await sniHello(ports.https, 'pass.example.com');
    expect(predicted).toMatchObject({ kind: 'backend', backend: 'be_tcp:ns:pass', servers: [{ port: pass.port }] });
    expect(pass.accepted).toBe(before + 1);
    await sniHello(ports.https, 'other.example.com');
    expect(resolveRoute(mock, { host: 'other.example.com', scheme: 'sni-passthrough' })).toEqual({ kind: 'no-match' });
    expect(pass.accepted).toBe(before + 1);
  });
});
