import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { InputEvent } from '../../core/events.ts';
import { InputErrors, MAX_REPORTED_PROBLEMS } from '../eventlog/input-error.ts';
import { SimSettingsSchema } from '../settings.ts';
import { BAD_SCENARIOS as BAD } from './bad-scenarios.ts';
import { inputErrorOf } from '../testing/input-error-of.ts';
import { loadScenario, parseScenario } from './load-scenario.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-scenario-'));
let fileNo = 0;

function write(text: string, name = `s${fileNo++}.yaml`): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const LOG_HEADER = '{"routerbench":"eventlog","version":1}';
const ROUTE = '{ at: 0, type: route.upsert, route: { namespace: a, name: r, host: h.example.com, service: s } }';

const errorOf = inputErrorOf;

describe('a good scenario', () => {
  test('becomes a RunInput with settings, budgets and a reproduce line', () => {
    const file = write(
      [
        '# yaml-language-server: $schema=./scenario.schema.json',
        'name: one-route',
        'description: a single route',
        'seed: 42',
        'router: { strategy: reload-always, reloadIntervalMs: 2000 }',
        'sim: { settleMs: 1000 }',
        'events:',
        `  - ${ROUTE}`,
        'budgets:',
        '  reloads.total: "<= 2"',
        '  failover.p99: "<= 4000"',
      ].join('\n'),
    );
    const input = loadScenario(file);
    expect(input.name).toBe('one-route');
    expect(input.description).toBe('a single route');
    expect(input.settings.seed).toBe(42);
    expect(input.settings.router.reloadIntervalMs).toBe(2000);
    // Unset knobs keep SettingsSchema's defaults.
    expect(input.settings.router.maxDynamicServers).toBe(5);
    expect(input.settings.sim).toEqual({ settleMs: 1000, invariants: 'settled' });
    expect(input.budgets).toEqual(['reloads.total <= 2', 'failover.latencyMs.p99 <= 4000']);
    expect([...input.events()]).toHaveLength(1);
    expect(input.reproduce).toBe(`routerbench run ${file} --seed 42`);
  });

  test('overrides win over the file and show in the reproduce line', () => {
    const file = write(`router: { maxDynamicServers: 3 }\nevents:\n  - ${ROUTE}\n`);
    const input = loadScenario(file, { seed: 9, set: { 'router.maxDynamicServers': '7', 'sim.settleMs': 0 }, budgets: ['reloads.total<=1'] });
    expect(input.settings.seed).toBe(9);
    expect(input.settings.router.maxDynamicServers).toBe(7);
    expect(input.settings.sim.settleMs).toBe(0);
    expect(input.budgets).toEqual(['reloads.total <= 1']);
    expect(input.reproduce).toBe(
      `routerbench run ${file} --seed 9 --set router.maxDynamicServers=7 --set sim.settleMs=0 --budget 'reloads.total<=1'`,
    );
    // The name defaults to the file name without extension.
    expect(input.name).toMatch(/^s\d+$/);
  });

  test('a haproxy section sets the stats-socket faults; --set still wins; a bad sum names the line', () => {
    const file = write(`haproxy: { refusedRate: 0.25, slowRate: 0.1 }\nevents:\n  - ${ROUTE}\n`);
    expect(loadScenario(file).settings.haproxy).toEqual({ refusedRate: 0.25, resetRate: 0, restartRate: 0, slowRate: 0.1 });
    expect(loadScenario(file, { set: { 'haproxy.refusedRate': 0 } }).settings.haproxy.refusedRate).toBe(0);
    const bad = write(`events:\n  - ${ROUTE}\nhaproxy:\n  refusedRate: 0.75\n  resetRate: 0.5\n`);
    const err = errorOf(() => loadScenario(bad));
    expect(err.file).toBe(bad);
    // The rule spans the section, so the error points at its first line (4) and names the section.
    expect(err.line).toBe(4);
    expect(err.field).toBe('haproxy');
    expect(err.message).toContain('at most 1');
  });

  test('sim.durationMs is bounded like an event time: the clock counts microseconds', () => {
    const file = write(`events:\n  - ${ROUTE}\n`);
    // MAX_AT_MS = floor((2^53 − 1) / 1000) = 9007199254740.
    expect(loadScenario(file, { set: { 'sim.durationMs': 9007199254740 } }).settings.sim.durationMs).toBe(9007199254740);
    const err = errorOf(() => loadScenario(file, { set: { 'sim.durationMs': 9007199254741 } }));
    expect(err.field).toBe('sim.durationMs');
    expect(err.message).toContain('at most 9007199254740 ms');
  });

  test('an unknown --set key is an input error naming the key', () => {
    const file = write(`events:\n  - ${ROUTE}\n`);
    const err = errorOf(() => loadScenario(file, { set: { 'router.maxDynamicServer': 3 } }));
    expect(err.field).toBe('router.maxDynamicServer');
  });

  test('inline events and a log file merge by time, inline first on ties', () => {
    const sub = join(dir, 'logs');
    mkdirSync(sub, { recursive: true });
    writeFileSync(
      join(sub, 'churn.jsonl'),
      [LOG_HEADER, '{"at":0,"type":"node.fail","node":"f0"}', '{"at":10,"type":"node.fail","node":"f10"}', '{"at":30,"type":"node.fail","node":"f30"}', ''].join('\n'),
    );
    const file = write(
      [
        // Inline node events need a cluster that has their nodes (the log's are checked as the run reads them).
        'cluster: { nodes: [{ name: i10, ip: 10.0.0.1 }, { name: i20, ip: 10.0.0.2 }], ipfailover: { virtualIps: 10.0.0.100 } }',
        'events:',
        '  file: logs/churn.jsonl',
        '  inline:',
        '    - { at: 10, type: node.recover, node: i10 }',
        '    - { at: 20, type: node.recover, node: i20 }',
      ].join('\n'),
    );
    const order = [...loadScenario(file).events()].map((e) => `${e.at}:${(e as { node: string }).node}`);
    expect(order).toEqual(['0:f0', '10:i10', '10:f10', '20:i20', '30:f30']);
  });

  test('a bare log path is read relative to the scenario file, lazily each call', () => {
    writeFileSync(join(dir, 'one.jsonl'), `${LOG_HEADER}\n{"at":5,"type":"network.heal"}\n`);
    const input = loadScenario(write('events: one.jsonl\n'));
    expect([...input.events()]).toEqual([{ at: 5, type: 'network.heal' }]);
    expect([...input.events()]).toEqual([{ at: 5, type: 'network.heal' }]);
  });

  test('generated events come after inline ones on ties and cluster nodes become fault targets', () => {
    const file = write(
      [
        'sim: { durationMs: 60000 }',
        'cluster:',
        '  nodes: [{ name: infra-1, ip: 198.18.0.11 }, { name: infra-2, ip: 198.18.0.12 }]',
        '  ipfailover: { virtualIps: 198.18.0.100 }',
        'events:',
        '  - { at: 0, type: network.heal }',
        'generate:',
        '  world: { services: 2, endpointsPerService: 1, workers: 1 }',
        '  faults: { schedule: [{ at: 0, type: node.fail, node: infra-2 }] }',
      ].join('\n'),
    );
    const events: InputEvent[] = [...loadScenario(file).events()];
    expect(events.map((e) => e.type)).toEqual(['network.heal', 'endpoints.set', 'endpoints.set', 'node.fail']);
  });
});

describe('bad scenario files: one clear error each', () => {
  test.each(BAD)('%s', (_what, yaml, line, column, field, message) => {
    const file = write(yaml);
    const err = errorOf(() => loadScenario(file));
    expect(err.file).toBe(file);
    expect({ line: err.line, column: err.column, field: err.field }).toEqual({ line, column, field });
    expect(err.message).toMatch(message);
    // The message alone locates the problem: file:line:col first.
    expect(err.message.startsWith(`${file}:${line}:${column}: `)).toBe(true);
  });

  test('a bad line inside the event log is reported against the log file and its line, when read', () => {
    writeFileSync(join(dir, 'bad.jsonl'), `${LOG_HEADER}\n{"at":1,"type":"network.heal"}\n{"at":2,"type":"nope"}\n`);
    const input = loadScenario(write('events: bad.jsonl\n'));
    const err = errorOf(() => [...input.events()]);
    expect(err.file).toBe(join(dir, 'bad.jsonl'));
    expect(err.line).toBe(3);
  });

  test('an event log without a v1 header is refused at load time', () => {
    writeFileSync(join(dir, 'noheader.jsonl'), '{"at":1,"type":"network.heal"}\n');
    const err = errorOf(() => loadScenario(write('events: noheader.jsonl\n')));
    expect(err.file).toBe(join(dir, 'noheader.jsonl'));
    expect(err.line).toBe(1);
  });

  test('a missing scenario file is an input error', () => {
    const err = errorOf(() => loadScenario(join(dir, 'absent.yaml')));
    expect(err.message).toMatch(/cannot read scenario file \(ENOENT\)/);
  });

  test('bytes that are not UTF-8 and an alias with no anchor are named at their line and column', () => {
    const latin1 = join(dir, 'latin1.yaml');
    writeFileSync(latin1, Buffer.concat([Buffer.from('name: caf'), Buffer.from([0xe9]), Buffer.from('\nsim: { durationMs: 1000 }\n')]));
    // "name: caf" is 9 bytes, so the é byte of Latin-1 is column 10.
    expect(errorOf(() => loadScenario(latin1)).message).toBe(`${latin1}:1:10: not UTF-8 text: byte 0xe9 (save the file as UTF-8)`);
    const alias = write('name: a\nsim: *nope\n');
    expect(errorOf(() => loadScenario(alias)).message).toMatch(new RegExp(`^${alias}:2:6: YAML: Unresolved alias`));
  });

  test('parseScenario names the given file', () => {
    expect(errorOf(() => parseScenario('seed: x\n', 'inline.yaml')).message).toMatch(/^inline\.yaml:1:7: field 'seed'/);
  });
});

describe('a scenario file with several mistakes: all of them at once', () => {
  test('three mistakes: each named at its file:line:col and key, in file order, one InputErrors', () => {
    const file = write(
      [
        'name: three', // line 1
        'seed: abc', // line 2: "seed: " is 6 characters, the value at column 7
        'router:', // line 3
        '  maxDynamicServer: 4', // line 4: the key at column 3
        'events:', // line 5
        '  - { at: 0, type: route.upsertt }', // line 6: "  - { at: 0, type: " is 19 characters, the type at 20
      ].join('\n'),
    );
    const err = errorOf(() => loadScenario(file));
    expect(err).toBeInstanceOf(InputErrors);
    expect((err as InputErrors).problems).toHaveLength(3);
    const lines = err.message.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(`${file}:2:7: field 'seed': expected number, got string "abc"`);
    expect(lines[1]).toMatch(new RegExp(`^${file}:4:3: field 'router.maxDynamicServer': unknown key 'maxDynamicServer' \\(did you mean 'maxDynamicServers'\\?\\)`));
    expect(lines[2]).toMatch(new RegExp(`^${file}:6:20: field 'events\\[0\\].type': unknown event type "route.upsertt"`));
    // The error's own fields are the first problem's, as a single InputError's would be.
    expect({ line: err.line, column: err.column, field: err.field }).toEqual({ line: 2, column: 7, field: 'seed' });
  });

  test('two bad events in a list and two unknown keys in one mapping are four problems', () => {
    const file = write(['events:', '  - { at: 0, type: route.delete, namespace: a }', '  - { at: 1, type: nope }', 'budget: {}', 'extra: 1'].join('\n'));
    const err = errorOf(() => loadScenario(file)) as InputErrors;
    // route.delete needs a name (line 2, the event's mapping at column 5); "  - { at: 1, type: " is 19
    // characters (line 3); then each top-level key at column 1.
    expect(err.problems.map((p) => [p.line, p.column, p.field])).toEqual([
      [2, 5, 'events[0].name'],
      [3, 20, 'events[1].type'],
      [4, 1, 'budget'],
      [5, 1, 'extra'],
    ]);
  });

  test('several YAML syntax errors are each located', () => {
    // A tab at the start of lines 2 and 4: YAML allows no tab in indentation.
    const file = write('name: x\n\tseed: 1\nevents: []\n\tsim: {}\n');
    const err = errorOf(() => loadScenario(file));
    const located = err.message.split('\n').map((l) => /^[^:]+:(\d+):(\d+): YAML: Tabs are not allowed/.exec(l)?.slice(1, 3).join(':'));
    expect(located.filter((x) => x !== undefined)).toEqual(['2:1', '4:1']);
  });

  test(`past ${MAX_REPORTED_PROBLEMS} problems, the first ${MAX_REPORTED_PROBLEMS} and how many more`, () => {
    // 25 unknown top-level keys k0..k24, one a line.
    const file = write(Array.from({ length: 25 }, (_, i) => `k${i}: 1`).join('\n') + '\nevents: []\n');
    const err = errorOf(() => loadScenario(file)) as InputErrors;
    expect(err.problems).toHaveLength(25);
    const lines = err.message.split('\n');
    expect(lines).toHaveLength(MAX_REPORTED_PROBLEMS + 1);
    expect(lines[MAX_REPORTED_PROBLEMS - 1]).toMatch(new RegExp(`^${file}:20:1: field 'k19': unknown key 'k19'`));
    expect(lines[MAX_REPORTED_PROBLEMS]).toBe(`${file}: and 5 more problems (the first ${MAX_REPORTED_PROBLEMS} are shown)`);
  });
});
