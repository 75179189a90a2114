import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A real HAProxy 2.6 for conformance tests: started on a cfg already written to disk, asked over its stats
 * socket one request per connection (as the router's client asks), stopped with SIGTERM. Tests skip
 * themselves, with the reason in their title, when `haproxy` is not on PATH.
 */
export const haproxyAvailable = spawnSync('haproxy', ['-v']).status === 0;

export interface RealHaproxy {
  ask(request: string): Promise<string>;
  stop(): Promise<void>;
  /** What the process wrote to stderr so far (warnings, alerts). */
  log(): string;
}

export function ask(socketPath: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const c = createConnection(socketPath);
    c.on('connect', () => c.write(request.endsWith('\n') ? request : `${request}\n`));
    c.on('data', (d) => chunks.push(d));
    c.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    c.on('error', reject);
  });
}

export async function startHaproxy(cfgPath: string, socketPath: string): Promise<RealHaproxy> {
  let stderr = '';
  const proc: ChildProcess = spawn('haproxy', ['-db', '-f', cfgPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`haproxy exited with ${proc.exitCode}: ${stderr}`);
    try {
      await ask(socketPath, 'show backend');
      break;
    } catch {
      if (i >= 100) {
        proc.kill('SIGTERM');
        throw new Error(`haproxy did not open its stats socket: ${stderr}`);
      }
      await sleep(50);
    }
  }
  return {
    ask: (request) => ask(socketPath, request),
    log: () => stderr,
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** Ports the OS says are free right now, for binds on 127.0.0.1. */
export async function freePorts(n: number): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < n; i++) {
    ports.push(
      await new Promise<number>((resolve, reject) => {
        const s = createServer();
        s.once('error', reject);
        s.listen(0, '127.0.0.1', () => {
          const addr = s.address();
          s.close(() => resolve(typeof addr === 'object' && addr !== null ? addr.port : 0));
        });
      }),
    );
  }
  return ports;
}
