import { INPUT_EVENT_TYPES, isChurnEvent, type InputEvent, type InputEventType } from '../core/events.ts';
import { inputsCounted, type OutputRecord } from '../sim/output/records.ts';
import { createReloadRateProjection, type ReloadRate } from './reload-rate.ts';

/**
 * The timeline of a run for report.html: a bounded projection of the output log (a 10-million-event run
 * still yields a small page). Counts go into time buckets whose width doubles whenever there would be more
 * than MAX_BUCKETS; individual markers (faults, reloads) are kept up to a cap per kind and the rest
 * counted, so a day of back-to-back reloads cannot crowd out its faults.
 */
export interface TimelineMarker {
  atMs: number;
  kind: 'fault' | 'reload';
  label: string;
  /** Reloads: when the new HAProxy served (null if still reloading at the end). */
  endMs?: number | null;
}

/**
 * Who was live MASTER for a VIP from `fromMs` to `toMs`; several names means split brain, none no master.
 * A node that is not live (`vrrp.node` live false: stalled, failed) is no master even in MASTER state, as
 * report.json's failover figures count it (reports/failover.ts).
 */
export interface MasterSegment {
  fromMs: number;
  toMs: number;
  masters: string[];
}

export interface Timeline {
  simulatedMs: number;
  bucketMs: number;
  /** Per bucket: input events applied, reloads started, faults (the inputs FAULT_EVENTS lists). */
  inputsPerBucket: number[];
  reloadsPerBucket: number[];
  faultsPerBucket: number[];
  markers: TimelineMarker[];
  markersDropped: number;
  /** The first MAX_VIPS VIPs to change state; the number of further VIPs not shown. */
  vips: Array<{ vip: string; segments: MasterSegment[] }>;
  vipsDropped: number;
  /** Reloads per reason over time, in minute-based buckets (reports/reload-rate.ts). */
  reloadRate: ReloadRate;
}

export const MAX_BUCKETS = 240;
/** Markers kept per kind (faults, reloads). */
export const MAX_MARKERS = 2000;
export const MAX_VIPS = 24;
/** Every input that is no churn: a node's, a link's, keepalived's or the network's. */
const FAULT_EVENTS: ReadonlySet<InputEventType> = new Set(INPUT_EVENT_TYPES.filter((type) => !isChurnEvent({ type } as InputEvent)));

interface VipRow {
  masters: Set<string>;
  shown: string;
  segments: MasterSegment[];
  sinceMs: number;
}

class Buckets {
  widthMs = 1000;
  counts: number[] = [];
  add(atMs: number, n = 1): void {
    let i = Math.floor(atMs / this.widthMs);
    while (i >= MAX_BUCKETS) {
      const merged: number[] = [];
      for (let j = 0; j < this.counts.length; j += 2) merged.push((this.counts[j] ?? 0) + (this.counts[j + 1] ?? 0));
      this.counts = merged;
      this.widthMs *= 2;
      i = Math.floor(atMs / this.widthMs);
    }
    while (this.counts.length <= i) this.counts.push(0);
    this.counts[i]! += n;
  }
  /** Re-bucket to a given (larger or equal, power-of-two multiple) width. */
  at(widthMs: number, n: number): number[] {
    const f = widthMs / this.widthMs;
    const out = new Array<number>(n).fill(0);
    this.counts.forEach((c, i) => {
      const j = Math.floor(i / f);
      if (j < n) out[j]! += c;
    });
    return out;
  }
}

export function createTimelineProjection() {
  const inputs = new Buckets();
  const reloads = new Buckets();
  const faults = new Buckets();
  const rate = createReloadRateProjection();
  const markers: TimelineMarker[] = [];
  const kept = { fault: 0, reload: 0 };
  let markersDropped = 0;
  const openReloads = new Map<number, TimelineMarker>();
  /** Per VIP: the nodes in MASTER state, and the live ones among them (what the row shows, as a key). */
  const vips = new Map<string, VipRow>();
  const live = new Map<string, boolean>();
  const liveMasters = (v: VipRow): string => [...v.masters].filter((n) => live.get(n) ?? true).sort().join(',');
  /** Closes the segment shown so far when the live masters change. */
  const reshow = (v: VipRow, atMs: number): void => {
    const after = liveMasters(v);
    if (after === v.shown) return;
    if (atMs > v.sinceMs || v.segments.length === 0) v.segments.push({ fromMs: v.sinceMs, toMs: atMs, masters: v.shown === '' ? [] : v.shown.split(',') });
    v.shown = after;
    v.sinceMs = atMs;
  };
  const droppedVips = new Set<string>();
  let lastMs = 0;

  const mark = (m: TimelineMarker): void => {
    if (kept[m.kind] < MAX_MARKERS) {
      kept[m.kind]++;
      markers.push(m);
    } else markersDropped++;
  };

  return {
    add(r: OutputRecord): void {
      const atMs = r.atUs / 1000;
      lastMs = Math.max(lastMs, atMs);
      rate.add(r);
      switch (r.type) {
        case 'input.counts':
          // Counted per simulated second, and a bucket is a whole number of seconds: the same buckets.
          inputs.add(atMs, inputsCounted(r));
          break;
        case 'input':
          inputs.add(atMs);
          if (FAULT_EVENTS.has(r.event)) {
            faults.add(atMs);
            mark({ atMs, kind: 'fault', label: r.subject === '' ? r.event : `${r.event} ${r.subject}` });
          }
          break;
        case 'reload.start': {
          reloads.add(atMs);
          const m: TimelineMarker = { atMs, kind: 'reload', label: `reload #${r.n}`, endMs: null };
          openReloads.set(r.n, m);
          mark(m);
          break;
        }
        case 'reload.end': {
          const m = openReloads.get(r.n);
          if (m !== undefined) m.endMs = atMs;
          openReloads.delete(r.n);
          break;
        }
        case 'vrrp.state': {
          let v = vips.get(r.vip);
          if (v === undefined) {
            if (vips.size >= MAX_VIPS) {
              droppedVips.add(r.vip);
              return;
            }
            v = { masters: new Set(), shown: '', segments: [], sinceMs: 0 };
            vips.set(r.vip, v);
          }
          if (r.to === 'MASTER') v.masters.add(r.node);
          else if (r.from === 'MASTER') v.masters.delete(r.node);
          reshow(v, atMs);
          break;
        }
        case 'vrrp.node':
          // A stalled or failed node may still call itself MASTER: it holds nothing while it is not live.
          live.set(r.node, r.live);
          for (const v of vips.values()) if (v.masters.has(r.node)) reshow(v, atMs);
          break;
        case 'run.end':
          lastMs = Math.max(lastMs, r.simulatedMs);
          break;
        default:
          break;
      }
    },
    result(): Timeline {
      const simulatedMs = lastMs;
      const bucketMs = Math.max(inputs.widthMs, reloads.widthMs, faults.widthMs);
      const n = Math.floor(simulatedMs / bucketMs) + 1;
      return {
        simulatedMs,
        bucketMs,
        inputsPerBucket: inputs.at(bucketMs, n),
        reloadsPerBucket: reloads.at(bucketMs, n),
        faultsPerBucket: faults.at(bucketMs, n),
        markers,
        markersDropped,
        vips: [...vips.entries()].map(([vip, v]) => {
          const last: MasterSegment = { fromMs: v.sinceMs, toMs: simulatedMs, masters: v.shown === '' ? [] : v.shown.split(',') };
          return { vip, segments: [...v.segments.filter((s) => s.toMs > s.fromMs), last] };
        }),
        vipsDropped: droppedVips.size,
        reloadRate: rate.result(),
      };
    },
  };
}

export function projectTimeline(records: Iterable<OutputRecord>): Timeline {
  const p = createTimelineProjection();
  for (const r of records) p.add(r);
  return p.result();
}
