import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'routerbench.js');
const dir = mkdtempSync(join(tmpdir(), 'routerbench-closed-stdout-'));

/**
 * Runs the CLI; with `closed` the reading end of its stdout is closed before it writes anything, so every
 * write meets EPIPE, as the writes after the first line do under `| head -1` (there by a race, here always).
 */
function cli(args: string[], closed: boolean): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    if (closed) child.stdout.destroy();
    else child.stdout.resume();
    child.once('close', (code) => resolve({ code, err }));
  });
}

it('a reader that goes away (| head -1) neither crashes the command nor changes its verdict or its files', async () => {
  const args = (out: string): string[] => ['explore', '--runs', '2', '--out', join(dir, out), '--no-progress'];
  const [whole, cut] = await Promise.all([cli(args('whole'), false), cli(args('cut'), true)]);
  expect(cut.err).not.toContain('EPIPE');
  expect(cut.code).toBe(whole.code);
  expect(existsSync(join(dir, 'cut', 'explore.json'))).toBe(true);
}, 120_000);
