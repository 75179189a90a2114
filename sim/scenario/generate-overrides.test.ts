import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { InputEvent } from '../../core/events.ts';
import { loadRunInput } from '../load-input.ts';
import { parseGridAxis } from '../sweep/grid.ts';
import { inputErrorOf } from '../testing/input-error-of.ts';
import { parseScenario } from './load-scenario.ts';

/** A workload of 4 initial routes over 2 services, nothing else moving, for an hour. */
const SCENARIO = [
  'seed: 3',
  'router: { strategy: reload-always }',
  'generate:',
  '  durationMs: 3600000',
  '  world: { namespaces: 1, services: 2, endpointsPerService: 1, workers: 1 }',
  '  routes: { initial: 4, createPerHour: 0, deletePerHour: 0 }',
  '',
].join('\n');

const FILE = 'generated.yaml';

/** The routes the generators create at time 0: the `routes.initial` ones. */
function initialRoutes(events: Iterable<InputEvent>): number {
  let n = 0;
  for (const e of events) if (e.at === 0 && e.type === 'route.upsert') n++;
  return n;
}

describe('--set generate.*', () => {
  test("changes the scenario's generate section before it is expanded", () => {
    const plain = parseScenario(SCENARIO, FILE);
    expect(initialRoutes(plain.events())).toBe(4);
    const changed = parseScenario(SCENARIO, FILE, { set: { 'generate.routes.initial': '7' } });
    expect(changed.generate?.routes?.initial).toBe(7);
    expect(initialRoutes(changed.events())).toBe(7);
    expect(changed.reproduce).toContain('--set generate.routes.initial=7');
    // The file's own validated text is not touched: the next load without the flag sees 4 again.
    expect(initialRoutes(parseScenario(SCENARIO, FILE).events())).toBe(4);
  });

  test('adds a key the file does not write, and the last of two changes to one key wins (a layer, then --set)', () => {
    const layer = { origin: '--grid', assignments: [{ key: 'generate.routes.initial', value: 5, source: '--grid generate.routes.initial' }] };
    const input = parseScenario(SCENARIO, FILE, { layers: [layer], set: { 'generate.routes.initial': '2', 'generate.scale.perHour': '60', 'router.maxDynamicServers': '3' } });
    expect(input.generate?.routes?.initial).toBe(2);
    // The scale generator is switched on with its schema defaults around the one key given.
    expect(input.generate?.scale?.perHour).toBe(60);
    // Settings keys beside them are settings as before.
    expect(input.settings.router.maxDynamicServers).toBe(3);
  });

  test('a change the schema refuses is the flag’s error, naming its key and value', () => {
    const bad = inputErrorOf(() => parseScenario(SCENARIO, FILE, { set: { 'generate.routes.initial': '-1' } }));
    expect(bad.file).toBe('--set');
    expect(bad.field).toBe('generate.routes.initial');
    expect(bad.detail).toMatch(/^generate\.routes\.initial=-1: /);
    const typo = inputErrorOf(() => parseScenario(SCENARIO, FILE, { set: { 'generate.routes.intial': '2' } }));
    expect(typo.detail).toContain("unknown key 'intial' in generate.routes (did you mean 'initial'?)");
    // A check across two fields fails on the changed workload: blamed on the change that made it fail.
    const below = inputErrorOf(() => parseScenario(SCENARIO, FILE, { set: { 'generate.routes.max': '2' } }));
    expect(below.field).toBe('generate.routes.max');
    expect(below.detail).toContain('max (2) is below initial (4)');
  });

  test('an input without a generate section refuses it: a scenario without one, an event log', () => {
    const none = inputErrorOf(() => parseScenario('events: []\nsim: { durationMs: 1000 }\n', 'plain.yaml', { set: { 'generate.routes.initial': '2' } }));
    expect(none.file).toBe('--set');
    expect(none.detail).toContain('the scenario plain.yaml has no generate section to change');
    const dir = mkdtempSync(join(tmpdir(), 'routerbench-generate-set-'));
    const log = join(dir, 'events.jsonl');
    writeFileSync(log, '{"routerbench":"eventlog","version":1}\n');
    const fromLog = inputErrorOf(() => loadRunInput(log, { set: { 'generate.routes.initial': '2' } }));
    expect(fromLog.detail).toContain(`the event log ${log} has no generate section to change`);
  });

  test('takes key names only: no prototype, no list item', () => {
    const proto = inputErrorOf(() => parseScenario(SCENARIO, FILE, { set: { 'generate.__proto__.polluted': '1' } }));
    expect(proto.detail).toContain("'__proto__' is no key of a generate section");
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const item = inputErrorOf(() => parseScenario(SCENARIO, FILE, { set: { 'generate.routes.0': '1' } }));
    expect(item.detail).toContain("'0' is no key of a generate section");
    const list = inputErrorOf(() =>
      parseScenario(SCENARIO.replace('routes: {', 'rollouts: { at: [1000] }\n  routes: {'), FILE, { set: { 'generate.rollouts.at.first': '1' } }),
    );
    expect(list.detail).toContain('generate.rollouts.at is a list: change it in the scenario file');
  });

  test('is not a grid key', () => {
    const err = inputErrorOf(() => parseGridAxis('generate.routes.initial=1,2'));
    expect(err.file).toBe('--grid');
    expect(err.detail).toContain('a generate.* key is not a grid key');
  });
});
