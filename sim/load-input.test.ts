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
    ['warnings not a list', { warnings: 'x' }, 'warnings', /a list of strings/],
    ['a warning that is no string', { warnings: ['ok', 3] }, 'warnings[1]', /got 3/],
  ];
  test.each(bad)('%s: an input error at line 1 of the log, naming the field', (_, header, field, message) => {
    const file = logWithHeader(header);
    const err = errorOf(file);
    expect({ file: err.file, line: err.line, field: err.field }).toEqual({ file, line: 1, field });
    expect(err.message).toMatch(message);
  });

  test("the header's warnings come first, then the command line's; a run emits each at time 0", () => {
    const file = logWithHeader({ warnings: ['ROUTER_X: not modelled'] });
    expect(loadRunInput(file).warnings).toEqual(['ROUTER_X: not modelled']);
    expect(loadRunInput(file, { warnings: ['--env Y: ignored'] }).warnings).toEqual(['ROUTER_X: not modelled', '--env Y: ignored']);
    expect(loadRunInput(logWithHeader({ warnings: [] })).warnings).toBeUndefined();
  });

  test("the reproduce line repeats an --env string that looks like a number so that --set reads it back as that string", () => {
    const file = logWithHeader({});
    const env = { origin: '--env', assignments: [{ key: 'router.blueprintNamespace', value: '007', source: '--env ROUTER_BLUEPRINT_ROUTE_NAMESPACE=007' }] };
    const input = loadRunInput(file, { layers: [env] });
    expect(input.settings.router.blueprintNamespace).toBe('007');
    // Shell-quoted, since a double quote is special to the shell.
    expect(input.reproduce).toBe(`routerbench run ${file} --seed 1 --set 'router.blueprintNamespace="007"'`);
    const again = loadRunInput(file, { set: { 'router.blueprintNamespace': '"007"' } });
    expect(again.settings.router.blueprintNamespace).toBe('007');
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
