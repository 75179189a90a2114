import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderExplanations, type SettingsExplanation } from './explain-settings.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'routerbench.js');
const SCENARIO = join(import.meta.dirname, '..', '..', 'scenarios', 'route-burst.yaml');
const dir = mkdtempSync(join(tmpdir(), 'rb-explain-'));

function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The 1-based line of route-burst.yaml that reads `text` exactly. */
const lineOf = (text: string): number => readFileSync(SCENARIO, 'utf8').split('\n').indexOf(text) + 1;

describe('renderExplanations', () => {
  const one: SettingsExplanation = {
    scenario: 's',
    input: 's.yaml',
    settings: [
      { key: 'seed', value: 7, source: '--seed 7' },
      { key: 'router.blueprintNamespace', value: '', source: 'default' },
      { key: 'router.blueprints', value: [], source: 's.yaml:4' },
    ],
  };
  it('aligns key, value and source; an empty text shows as "" and anything not text as JSON', () => {
    expect(renderExplanations([one])).toBe(
      [
        'setting                    value  source',
        'seed                       7      --seed 7',
        'router.blueprintNamespace  ""     default',
        'router.blueprints          []     s.yaml:4',
        '',
      ].join('\n'),
    );
  });
  it('heads each table with its scenario and input when there are several', () => {
    const text = renderExplanations([one, { ...one, scenario: 't', input: 't.yaml' }]);
    expect(text.split('\n').filter((l) => l.endsWith('.yaml)'))).toEqual(['s (s.yaml)', 't (t.yaml)']);
  });
});

describe('--explain-settings', () => {
  const deployment = join(dir, 'deploy.yaml');
  writeFileSync(
    deployment,
    'kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: router\n          env:\n            - { name: ROUTER_MAX_DYNAMIC_SERVERS, value: "3" }\n',
  );

  it('run: each setting with its value and source, exit 0, nothing run or written', () => {
    const out = join(dir, 'not-written');
    const r = cli('run', SCENARIO, '--router-deployment', deployment, '--env', 'RELOAD_INTERVAL=10s', '--set', 'sim.settleMs=100', '--seed', '9', '--explain-settings', '--out', out);
    expect(r.code, r.err).toBe(0);
    const rows = new Map(r.out.trimEnd().split('\n').slice(1).map((l) => [l.split(/\s+/)[0]!, l.split(/\s{2,}/).slice(1)]));
    expect(rows.get('seed')).toEqual(['9', '--seed 9']);
    expect(rows.get('router.strategy')).toEqual(['dcm-slots', `${SCENARIO}:${lineOf('  strategy: dcm-slots')}`]);
    // The manifest's only env entry, `- { name: ROUTER_MAX_DYNAMIC_SERVERS, … }`, is its line 8.
    expect(rows.get('router.maxDynamicServers')).toEqual(['3', `--router-deployment ${deployment}:8 ROUTER_MAX_DYNAMIC_SERVERS=3`]);
    expect(rows.get('router.reloadIntervalMs')).toEqual(['10000', '--env RELOAD_INTERVAL=10s']);
    expect(rows.get('router.blueprintPoolSize')).toEqual(['12', `${SCENARIO}:${lineOf('  blueprintPoolSize: 12')}`]);
    expect(rows.get('sim.settleMs')).toEqual(['100', '--set sim.settleMs=100']);
    expect(rows.get('router.commitIntervalMs')).toEqual(['3600000', 'default']);
    // seed, 13 router settings, 2 sim (durationMs unset is not listed), 4 haproxy rates.
    expect(rows.size).toBe(20);
    expect(readdirSync(dir)).not.toContain('not-written');
  }, 60_000);

  it('run --json: the same as JSON', () => {
    const r = cli('run', SCENARIO, '--explain-settings', '--json');
    expect(r.code, r.err).toBe(0);
    // A list even for one input: the same shape as for several.
    const [e, ...others] = JSON.parse(r.out) as SettingsExplanation[];
    expect(others).toEqual([]);
    expect(e!.scenario).toBe('route-burst');
    expect(e!.settings.find((s) => s.key === 'router.maxDynamicServers')).toEqual({ key: 'router.maxDynamicServers', value: 2, source: `${SCENARIO}:${lineOf('  maxDynamicServers: 2')}` });
  }, 60_000);

  it('sweep: a swept key shows the grid values and the grid as its source; compare: the strategy from --strategies', () => {
    const s = cli('sweep', SCENARIO, '--grid', 'router.maxDynamicServers=1..3', '--seeds', '2', '--explain-settings', '--json');
    expect(s.code, s.err).toBe(0);
    const [sweep] = JSON.parse(s.out) as SettingsExplanation[];
    expect(sweep!.settings.filter((x) => x.key === 'seed' || x.key === 'router.maxDynamicServers')).toEqual([
      // route-burst's seed is 1: the seeds are 1 and 2.
      { key: 'seed', value: [1, 2], source: '--seeds 2' },
      { key: 'router.maxDynamicServers', value: [1, 2, 3], source: '--grid router.maxDynamicServers' },
    ]);
    const c = cli('compare', SCENARIO, '--strategies', 'reload-always,dcm-slots', '--explain-settings', '--json');
    expect(c.code, c.err).toBe(0);
    const compare = JSON.parse(c.out) as SettingsExplanation[];
    expect(compare.map((e) => [e.scenario, e.settings.find((x) => x.key === 'router.strategy')?.source])).toEqual([
      ['route-burst under reload-always', '--strategies reload-always,dcm-slots'],
      ['route-burst under dcm-slots', '--strategies reload-always,dcm-slots'],
    ]);
  }, 60_000);
});
