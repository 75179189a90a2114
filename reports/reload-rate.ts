import { inputsCounted, type OutputRecord } from '../sim/output/records.ts';

/**
 * Reloads over time by why they happened, for report.html's reload-rate chart: a bounded fold over the
 * output log. Each reload counts once, under the reason of the first request it served: the first
 * `reload.request` since the previous `reload.start`, the request that set the router waiting (later ones
 * made before it starts fold into it, as report.json's `reloads.requests` counts them apart). Requests made
 * while a reload runs are served by the next one, so they belong to it. A reload with no request before it
 * (none in a well-formed log) counts under UNREQUESTED. Input events are counted in the same buckets, so
 * the chart can set the load beside the reloads.
 */
export interface ReloadRate {
  /** Bucket width: one minute, doubled until the run fits in MAX_RATE_BUCKETS. */
  bucketMs: number;
  /** How long the run was: the last bucket runs to this end (from half to one and a half buckets). */
  simulatedMs: number;
  /** Reloads started per bucket, by the reason of the first request each served; reasons in order of first reload. */
  byReason: Array<{ reason: string; counts: number[] }>;
  /** Input events applied per bucket. */
  inputs: number[];
}

export const RATE_BUCKET_MS = 60_000;
export const MAX_RATE_BUCKETS = 240;
export const UNREQUESTED = 'no request recorded';

export function createReloadRateProjection() {
  let widthMs = RATE_BUCKET_MS;
  const byReason = new Map<string, number[]>();
  const inputs: number[] = [];
  let pending: string | null = null;
  let lastMs = 0;

  /** Halves every series' resolution (pairs of buckets merged) until index i fits. */
  const indexOf = (atMs: number): number => {
    let i = Math.floor(atMs / widthMs);
    while (i >= MAX_RATE_BUCKETS) {
      widthMs *= 2;
      for (const counts of [inputs, ...byReason.values()]) halve(counts);
      i = Math.floor(atMs / widthMs);
    }
    return i;
  };
  const bump = (counts: number[], i: number, n = 1): void => {
    while (counts.length <= i) counts.push(0);
    counts[i]! += n;
  };

  return {
    add(r: OutputRecord): void {
      const atMs = r.atUs / 1000;
      lastMs = Math.max(lastMs, atMs);
      switch (r.type) {
        case 'input':
          bump(inputs, indexOf(atMs));
          break;
        case 'input.counts':
          bump(inputs, indexOf(atMs), inputsCounted(r));
          break;
        case 'reload.request':
          pending ??= r.reason;
          break;
        case 'reload.start': {
          const reason = pending ?? UNREQUESTED;
          pending = null;
          let counts = byReason.get(reason);
          if (counts === undefined) byReason.set(reason, (counts = []));
          bump(counts, indexOf(atMs));
          break;
        }
        case 'run.end':
          lastMs = Math.max(lastMs, r.simulatedMs);
          break;
        default:
          break;
      }
    },
    result(): ReloadRate {
      indexOf(lastMs); // the end may lie past every counted record: widen for it too
      // A remainder under half a bucket joins the last whole one, so no sliver of a bucket shows a spike.
      const n = Math.max(1, Math.round(lastMs / widthMs));
      const fit = (counts: number[]): number[] => {
        const out = new Array<number>(n).fill(0);
        counts.forEach((c, i) => (out[Math.min(i, n - 1)]! += c));
        return out;
      };
      return {
        bucketMs: widthMs,
        simulatedMs: lastMs,
        byReason: [...byReason.entries()].map(([reason, counts]) => ({ reason, counts: fit(counts) })),
        inputs: fit(inputs),
      };
    },
  };
}

function halve(counts: number[]): void {
  const merged: number[] = [];
  for (let j = 0; j < counts.length; j += 2) merged.push((counts[j] ?? 0) + (counts[j + 1] ?? 0));
  counts.length = 0;
  counts.push(...merged);
}

/** Per bucket, the events per minute over the time the bucket covers (the last one to the end of the run). */
export function perMinute(counts: readonly number[], bucketMs: number, simulatedMs: number): number[] {
  return counts.map((c, i) => {
    const coveredMs = i === counts.length - 1 ? simulatedMs - i * bucketMs : bucketMs;
    return coveredMs > 0 ? Math.round(((c * 60_000) / coveredMs) * 1000) / 1000 : c;
  });
}

export function projectReloadRate(records: Iterable<OutputRecord>): ReloadRate {
  const p = createReloadRateProjection();
  for (const r of records) p.add(r);
  return p.result();
}
