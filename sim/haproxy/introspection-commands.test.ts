import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts, haproxyAvailable, startHaproxy, type RealHaproxy } from '../../fidelity/real-haproxy.ts';
import { parseHaproxyCfg } from './cfg-parser.ts';
import { MockHaproxy } from './mock-haproxy.ts';
import { DEFAULT_PROCESS_INFO } from './show-info.ts';
import { serveConnection } from './socket-server.ts';

/**
 * A cfg whose maps are read by several converter kinds, so `get map` answers one line per kind. Its global
 * maxconn is not the mock's default (2,000), so the process figures it sets (`Maxconn`, `Hard_maxconn`, the
 * frontend's and backend's `slim` in `show stat`) must come from the cfg; so must a frontend's own maxconn
 * and the fullconn of the backends it names.
 */
function cfgText(dir: string, ports: readonly number[]): string {
  return [
    'global',
    '  maxconn 1500',
    `  stats socket ${dir}/h.sock mode 600 level admin`,
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 5s',
    '  timeout server 5s',
    'frontend public',
    `  bind 127.0.0.1:${ports[0]}`,
    `  http-request set-var(txn.a) base,map_reg(${dir}/r.map)`,
    `  http-request set-var(txn.b) base,map(${dir}/r.map)`,
    `  http-request set-var(txn.c) base,map_reg_int(${dir}/r.map)`,
    `  use_backend %[base,map_reg(${dir}/be.map)]`,
    `  http-request set-var(txn.d) base,map_str_int(${dir}/i.map)`,
    // A frontend of its own maxconn naming backends: theirs is a tenth of it, rounded up ((333 + 9) / 10 =
    // 34), or their own fullconn; a backend only a map reaches keeps 1.
    'frontend other',
    `  bind 127.0.0.1:${ports[1]}`,
    '  maxconn 333',
    '  use_backend be2 if { path_beg /two }',
    '  use_backend be3 if { path_beg /three }',
    '  default_backend be2',
    'backend be1',
    '  server s1 127.0.0.1:9 weight 3',
    'backend be2',
    '  server s1 127.0.0.1:9',
    'backend be3',
    '  fullconn 77',
    '  server s1 127.0.0.1:9',
    '',
  ].join('\n');
}

const MAPS: Record<string, string> = {
  'r.map': '^k.*$ 1\nk2 2\n^x\\.example\\.com$ -07\n',
  'be.map': '^a\\.example\\.com\\.?(:[0-9]+)?(/.*)?$ be1\n',
  'i.map': 'k1 +5\nk3 3\n',
};

/**
 * `show info` fields that depend on the machine or the moment (pid, clock, thread count, node name, file
 * descriptor limit and the socket limits derived from it, memory pools, task count, the CLI's own traffic),
 * masked on both sides; every other field, its name, order and format are compared.
 */
const VARYING_INFO = new Set([
  'Nbthread', 'Pid', 'Uptime', 'Uptime_sec', 'Ulimit-n', 'Maxsock', 'PoolAlloc_MB', 'PoolUsed_MB', 'CumConns', 'CumReq', 'Tasks',
  'Run_queue', 'Idle_pct', 'node', 'TotalBytesOut', 'BytesOutRate', 'PoolAlloc_bytes', 'PoolUsed_bytes', 'Start_time_sec', 'Jobs', 'Listeners',
  // The version strings name the build: another 2.6 build answers the same commands with its own.
  'Version', 'Release_date', 'Build info',
]);

function maskInfo(reply: string): string {
  return reply
    .split('\n')
    .map((line) => {
      // show stat: the seconds since the last change (field 23).
      const stat = line.split(',');
      if (stat.length > 100 && !line.startsWith('# ')) return [...stat.slice(0, 23), '*', ...stat.slice(24)].join(',');
      const typed = /^(\d+)\.([^.]+(?:\.[^.]+)*?)\.1:(\w{3}):(\w+):([^:]*)(:".*")?$/.exec(line);
      if (typed !== null) return VARYING_INFO.has(typed[2]!) ? `${typed[1]}.${typed[2]}.1:${typed[3]}:${typed[4]}:*${typed[6] ?? ''}` : line;
      const plain = /^([^:]+): ([^:]*)(:".*")?$/.exec(line);
      if (plain !== null && VARYING_INFO.has(plain[1]!)) return `${plain[1]}: *${plain[3] ?? ''}`;
      return line;
    })
    .join('\n')
    .replace(/"name":"([^"]+)"\},("processNum":1,"tags":\{[^}]*\},"value":\{"type":"\w+","value":)("[^"]*"|[0-9.]+)/g, (all, name: string, head: string) =>
      VARYING_INFO.has(name) ? `"name":"${name}"},${head}*` : all,
    );
}

/** Sends the chunks over one connection with pauses (so each is answered on its own); the bytes received, and whether the server closed. */
function converse(socketPath: string, chunks: readonly string[]): Promise<{ received: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    let received = '';
    let closed = false;
    const c = createConnection(socketPath);
    c.setEncoding('utf8');
    c.on('data', (d: string) => (received += d));
    c.on('end', () => {
      closed = true;
    });
    c.on('error', reject);
    c.on('connect', async () => {
      for (const chunk of chunks) {
        if (closed) break;
        c.write(chunk);
        await new Promise((r) => setTimeout(r, 120));
      }
      await new Promise((r) => setTimeout(r, 150));
      c.destroy();
      resolve({ received, closed });
    });
  });
}

describe('show info, show version, get map and prompt in the mock', () => {
  it('reports uptime and start time from the load, on the simulated clock', () => {
    let now = 1000;
    const mock = new MockHaproxy({ clockS: () => now });
    mock.load({ backends: [], maps: {} });
    now = 1000 + 86400 + 3723;
    const info = mock.execute('show info');
    // 1 day, 1 h 2 min 3 s after the load.
    expect(info).toContain('\nUptime: 1d 1h02m03s\nUptime_sec: 90123\n');
    expect(info).toContain('\nStart_time_sec: 1000\n');
    expect(mock.execute('show version')).toBe(`${DEFAULT_PROCESS_INFO.version}\n\n`);
  });

  it('keeps an interactive connection open and prompts after every command', () => {
    const mock = new MockHaproxy();
    mock.load({ backends: [], maps: {} });
    const session = { interactive: false };
    expect(mock.execute('prompt\n', session)).toBe('\n> ');
    expect(mock.execute('show version;show version\n', session)).toBe(`${DEFAULT_PROCESS_INFO.version}\n\n> ${DEFAULT_PROCESS_INFO.version}\n\n> `);
    expect(mock.execute('prompt\n', session)).toBe('\n');
    expect(session.interactive).toBe(false);
  });
});

const TITLE = 'show info, show version, get map and prompt conform to a real HAProxy 2.6';
(haproxyAvailable ? describe : describe.skip)(haproxyAvailable ? TITLE : `${TITLE}: skipped, \`haproxy\` is not on PATH (CI installs it)`, () => {
  let dir = '';
  let real: RealHaproxy | undefined;
  let mockServer: Server | undefined;
  let mock: MockHaproxy;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'routerbench-intro-'));
    for (const [f, text] of Object.entries(MAPS)) writeFileSync(join(dir, f), text);
    const cfgPath = join(dir, 'h.cfg');
    writeFileSync(cfgPath, cfgText(dir, await freePorts(2)));
    real = await startHaproxy(cfgPath, join(dir, 'h.sock'));
    const parsed = parseHaproxyCfg(readFileSync(cfgPath, 'utf8'), { cfgFile: cfgPath, readFile: (p) => readFileSync(p, 'utf8') });
    mock = new MockHaproxy();
    mock.load(parsed.config, parsed.layout);
    mockServer = createServer((s) => serveConnection(s, mock));
    await new Promise<void>((r) => mockServer!.listen(join(dir, 'mock.sock'), r));
  });

  afterAll(async () => {
    await real?.stop();
    await new Promise((r) => (mockServer === undefined ? r(undefined) : mockServer.close(r)));
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('answers show info (every format), show version, show stat and get map with the same bytes, machine-dependent fields masked', async () => {
    const r = join(dir, 'r.map');
    const requests = [
      'show stat',
      'show stat -1 1 -1',
      'show stat be1 -1 -1',
      'show version',
      'show info',
      'show info typed',
      'show info desc',
      'show info typed desc',
      'show info json',
      'show info float',
      'show info bogus',
      `get map ${r} k2`,
      `get map ${r} kzz`,
      `get map ${r} zz`,
      `get map ${r} x.example.com`,
      `get map ${r} k2 extra`,
      `get map ${join(dir, 'i.map')} k1`,
      `get map ${join(dir, 'i.map')} k2`,
      `get map ${join(dir, 'be.map')} a.example.com/p`,
      `get map ${r}`,
      'get map',
      'get map nosuch x',
      'get map #0 k2',
      'get map #9 k2',
      `add map ${r} k9 9`,
      `get map ${r} k9`,
      `prepare map ${r}`,
      `add map @1 ${r} k9 10`,
      `get map ${r} k9`,
      `commit map @1 ${r}`,
      `get map ${r} k9`,
      `add map ${r} k7 seven`,
      `add map ${r} (bad 1`,
      'show map',
      // entry_cnt counts an entry in once per kind (3 here) and out once.
      `add map ${r} k5 5`,
      `del map ${r} k5`,
      'show map',
      `clear map ${r}`,
      'show map',
    ];
    const differences: { request: string; real: string; mock: string }[] = [];
    for (const request of requests) {
      const a = maskInfo(await real!.ask(request));
      const b = maskInfo(mock.execute(`${request}\n`));
      if (a !== b) differences.push({ request, real: a, mock: b });
    }
    expect(differences).toEqual([]);
  });

  it('holds interactive sessions as HAProxy does (prompt, commands, quit, prompt off)', async () => {
    const v = 'show version\n';
    const sessions: string[][] = [
      ['prompt\n', v, '\n', 'bogus\n', 'show version;show version\n', 'prompt\n', v],
      ['prompt\n', v, 'quit\n', v],
      ['prompt;show version\n', 'help\n', 'quit\n'],
      ['prompt extra\n', v, 'quit\n'],
      [`${v}prompt\n${v}`, 'quit\n'],
      [v, v],
      ['prompt\nshow version;quit;show version\n', v],
    ];
    for (const chunks of sessions) {
      const a = await converse(join(dir, 'h.sock'), chunks);
      const b = await converse(join(dir, 'mock.sock'), chunks);
      expect({ chunks, ...b }).toEqual({ chunks, ...a });
    }
  });
});
