import { quantile } from '../reports/quantile.ts';
import { FAULT_KINDS, rfcBound, type Bound, type FaultKind, type MeasuredIncident, type SimulatedIncident } from './keepalived-fidelity.ts';

/**
 * The side-by-side table: real keepalived against the simulator, one row per (fault kind, VIP). Pure: rows
 * are data (verdicts are the test's), rendering is a separate step.
 */
export interface Spread {
  n: number;
  minMs: number;
  medianMs: number;
  maxMs: number;
}

export interface FidelityRow {
  kind: FaultKind;
  vip: string;
  newMaster: string;
  real: Spread;
  /** The simulator on the same faults, each in phase with its real counterpart. */
  sim: Spread;
  /** Largest |simulated − real| over the row's incident pairs. */
  maxAbsDiffMs: number;
  bound: Bound;
}

export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) return { n: 0, minMs: NaN, medianMs: NaN, maxMs: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, minMs: sorted[0]!, medianMs: quantile(sorted, 0.5)!, maxMs: sorted[sorted.length - 1]! };
}

/** Pairs real and simulated incidents by (kind, index, vip) and folds them into rows, in FAULT_KINDS order. */
export function fidelityRows(real: readonly MeasuredIncident[], sim: readonly SimulatedIncident[]): FidelityRow[] {
  const rows: FidelityRow[] = [];
  const simOf = new Map(sim.map((s) => [`${s.kind}/${s.index}/${s.vip}`, s]));
  for (const kind of FAULT_KINDS) {
    const vips = [...new Set(real.filter((r) => r.kind === kind).map((r) => r.vip))].sort();
    for (const vip of vips) {
      const pairs = real
        .filter((r) => r.kind === kind && r.vip === vip && r.latencyMs !== null)
        .map((r) => ({ r, s: simOf.get(`${kind}/${r.index}/${vip}`) }))
        .filter((p): p is { r: MeasuredIncident; s: SimulatedIncident } => p.s !== undefined && p.s.latencyMs !== null);
      if (pairs.length === 0) continue;
      const newMaster = pairs[0]!.r.newMaster!;
      rows.push({
        kind,
        vip,
        newMaster,
        real: spreadOf(pairs.map((p) => p.r.latencyMs!)),
        sim: spreadOf(pairs.map((p) => p.s.latencyMs!)),
        maxAbsDiffMs: Math.max(...pairs.map((p) => Math.abs(p.s.latencyMs! - p.r.latencyMs!))),
        bound: rfcBound(kind, vip, newMaster),
      });
    }
  }
  return rows;
}

const f = (ms: number): string => ms.toFixed(1);
const triple = (s: Spread): string => `${f(s.minMs)} / ${f(s.medianMs)} / ${f(s.maxMs)}`;
const boundText = (b: Bound): string => (b.loMs === b.hiMs ? `≈ ${f(b.loMs)}` : `(${f(b.loMs)}, ${f(b.hiMs)}]`);

const FAULT_LABEL: Record<FaultKind, string> = {
  crash: 'master crash (SIGKILL) — node.fail',
  'host-loss': 'master host loss (SIGKILL + link down) — node.fail',
  shutdown: 'graceful shutdown (SIGTERM) — node.shutdown',
  'router-fail': 'router check fails — router.fail',
  partition: 'silent partition of the master — network.partition',
};

export function renderFidelityTable(rows: readonly FidelityRow[]): string {
  const out = [
    '| fault | VIP → new master | n | real min / median / max (ms) | simulated, same phase: min / median / max (ms) | max \\|sim − real\\| (ms) | RFC bound (ms) |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const r of rows)
    out.push(
      `| ${FAULT_LABEL[r.kind]} | ${r.vip} → ${r.newMaster} | ${r.real.n} | ${triple(r.real)} | ${triple(r.sim)} | ${f(r.maxAbsDiffMs)} | ${boundText(r.bound)}: ${r.bound.formula} |`,
    );
  return out.join('\n') + '\n';
}
