import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { InputError } from './eventlog/input-error.ts';
import { loadRunInput, type InputOverrides } from './load-input.ts';
import { inputErrorOf } from './testing/input-error-of.ts';

const dir = mkdtempSync(join(tmpdir(), 'rb-load-input-'));
let n = 0;
function logWithHeader(header: Record<string, unknown>): string {
  const file = join(dir, `log-${n++}.jsonl`);
  writeFileSync(file, `${JSON.stringify({ routerbench: 'eventlog', version: 1, ...header })}\n{"at":0,"type":"network.heal"}\n`);
  return file;
}
const errorOf = (file: string, overrides: InputOverrides = {}): InputError => inputErrorOf(() => loadRunInput(file, overrides));

describe("an event log header's settings, seed and budgets", () => {
  test('apply, under the command line', () => {
    const file = logWithHeader({ seed: 9, settings: { router: { strategy: 'dcm-slots', maxDynamicServers: 3 } }, budgets: ['reloads.total<=4'] });
    const input = loadRunInput(file, { set: { 'router.maxDynamicServers': '7' }, budgets: ['failover.flaps==0'] });
    expect(input.settings.seed).toBe(9);
    expect(input.settings.router.strategy).toBe('dcm-slots');
    expect(input.settings.router.maxDynamicServers).toBe(7);
    expect(input.budgets).toEqual(['reloads.total <= 4', 'failover.flaps == 0']);
  });

  // [what, header, field, message]
  const bad: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['settings not an object', { settings: 'x' }, 'settings', /settings must be an object/],
    ['a seed that is text', { seed: '7' }, 'seed', /expected number/],
    ['a seed inside settings that is text', { settings: { seed: 'x' } }, 'settings.seed', /expected number/],
    ['a setting out of range', { settings: { router: { maxDynamicServers: 0 } } }, 'settings.router.maxDynamicServers', />=1/],
    ['an unknown setting', { settings: { router: { maxDynamicServer: 2 } } }, 'settings.router.maxDynamicServer', /unknown setting/],
    ['budgets not a list', { budgets: 'reloads.total<=2' }, 'budgets', /a list of budget strings/],
    ['a budget that is no string', { budgets: ['reloads.total<=2', 5] }, 'budgets[1]', /got 5/],
    ['a budget on an unknown metric', { budgets: ['reloads.count<=2'] }, 'budgets[0]', /unknown metric/],
  ];
  test.each(bad)('%s: an input error at line 1 of the log, naming the field', (_, header, field, message) => {
    const file = logWithHeader(header);
    const err = errorOf(file);
    expect({ file: err.file, line: err.line, field: err.field }).toEqual({ file, line: 1, field });
    expect(err.message).toMatch(message);
  });

  test('the command line can stand in for a bad header value', () => {
    const file = logWithHeader({ seed: 'x', settings: { router: { maxDynamicServers: 0 } } });
    const input = loadRunInput(file, { seed: 4, set: { 'router.maxDynamicServers': '3' } });
    expect([input.settings.seed, input.settings.router.maxDynamicServers]).toEqual([4, 3]);
  });

  test('what the command line adds is blamed on the command line', () => {
    const file = logWithHeader({ settings: { router: { maxDynamicServers: 3 } } });
    const set = errorOf(file, { set: { 'router.maxDynamicServers': '0' } });
    expect({ file: set.file, field: set.field }).toEqual({ file: '--set', field: 'router.maxDynamicServers' });
    expect(errorOf(file, { budgets: ['reloads.count<=2'] }).file).toBe('--budget');
  });
});
