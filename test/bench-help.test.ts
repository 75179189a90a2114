import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

/**
 * Every script in bench/ says how to use it before it measures anything: `--help` prints its usage and exits
 * 0, an unknown option exits 2 (a usage error, as the CLI's). Nothing is measured either way, so each run
 * takes only the script's start-up.
 */
const ROOT = join(import.meta.dirname, '..');
const SCRIPTS = readdirSync(join(ROOT, 'bench')).filter((f) => f.endsWith('.ts')).sort();

function runScript(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', join('bench', script), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('bench scripts answer --help', () => {
  test('there are scripts to check', () => {
    expect(SCRIPTS).toContain('run.ts');
  });

  test.each(SCRIPTS)('%s: --help prints its usage (exit 0); an unknown option is a usage error (exit 2)', async (script) => {
    const [help, unknown] = await Promise.all([runScript(script, ['--help']), runScript(script, ['--no-such-option'])]);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/usage/i);
    expect(unknown.code, unknown.stdout + unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain('--no-such-option');
  });
});
