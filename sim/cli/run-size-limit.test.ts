import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { InputError } from '../eventlog/input-error.ts';
import { runCommand } from './run-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-run-size-'));
const HOUR = 3_600_000;

/** The error runCommand throws for these inputs, which it refuses before running or writing anything. */
async function refusal(paths: string[], opts: Parameters<typeof runCommand>[1]): Promise<InputError> {
  const err = await runCommand(paths, { progress: false, ...opts }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputError);
  return err as InputError;
}

test('run --out is held to the size of the output log it writes, compact or traced; nothing is written', async () => {
  // 30 scale events an hour over 2.5 million hours: 75,000,020 events, 300 bytes each of compact log = 21.0 GiB.
  const long = join(dir, 'long.yaml');
  writeFileSync(long, 'name: long\ngenerate:\n  durationMs: 9000000000000\n  world: { services: 20 }\n  scale: { perHour: 30 }\n');
  const out = join(dir, 'out-long');
  const e = await refusal([long], { out });
  expect(e).toMatchObject({ field: 'generate.scale.perHour', detail: expect.stringContaining('21.0 GiB of output log (limit 20.0 GiB)') });
  expect(existsSync(out)).toBe(false);

  // 2,000,020 events of up to 200 endpoints: 0.8 GB compact, but 300 + 400 + 200 × 200 = 40,700 bytes an event
  // with every runtime command traced, 75.8 GiB.
  const wide = join(dir, 'wide.yaml');
  writeFileSync(wide, `name: wide\ngenerate:\n  durationMs: ${20 * HOUR}\n  world: { services: 20, endpointsPerService: 200 }\n  scale: { perHour: 100000 }\n`);
  const traced = await refusal([wide], { out: join(dir, 'out-wide'), trace: ['runtime'] });
  expect(traced.detail).toContain('75.8 GiB of output log (limit 20.0 GiB)');
  expect(existsSync(join(dir, 'out-wide'))).toBe(false);
});
