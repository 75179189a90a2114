import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../eventlog/input-error.ts';
import { CfgParseError } from '../haproxy/cfg-parser.ts';
import { renderHaproxyCfg, writeRenderedCfg } from '../haproxy/haproxy-cfg.ts';
import { registerMockHaproxyCommand, SOCKET_PATH_BYTES_MAX } from './mock-haproxy-command.ts';

/**
 * Runs `routerbench mock-haproxy` as its own process (through a two-line commander program, since the lead
 * engineer wires the real CLI) and talks to it with socat, exactly as one would talk to HAProxy.
 */
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const socatAvailable = spawnSync('socat', ['-V']).status === 0;
const describeSocat = socatAvailable ? describe : describe.skip;
if (!socatAvailable) console.warn('mock-haproxy command: `socat` is not on PATH, so the socket test is skipped');

const PROGRAM = `
import { Command } from 'commander';
import { registerMockHaproxyCommand } from './sim/cli/mock-haproxy-command.ts';
const program = new Command('routerbench');
registerMockHaproxyCommand(program);
await program.parseAsync(process.argv.slice(1), { from: 'user' });
`;

function socat(socket: string, request: string): string {
  const r = spawnSync('socat', ['stdio', `unix-connect:${socket}`], { input: request, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`socat failed: ${r.stderr}`);
  return r.stdout;
}

async function waitFor(cond: () => boolean, what: string, proc: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    if (proc.exitCode !== null) throw new Error(`exited (${proc.exitCode}) before ${what}: ${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}: ${log()}`);
}

describeSocat(socatAvailable ? 'routerbench mock-haproxy' : 'routerbench mock-haproxy: skipped, `socat` is not on PATH', () => {
  let dir = '';
  let socket = '';
  let cfgPath = '';
  let proc: ChildProcess | undefined;
  let stderr = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'routerbench-mock-cli-'));
    // Exactly as long as a socket path can be, so every test below also shows that the limit is not off by one.
    socket = join(dir, 'mock.sock'.padStart(SOCKET_PATH_BYTES_MAX - dir.length - 1, 'm'));
    expect(Buffer.byteLength(socket)).toBe(SOCKET_PATH_BYTES_MAX);
    cfgPath = join(dir, 'haproxy.cfg');
    const rendered = renderHaproxyCfg(
      {
        backends: [
          {
            name: 'be_http:ns:web',
            mode: 'http',
            balance: 'roundrobin',
            servers: [{ name: 'pod-1', address: '10.0.0.1', port: 8080, weight: 1, disabled: false, check: false }],
          },
        ],
        maps: { 'os_http_be.map': [{ key: '^web\\.example\\.com(/.*)?$', value: 'be_http:ns:web' }] },
      },
      { statsSocketPath: socket, mapDir: dir, cfgFile: cfgPath, httpPort: 20080, httpsPort: 20443, terminatedPort: 20444 },
    );
    writeRenderedCfg(rendered, cfgPath, (p, t) => writeFileSync(p, t));
    proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROGRAM, 'mock-haproxy', '--config', cfgPath, '--socket', socket], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    await waitFor(() => stderr.includes('serving'), 'the socket', proc, () => stderr);
  });

  afterAll(() => {
    if (proc?.pid !== undefined && proc.exitCode === null) process.kill(proc.pid, 'SIGKILL');
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('creates the socket with the mode the cfg gives it (the rendered cfg says `mode 600`)', () => {
    expect(statSync(socket).mode & 0o777).toBe(0o600);
  });

  it('answers one request per connection, as HAProxy does', () => {
    expect(socat(socket, 'show backend\n')).toBe('# name\nbe_http:ns:web\n\n');
    expect(socat(socket, 'set server be_http:ns:web/pod-1 state maint;get weight be_http:ns:web/pod-1\n')).toBe('\n1 (initial 1)\n\n');
    expect(socat(socket, `add map ${dir}/os_http_be.map <<\nk1 v1\nk2 v2\n\n`)).toBe('\n');
    expect(socat(socket, `show map ${dir}/os_http_be.map\n`).replace(/^0x[0-9a-f]+ /gm, 'P ')).toBe(
      'P ^web\\.example\\.com(/.*)?$ be_http:ns:web\nP k1 v1\nP k2 v2\n\n',
    );
    // Lines sent together are all answered; a last line without its newline is not (as in HAProxy).
    expect(socat(socket, 'get weight be_http:ns:web/pod-1\nget weight be_http:ns:web/pod-1\nshow backend')).toBe('1 (initial 1)\n\n1 (initial 1)\n\n');
  });

  it('reloads the cfg on SIGHUP, losing runtime changes', async () => {
    expect(socat(socket, 'show servers state be_http:ns:web\n').split('\n')[2]!.split(' ')[6]).toBe('1');
    proc!.kill('SIGHUP');
    await waitFor(() => stderr.includes('reloaded'), 'the reload', proc!, () => stderr);
    // Admin state (7th field) back to 0: the forced maintenance was a runtime change.
    expect(socat(socket, 'show servers state be_http:ns:web\n').split('\n')[2]!.split(' ')[6]).toBe('0');
  });

  it('stops on SIGTERM at once, exit code 0, even with clients holding connections open, and removes its socket', async () => {
    const closed = (c: Socket): Promise<void> => new Promise((resolve) => c.once('close', () => resolve()));
    // One client connected and silent (as `sleep 30 | socat stdio unix-connect:…`), one whose second request
    // is still incomplete: its first answer proves the mock has accepted both and is holding them open.
    const idle = createConnection(socket);
    idle.on('error', () => undefined);
    await new Promise<void>((resolve) => idle.once('connect', () => resolve()));
    const midRequest = createConnection(socket);
    midRequest.on('error', () => undefined);
    midRequest.setEncoding('utf8');
    const firstAnswer = new Promise<string>((resolve) => midRequest.once('data', (d: string) => resolve(d)));
    midRequest.write('show backend\nshow');
    expect(await firstAnswer).toBe('# name\nbe_http:ns:web\n\n');
    const dropped = Promise.all([closed(idle), closed(midRequest)]);

    const exited = new Promise<number | null>((resolve) => proc!.once('exit', (code) => resolve(code)));
    proc!.kill('SIGTERM');
    // Before the fix this hung until the clients left; the clients here never do.
    const code = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running after 3 s'), 3000))]);
    expect(code).toBe(0);
    await dropped;
    expect(existsSync(socket)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.sock'))).toEqual([]);
  });
});

describe('routerbench mock-haproxy: bad input', () => {
  const run = (...args: string[]): Promise<unknown> => {
    const program = new Command('routerbench').exitOverride();
    registerMockHaproxyCommand(program);
    return program.parseAsync(['mock-haproxy', ...args], { from: 'user' });
  };
  const dir = mkdtempSync(join(tmpdir(), 'routerbench-mock-bad-'));
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(cfg, 'backend b\n  balance roundrobin\n');
  const plain = join(dir, 'plain');
  writeFileSync(plain, '');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names a --config that is a directory or not an haproxy.cfg, and a --socket it cannot use, without serving', async () => {
    await expect(run('--config', dir, '--socket', join(dir, 's.sock'))).rejects.toThrow(`${dir}: is a directory`);
    const yaml = join(dir, 'scenario.yaml');
    writeFileSync(yaml, 'name: x\nsim: { durationMs: 1000 }\n');
    await expect(run('--config', yaml, '--socket', join(dir, 's.sock'))).rejects.toThrow(CfgParseError);
    await expect(run('--config', cfg, '--socket', plain)).rejects.toThrow(`${plain}: exists and is not a socket`);
    await expect(run('--config', cfg, '--socket', join(dir, 'no', 's.sock'))).rejects.toThrow(InputError);
    expect(existsSync(join(dir, 's.sock'))).toBe(false);
  });

  it('refuses a socket another process is listening on, and leaves it to that process', async () => {
    const live = join(dir, 'live.sock');
    // The refusal's probe hangs up at once, so writing the answer to it may meet a reset: not this test's concern.
    const other = createServer((c) => {
      c.on('error', () => {});
      c.end('still mine\n');
    });
    await new Promise<void>((resolve) => other.listen(live, resolve));
    try {
      await expect(run('--config', cfg, '--socket', live)).rejects.toThrow(`${live}: another process is listening on this socket`);
      // The first listener still answers on its path.
      const answer = await new Promise<string>((resolve) => {
        const c = createConnection(live);
        c.setEncoding('utf8');
        let got = '';
        c.on('data', (d: string) => (got += d));
        c.on('end', () => resolve(got));
      });
      expect(answer).toBe('still mine\n');
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('refuses a --socket path longer than a unix socket path can be, counted in bytes, before touching anything', async () => {
    const before = readdirSync(dir);
    // The kernel would have bound a truncated name: one byte over, and one within the limit in characters but
    // not in bytes (each 'é' is two).
    const ascii = join(dir, 'a'.repeat(SOCKET_PATH_BYTES_MAX - dir.length));
    const accented = join(dir, 'é'.repeat(SOCKET_PATH_BYTES_MAX - dir.length - 1));
    expect(ascii.length).toBe(SOCKET_PATH_BYTES_MAX + 1);
    expect(accented.length).toBe(SOCKET_PATH_BYTES_MAX);
    for (const path of [ascii, accented]) {
      const err = await run('--config', cfg, '--socket', path).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).message).toBe(
        `${path}: --socket path is ${Buffer.byteLength(path)} bytes, longer than a unix socket path can be (at most ${SOCKET_PATH_BYTES_MAX} bytes): choose a shorter path`,
      );
    }
    expect(readdirSync(dir)).toEqual(before);
  });
});
