import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The bin, run from the sources in-process (vitest.config sets ROUTERBENCH_FROM_SOURCES=1): signals reach the
// process that writes, as they do from a shell.
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'routerbench.js');
const dir = mkdtempSync(join(tmpdir(), 'routerbench-interrupted-'));

const ROUTE_ADDED = JSON.stringify({
  type: 'ADDED',
  object: {
    apiVersion: 'route.openshift.io/v1',
    kind: 'Route',
    metadata: { name: 'a', namespace: 'shop', creationTimestamp: '2026-11-29T10:00:00Z' },
    spec: { host: 'a.example.com', to: { kind: 'Service', name: 'web' } },
  },
});

function exitOf(child: ReturnType<typeof spawn>): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (c) => resolve(c)));
}

describe('Ctrl-C while writing an event log with -o', () => {
  it('import from a watch pipe: Ctrl-C reaches kubectl and import alike; import writes what it read, exit 0, no temporary file', async () => {
    const out = join(dir, 'watch.jsonl');
    const child = spawn(process.execPath, [BIN, 'import', '-o', out], { cwd: dir, stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const exited = exitOf(child);
    child.stdin!.write(`${ROUTE_ADDED}\n`);
    // The temporary file exists once the command is reading; then the signal, then the writer side goes away
    // as a killed kubectl's would.
    for (let i = 0; i < 400 && !readdirSync(dir).some((f) => f.startsWith('watch.jsonl.tmp-')); i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 200));
    child.stdin!.end();
    expect(await exited, err).toBe(0);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    // The header and the one route the watch carried.
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]!)).toMatchObject({ type: 'route.upsert', route: { namespace: 'shop', name: 'a' } });
    expect(readdirSync(dir).filter((f) => f.startsWith('watch.jsonl.tmp-'))).toEqual([]);
  }, 60_000);

  it('expand of a long scenario: Ctrl-C leaves nothing at the path, not even the temporary file, exit 130', async () => {
    // Scale events at 100,000 an hour for 100 simulated hours: about ten million events, far more than can be
    // written before the signal comes.
    const scenario = join(dir, 'long.yaml');
    writeFileSync(scenario, 'name: long\ngenerate:\n  durationMs: 360000000\n  world: { services: 20 }\n  scale: { perHour: 100000, max: 8 }\n');
    const out = join(dir, 'long.jsonl');
    const child = spawn(process.execPath, [BIN, 'expand', scenario, '--allow-large', '-o', out], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const exited = exitOf(child);
    for (let i = 0; i < 400 && !readdirSync(dir).some((f) => f.startsWith('long.jsonl.tmp-')); i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    expect(await exited, err).toBe(130);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('long.jsonl'))).toEqual([]);
  }, 60_000);
});
