import { describe, expect, it } from 'vitest';
import { ClusterSchema } from '../cluster/cluster-schema.ts';
import type { OutputRecord } from '../output/records.ts';
import type { RunInput } from '../run-input.ts';
import { defaultSettings } from '../settings.ts';
import { livenessBoundMs } from './liveness-bound.ts';
import { PropertyMonitor } from './properties.ts';

// Two nodes, one VIP, VRRPv2 at 1 s, links 0.2 ms + up to 0.1 ms jitter (the schema's defaults).
const cluster = ClusterSchema.parse({
  nodes: [
    { name: 'a', ip: '198.18.0.11' },
    { name: 'b', ip: '198.18.0.12' },
  ],
  keepalived: { instances: [{ vip: '198.18.0.100', vrid: 51, priorities: { a: 150, b: 100 } }] },
});
const settings = defaultSettings();
settings.router.commitIntervalMs = 10_000;
const input: RunInput = { name: 't', source: 't', settings, budgets: [], events: () => [], reproduce: '', cluster };
// vip-split-brain's bound, reports/failover-windows.ts settle: one advert interval A plus the longest link,
// 1 000 000 + 200 + 100 µs.
const SPLIT_US = 1_000_300;
// vip-no-master's bound, the fault window: net + Master_Down_Interval at priority 1 (the largest skew):
// 300 + 3 · 1 000 000 + floor(255 · 10^6 / 256) = 300 + 3 000 000 + 996 093 µs.
const ORPHAN_US = 3_996_393;
// The liveness bound: the router's, its commit reload commitIntervalMs + reloadIntervalMs + reloadDurationMs
// (10 000 + 5000 + 1000 ms) + 30 000 ms of runtime work in flight = 46 s, and keepalived's recovery window
// (2 · MDI + net, no checks, no preempt delay, plus settle: about 9 s) are both under the 60 s floor.
const LIVENESS_US = 60_000_000;

const state = (atUs: number, node: string, from: string, to: string): OutputRecord => ({ atUs, type: 'vrrp.state', node, vrid: 51, vip: '198.18.0.100', from, to, priority: 100 }) as OutputRecord;
const input$ = (atUs: number, event: string, subject = ''): OutputRecord => ({ atUs, type: 'input', event, subject }) as OutputRecord;
const end = (atUs: number): OutputRecord => ({ atUs, type: 'run.end', events: 0, simulatedMs: atUs / 1000 });
const elected: OutputRecord[] = [state(0, 'a', 'INIT', 'BACKUP'), state(0, 'b', 'INIT', 'BACKUP'), state(3_000_000, 'a', 'BACKUP', 'MASTER')];

function judge(records: OutputRecord[]): Array<[string, number]> {
  const m = new PropertyMonitor(input);
  for (const r of records) m.add(r);
  return m.result().map((v) => [v.property, v.atMs]);
}

describe('PropertyMonitor', () => {
  it('states its bounds as derived', () => {
    expect(livenessBoundMs(input) * 1000).toBe(LIVENESS_US);
  });

  it('vip-split-brain: two masters for the bound pass, a microsecond more fails', () => {
    const t = 10_000_000;
    expect(judge([...elected, state(t, 'b', 'BACKUP', 'MASTER'), state(t + SPLIT_US, 'b', 'MASTER', 'BACKUP'), end(t + 80_000_000)])).toEqual([]);
    expect(judge([...elected, state(t, 'b', 'BACKUP', 'MASTER'), state(t + SPLIT_US + 1, 'b', 'MASTER', 'BACKUP'), end(t + 80_000_000)])).toEqual([['vip-split-brain', (t + SPLIT_US) / 1000]]);
  });

  it('vip-split-brain: a partition allows two masters; the bound runs from the heal', () => {
    const t = 10_000_000;
    const heal = t + 30_000_000;
    const base = [...elected, input$(t, 'network.partition', 'a|b'), state(t + ORPHAN_US, 'b', 'BACKUP', 'MASTER'), input$(heal, 'network.heal')];
    expect(judge([...base, state(heal + SPLIT_US, 'b', 'MASTER', 'BACKUP'), end(heal + 80_000_000)])).toEqual([]);
    expect(judge([...base, state(heal + SPLIT_US + 1, 'b', 'MASTER', 'BACKUP'), end(heal + 80_000_000)])).toEqual([['vip-split-brain', (heal + SPLIT_US) / 1000]]);
  });

  it('vip-no-master: a live BACKUP must take over within the fault window', () => {
    const t = 10_000_000;
    // As the cluster simulation records a hard failure and a recovery (the master leaves MASTER for INIT).
    const fail: OutputRecord[] = [input$(t, 'node.fail', 'a'), state(t, 'a', 'MASTER', 'INIT'), { atUs: t, type: 'vrrp.node', node: 'a', live: false, cause: 'node.fail' }];
    const r = t + 20_000_000;
    const recover: OutputRecord[] = [input$(r, 'node.recover', 'a'), { atUs: r, type: 'vrrp.node', node: 'a', live: true, cause: 'node.recover' }, state(r, 'a', 'INIT', 'BACKUP')];
    expect(judge([...elected, ...fail, state(t + ORPHAN_US, 'b', 'BACKUP', 'MASTER'), ...recover, end(t + 90_000_000)])).toEqual([]);
    expect(judge([...elected, ...fail, state(t + ORPHAN_US + 1, 'b', 'BACKUP', 'MASTER'), ...recover, end(t + 90_000_000)])).toEqual([['vip-no-master', (t + ORPHAN_US) / 1000]]);
  });

  it('vip-no-master: a backup that reloads its keepalived starts its window again, and a crashed keepalived is a standing fault', () => {
    const t = 10_000_000;
    const fail: OutputRecord[] = [input$(t, 'node.fail', 'a'), state(t, 'a', 'MASTER', 'INIT'), { atUs: t, type: 'vrrp.node', node: 'a', live: false, cause: 'node.fail' }];
    // b reloads 2 s into the orphan time: keepalived restarts its down timer, so its window runs from the reload.
    const reload = t + 2_000_000;
    const takeover = (atUs: number): OutputRecord[] => [...elected, ...fail, input$(reload, 'keepalived.reload', 'b'), state(atUs, 'b', 'BACKUP', 'MASTER'), end(atUs + 1)];
    expect(judge(takeover(reload + ORPHAN_US))).toEqual([]);
    expect(judge(takeover(reload + ORPHAN_US + 1))).toEqual([['vip-no-master', (reload + ORPHAN_US) / 1000]]);
    // A reload of another node changes nothing: b's window still runs from the failure.
    const other: OutputRecord[] = [...elected, ...fail, input$(reload, 'keepalived.reload', 'c'), state(t + ORPHAN_US + 1, 'b', 'BACKUP', 'MASTER'), end(t + ORPHAN_US + 2)];
    expect(judge(other)).toEqual([['vip-no-master', (t + ORPHAN_US) / 1000]]);
    // A router that had not settled at the end, while a's keepalived crashed and never restarted: not judged.
    const stuck: OutputRecord = { atUs: 0, type: 'warning', message: 'the router had not settled when the run ended; the final invariant check was skipped' };
    expect(judge([...elected, input$(t, 'keepalived.crash', 'a'), stuck, end(t + 2 * LIVENESS_US)])).toEqual([]);
    // Restarted: judged a whole liveness phase after the restart.
    const restarted = [...elected, input$(t, 'keepalived.crash', 'a'), input$(t + 1_000_000, 'keepalived.restart', 'a'), stuck];
    expect(judge([...restarted, end(t + 1_000_000 + LIVENESS_US)])).toEqual([['router-converges', (t + 1_000_000 + LIVENESS_US) / 1000]]);
  });

  it('vip-no-master: no violation when no live node is BACKUP (every node down)', () => {
    const t = 10_000_000;
    const down = (n: string): OutputRecord[] => [input$(t, 'node.fail', n), { atUs: t, type: 'vrrp.node', node: n, live: false, cause: 'node.fail' }];
    expect(judge([...elected, ...down('a'), ...down('b'), end(t + 90_000_000)])).toEqual([]);
  });

  it('vip-one-master and router-converges: judged only a whole liveness phase after every fault healed', () => {
    const t = 10_000_000;
    const stuck: OutputRecord = { atUs: 0, type: 'warning', message: 'the router had not settled when the run ended; the final invariant check was skipped' };
    const twoMasters = [...elected, state(t, 'b', 'BACKUP', 'MASTER')];
    // Split brain past its bound is a safety violation as well; liveness adds its own at the end.
    expect(judge([...twoMasters, input$(t, 'route.upsert', 'x/y'), stuck, end(t + LIVENESS_US)])).toEqual([
      ['vip-split-brain', (t + SPLIT_US) / 1000],
      ['router-converges', (t + LIVENESS_US) / 1000],
      ['vip-one-master', (t + LIVENESS_US) / 1000],
    ]);
    // One microsecond short of the bound: not judged.
    expect(judge([...twoMasters, input$(t, 'route.upsert', 'x/y'), stuck, end(t + LIVENESS_US - 1)]).map(([p]) => p)).toEqual(['vip-split-brain']);
    // A fault never healed: not judged either.
    expect(judge([...twoMasters, input$(t, 'router.fail', 'a'), stuck, end(t + 2 * LIVENESS_US)]).map(([p]) => p)).toEqual(['vip-split-brain']);
  });

  it('haproxy-view: the first settled check with violations', () => {
    const check = (atUs: number, violations: string[]): OutputRecord => ({ atUs, type: 'invariant', name: 'haproxy-view', violations });
    expect(judge([check(1000, []), check(2000, ['r serves [] expected [x]']), check(3000, ['again']), end(4000)])).toEqual([['haproxy-view', 2]]);
  });
});
