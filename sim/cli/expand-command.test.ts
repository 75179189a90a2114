import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { expect, test } from 'vitest';
import { readEventLogFile } from '../eventlog/event-log-reader.ts';
import { InputError } from '../eventlog/input-error.ts';
import { loadScenario } from '../scenario/load-scenario.ts';
import { registerExpandCommand } from './expand-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-expand-'));

function program(): Command {
  const p = new Command().exitOverride();
  registerExpandCommand(p);
  return p;
}

const SCENARIO = [
  'seed: 3',
  'sim: { durationMs: 600000 }',
  'events:',
  '  - { at: 0, type: network.heal }',
  'generate:',
  '  world: { services: 4, endpointsPerService: 2 }',
  '  routes: { initial: 3, createPerHour: 60 }',
  '  scale: { perHour: 30 }',
].join('\n');

test('expand writes a v1 log that reads back as the scenario’s events', async () => {
  const scenario = join(dir, 'ok.yaml');
  writeFileSync(scenario, SCENARIO);
  const out = join(dir, 'ok.jsonl');
  await program().parseAsync(['expand', scenario, '--seed', '8', '-o', out], { from: 'user' });
  const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
  expect(JSON.parse(lines[0]!)).toMatchObject({ routerbench: 'eventlog', version: 1, seed: 8, source: scenario, scenario: 'ok', budgets: [] });
  const expected = [...loadScenario(scenario, { seed: 8 }).events()];
  expect([...readEventLogFile(out)]).toEqual(expected);
  expect(lines).toHaveLength(expected.length + 1);
});

test('--set reaches the settings in the header', async () => {
  const scenario = join(dir, 'set.yaml');
  writeFileSync(scenario, SCENARIO);
  const out = join(dir, 'set.jsonl');
  await program().parseAsync(['expand', scenario, '--set', 'router.maxDynamicServers=9', '-o', out], { from: 'user' });
  const header = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!);
  expect(header.settings.router.maxDynamicServers).toBe(9);
});

test('an input error mid-log leaves no output file behind', async () => {
  writeFileSync(join(dir, 'bad.jsonl'), '{"routerbench":"eventlog","version":1}\n{"at":1,"type":"network.heal"}\n{"at":0,"type":"network.heal"}\n');
  const scenario = join(dir, 'bad.yaml');
  writeFileSync(scenario, 'events: bad.jsonl\n');
  const out = join(dir, 'bad-out.jsonl');
  await expect(program().parseAsync(['expand', scenario, '-o', out], { from: 'user' })).rejects.toBeInstanceOf(InputError);
  expect(existsSync(out)).toBe(false);
  expect(readdirSync(dir).filter((f) => f.startsWith('bad-out'))).toEqual([]);
});

test('an event log given to expand is named as one, not parsed as YAML', async () => {
  const log = join(dir, 'already.jsonl');
  writeFileSync(log, '{"routerbench":"eventlog","version":1}\n');
  await expect(program().parseAsync(['expand', log], { from: 'user' })).rejects.toThrow(`${log}: is an event log already`);
});

test('expand refuses a scenario past the size limits, writing nothing, unless --allow-large', async () => {
  const file = join(dir, 'huge.yaml');
  // 30 scale events an hour over 2.5 million simulated hours: 75 million events, about 90 GiB of log.
  writeFileSync(file, 'name: huge\ngenerate:\n  durationMs: 9000000000000\n  world: { services: 20 }\n  scale: { perHour: 30 }\n');
  const out = join(dir, 'huge.jsonl');
  const err = await program().parseAsync(['expand', file, '-o', out], { from: 'user' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputError);
  expect((err as InputError).field).toBe('generate.scale.perHour');
  expect(existsSync(out)).toBe(false);
});
