import type { ReloadReason } from '../core/reload-reason.ts';
import type { OutputRecord } from '../sim/output/records.ts';
import type { Report } from './report.ts';

const MS_PER_HOUR = 3_600_000;

/** Counts reloads run and reload requests by reason. */
export function createReloadsProjection() {
  let total = 0;
  const requests: Record<string, number> = {};
  return {
    add(r: OutputRecord): void {
      if (r.type === 'reload.start') total++;
      else if (r.type === 'reload.request') requests[r.reason] = (requests[r.reason] ?? 0) + 1;
      // The compact log's folded requests: the same count as one line each.
      else if (r.type === 'reload.counts') for (const reason in r.requests) requests[reason] = (requests[reason] ?? 0) + r.requests[reason as ReloadReason]!;
    },
    result(simulatedMs: number): Report['reloads'] {
      const sorted: Record<string, number> = {};
      for (const k of Object.keys(requests).sort()) sorted[k] = requests[k]!;
      const perHour = simulatedMs > 0 ? round3((total * MS_PER_HOUR) / simulatedMs) : 0;
      return { total, requests: sorted, perHour };
    },
  };
}

export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
