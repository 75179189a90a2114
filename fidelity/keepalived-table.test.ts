import { describe, expect, test } from 'vitest';
import type { MeasuredIncident, SimulatedIncident } from './keepalived-fidelity.ts';
import { fidelityRows, renderFidelityTable, spreadOf } from './keepalived-table.ts';

const real = (kind: MeasuredIncident['kind'], index: number, vip: string, latencyMs: number, newMaster = 'infra-2'): MeasuredIncident => ({
  kind,
  index,
  vip,
  oldMaster: 'infra-1',
  newMaster,
  latencyMs,
  sinceAcquiredMs: 0,
  sinceAdvertMs: 0,
  altSinceAdvertMs: null,
  zeroAdvertMs: null,
  resignMs: null,
});
const sim = (kind: SimulatedIncident['kind'], index: number, vip: string, latencyMs: number): SimulatedIncident => ({ kind, index, vip, newMaster: 'infra-2', latencyMs });

describe('fidelity table', () => {
  test('spread: nearest-rank median, NaN when empty', () => {
    expect(spreadOf([3, 1, 2, 10])).toEqual({ n: 4, minMs: 1, medianMs: 2, maxMs: 10 });
    expect(spreadOf([]).n).toBe(0);
  });

  test('pairs by kind, index and VIP; rows in fault order; the largest pair difference', () => {
    const rows = fidelityRows(
      [real('shutdown', 0, '198.18.0.100', 612.5), real('crash', 0, '198.18.0.100', 3400), real('crash', 1, '198.18.0.100', 3100)],
      [sim('crash', 1, '198.18.0.100', 3096), sim('crash', 0, '198.18.0.100', 3407), sim('shutdown', 0, '198.18.0.100', 609.5)],
    );
    expect(rows.map((r) => [r.kind, r.real.n, r.maxAbsDiffMs])).toEqual([
      ['crash', 2, 7],
      ['shutdown', 1, 3],
    ]);
    expect(rows[0]!.bound).toMatchObject({ loMs: 2609.375, hiMs: 3609.375 });
    const md = renderFidelityTable(rows);
    expect(md.split('\n')[2]).toBe(
      '| master crash (SIGKILL) — node.fail | 198.18.0.100 → infra-2 | 2 | 3100.0 / 3100.0 / 3400.0 | 3096.0 / 3096.0 / 3407.0 | 7.0 | (2609.4, 3609.4]: (2A+S, 3A+S], S = 609.4 ms |',
    );
  });
});
