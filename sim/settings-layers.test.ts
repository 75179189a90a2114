import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test as prop } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import { STRATEGY_NAMES } from '../core/strategy.ts';
import { buildOverrides } from './cli/run-command.ts';
import { fieldName } from './eventlog/field-name.ts';
import { loadRunInput } from './load-input.ts';
import { coerceSettingValue, SettingsSchema, type Settings } from './settings.ts';
import { assignmentsOf, layerSettings, settingKeys, type LayerError, type SettingsLayer } from './settings-layers.ts';
import { inputErrorOf } from './testing/input-error-of.ts';

const dir = mkdtempSync(join(tmpdir(), 'rb-settings-layers-'));
const write = (name: string, text: string): string => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

// Line numbers below are those of this text: line 1 is `name: layers`.
const SCENARIO = write(
  'layers.yaml',
  [
    'name: layers', //                    1
    'seed: 4', //                         2
    'router:', //                         3
    '  strategy: dcm-slots', //           4
    '  maxDynamicServers: 2', //          5
    '  blueprintPoolSize: 3', //          6
    '  reloadIntervalMs: 7000', //        7
    'sim:', //                            8
    '  settleMs: 1000', //                9
    'events: []', //                      10
    '',
  ].join('\n'),
);

const DEPLOYMENT = write(
  'deploy.yaml',
  [
    'apiVersion: apps/v1', //                       1
    'kind: Deployment', //                          2
    'spec:', //                                     3
    '  template:', //                               4
    '    spec:', //                                 5
    '      containers:', //                         6
    '      - name: router', //                      7
    '        env:', //                              8
    '        - name: ROUTER_MAX_DYNAMIC_SERVERS', // 9
    '          value: "3"', //                      10
    '        - name: ROUTER_BLUEPRINT_ROUTE_POOL_SIZE', // 11
    '          value: "4"', //                      12
    '        - name: RELOAD_INTERVAL', //           13
    '          value: 6s', //                       14
    '',
  ].join('\n'),
);

describe('settings precedence: defaults < scenario < --router-deployment < --env < --set < --seed', () => {
  // The same key, router.maxDynamicServers, given by one more layer each step: the top one wins and is named.
  const steps: Array<[string, Parameters<typeof buildOverrides>[0], number, string]> = [
    ['the scenario file', {}, 2, `${SCENARIO}:5`],
    ['--router-deployment over the file', { routerDeployment: DEPLOYMENT }, 3, `--router-deployment ${DEPLOYMENT}:9 ROUTER_MAX_DYNAMIC_SERVERS=3`],
    ['--env over the deployment', { routerDeployment: DEPLOYMENT, env: ['ROUTER_MAX_DYNAMIC_SERVERS=8'] }, 8, '--env ROUTER_MAX_DYNAMIC_SERVERS=8'],
    [
      '--set over --env',
      { routerDeployment: DEPLOYMENT, env: ['ROUTER_MAX_DYNAMIC_SERVERS=8'], set: { 'router.maxDynamicServers': '9' } },
      9,
      '--set router.maxDynamicServers=9',
    ],
  ];
  test.each(steps)('%s', (_, opts, value, source) => {
    const input = loadRunInput(SCENARIO, buildOverrides(opts));
    expect(input.settings.router.maxDynamicServers).toBe(value);
    expect(input.settingSources?.['router.maxDynamicServers']).toBe(source);
  });

  test('every layer at once: each key named by the layer that gave it last', () => {
    const input = loadRunInput(
      SCENARIO,
      buildOverrides({
        routerDeployment: DEPLOYMENT,
        env: ['ROUTER_BLUEPRINT_ROUTE_POOL_SIZE=5', 'ROUTER_MAX_DYNAMIC_SERVERS=8'],
        set: { 'router.maxDynamicServers': '9', seed: '10' },
        seed: 11,
      }),
    );
    expect(input.settingSources).toEqual({
      seed: '--seed 11', // over --set seed=10 and the file's seed: 4
      'router.strategy': `${SCENARIO}:4`,
      'router.maxDynamicServers': '--set router.maxDynamicServers=9',
      'router.blueprintPoolSize': '--env ROUTER_BLUEPRINT_ROUTE_POOL_SIZE=5', // over the deployment's 4 and the file's 3
      'router.reloadIntervalMs': `--router-deployment ${DEPLOYMENT}:13 RELOAD_INTERVAL=6s`, // over the file's 7000
      'router.commitIntervalMs': 'default',
      'router.reloadDurationMs': 'default',
      'router.blueprintNamespace': 'default',
      'router.blueprints': 'default',
      'router.allowWildcardRoutes': 'default',
      'router.deniedDomains': 'default',
      'router.allowedDomains': 'default',
      'router.disableNamespaceOwnershipCheck': 'default',
      'router.validateEndpointAddresses': 'default',
      'sim.settleMs': `${SCENARIO}:9`,
      'sim.invariants': 'default',
      'haproxy.refusedRate': 'default',
      'haproxy.resetRate': 'default',
      'haproxy.restartRate': 'default',
      'haproxy.slowRate': 'default',
    });
    const s = input.settings;
    expect([s.seed, s.router.maxDynamicServers, s.router.blueprintPoolSize, s.router.reloadIntervalMs, s.sim.settleMs]).toEqual([11, 9, 5, 6000, 1000]);
  });

  test("an event log header's settings and seed are line 1 of the log; sim.durationMs appears once given", () => {
    const log = write('header.jsonl', `${JSON.stringify({ routerbench: 'eventlog', version: 1, seed: 3, settings: { router: { maxDynamicServers: 6 }, sim: { durationMs: 500 } } })}\n`);
    const input = loadRunInput(log, { set: { 'router.blueprintPoolSize': '1' } });
    expect(input.settingSources).toMatchObject({
      seed: `${log}:1`,
      'router.maxDynamicServers': `${log}:1`,
      'router.blueprintPoolSize': '--set router.blueprintPoolSize=1',
      'sim.durationMs': `${log}:1`,
    });
    expect(Object.keys(input.settingSources!)).toEqual(settingKeys());
    expect(Object.hasOwn(loadRunInput(SCENARIO).settingSources!, 'sim.durationMs')).toBe(false);
  });

  test('a group replaced by a value and then one of its keys set gets the group back, as --set always did', () => {
    const input = loadRunInput(SCENARIO, { set: { router: 'x', 'router.maxDynamicServers': '3' } });
    // The scenario's router keys went with the group; the rest are defaults again.
    expect([input.settings.router.strategy, input.settings.router.maxDynamicServers]).toEqual(['reload-always', 3]);
    expect(input.settingSources?.['router.strategy']).toBe('--set router=x');
    expect(input.settingSources?.['router.maxDynamicServers']).toBe('--set router.maxDynamicServers=3');
    const err = inputErrorOf(() => loadRunInput(SCENARIO, { set: { router: 'x' } }));
    expect({ file: err.file, field: err.field }).toEqual({ file: '--set', field: 'router' });
  });

  test('a scenario value the command line makes invalid in combination blames the flag', () => {
    const rates = write('rates.yaml', 'haproxy:\n  refusedRate: 0.7\nevents: []\n');
    const err = inputErrorOf(() => loadRunInput(rates, buildOverrides({ env: [], set: { 'haproxy.resetRate': '0.5' } })));
    expect({ file: err.file, field: err.field }).toEqual({ file: '--set', field: 'haproxy' });
  });
});

/**
 * The merge as it was before layers (sim/settings.ts resolveSettings at commit f3d3fb2): a base object,
 * dotted overrides set into a copy of it, the seed on top, validated as a whole. Kept as the oracle.
 */
function mergeBeforeLayers(base: Record<string, unknown>, set: Record<string, unknown>, seed: number | undefined): Settings | { error: string } {
  const raw = structuredClone(base);
  for (const [key, value] of Object.entries(set)) {
    const parts = key.split('.');
    let o = raw;
    for (const p of parts.slice(0, -1)) {
      const next = o[p];
      if (next === undefined || next === null || typeof next !== 'object') o[p] = {};
      o = o[p] as Record<string, unknown>;
    }
    o[parts[parts.length - 1]!] = coerceSettingValue(value);
  }
  if (seed !== undefined) raw['seed'] = seed;
  const parsed = SettingsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  return { error: issue.code === 'unrecognized_keys' ? fieldName([...issue.path, issue.keys[0]!]) : fieldName(issue.path) };
}

// Mostly valid values, with the odd bad one (0 slots, rates adding past 1, an unknown key) so failures are compared too.
const routerValues = fc.record(
  {
    strategy: fc.constantFrom(...STRATEGY_NAMES),
    maxDynamicServers: fc.integer({ min: 0, max: 1000 }),
    blueprintPoolSize: fc.integer({ min: 0, max: 1000 }),
    reloadIntervalMs: fc.integer({ min: 0, max: 10_000_000 }),
    blueprintNamespace: fc.stringMatching(/^[a-z]{0,6}$/),
    allowWildcardRoutes: fc.boolean(),
    disableNamespaceOwnershipCheck: fc.boolean(),
    validateEndpointAddresses: fc.boolean(),
    deniedDomains: fc.constantFrom('internal.example.com', 'a.com,b.com', ' , '),
  },
  { requiredKeys: [] },
);
const simValues = fc.record({ settleMs: fc.integer({ min: 0, max: 100_000 }), invariants: fc.constantFrom('settled', 'end', 'off') }, { requiredKeys: [] });
const haproxyValues = fc.record({ refusedRate: fc.double({ min: 0, max: 0.6, noNaN: true }), slowRate: fc.double({ min: 0, max: 0.6, noNaN: true }) }, { requiredKeys: [] });
const fileSettings = fc.record({ seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }), router: routerValues, sim: simValues, haproxy: haproxyValues }, { requiredKeys: [] });

/** A layer as the command line gives one: dotted keys → values; one in ten has a misspelt key. */
const dotted = fc.tuple(fileSettings, fc.integer({ min: 0, max: 9 })).map(([s, typo]) => {
  const out: Record<string, unknown> = {};
  for (const [group, v] of Object.entries(s)) {
    if (typeof v === 'object') for (const [k, x] of Object.entries(v)) out[`${group}.${k}`] = x;
    else out[group] = v;
  }
  if (typo === 0) out['router.maxDynamicServer'] = 3;
  return out;
});

describe('layers as immer patches', () => {
  prop.prop([fileSettings, fc.array(dotted, { maxLength: 4 }), fc.option(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { nil: undefined })])(
    "applying the layers' patches in order gives the old merge's settings (or fails on the same field), and names the last layer of each key",
    (file, cli, seed) => {
      const layers: SettingsLayer[] = [
        { origin: 'file', assignments: assignmentsOf(file, () => 'file') },
        ...cli.map((set, i) => ({ origin: `layer ${i}`, assignments: Object.entries(set).map(([key, value]) => ({ key, value, source: `layer ${i}` })) })),
      ];
      if (seed !== undefined) layers.push({ origin: '--seed', assignments: [{ key: 'seed', value: seed, source: '--seed' }] });
      const expected = mergeBeforeLayers(file, Object.assign({}, ...cli), seed);
      let failed: LayerError | undefined;
      let got: ReturnType<typeof layerSettings> | undefined;
      try {
        got = layerSettings(layers, (e) => {
          failed = e;
          throw new Error(e.message);
        });
      } catch {
        // failed holds why
      }
      if ('error' in expected) {
        // Both fail. Unknown keys are refused before any value is checked; otherwise the same field is named.
        const typo = cli.some((set) => Object.hasOwn(set, 'router.maxDynamicServer'));
        expect(failed?.field).toBe(typo ? 'router.maxDynamicServer' : expected.error);
        return;
      }
      expect(failed).toBeUndefined();
      expect(got!.settings).toEqual(expected);
      for (const key of settingKeys()) {
        if (!Object.hasOwn(got!.sources, key)) continue;
        const last = layers.findLast((l) => l.assignments.some((a) => a.key === key));
        expect(got!.sources[key], key).toBe(last === undefined ? 'default' : last.assignments[0]!.source);
      }
    },
  );
});
