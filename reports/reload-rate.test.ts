import { fc, test as fcTest } from '@fast-check/vitest';
import { expect, test } from 'vitest';
import type { OutputRecord } from '../sim/output/records.ts';
import { MAX_RATE_BUCKETS, perMinute, projectReloadRate, UNREQUESTED } from './reload-rate.ts';

const s = (sec: number) => sec * 1_000_000;
const end = (ms: number): OutputRecord => ({ atUs: ms * 1000, type: 'run.end', events: 0, simulatedMs: ms });

test('each reload counts under the first request it served; requests made during a reload go to the next', () => {
  const rate = projectReloadRate([
    { atUs: 0, type: 'reload.request', reason: 'initial' },
    { atUs: 0, type: 'reload.start', n: 1 },
    { atUs: s(1), type: 'input', event: 'route.upsert', subject: 'a/r' },
    { atUs: s(1), type: 'reload.request', reason: 'route-change' },
    { atUs: s(2), type: 'reload.request', reason: 'endpoints-change' },
    // Reload 2 serves both requests above: it counts once, as route-change (the one that set it waiting).
    { atUs: s(5), type: 'reload.start', n: 2 },
    { atUs: s(5.5), type: 'reload.request', reason: 'endpoints-change' },
    { atUs: s(6), type: 'reload.end', n: 2 },
    { atUs: s(70), type: 'reload.start', n: 3 },
    // No request before reload 4 (not made by the simulator, but a log may say so).
    { atUs: s(100), type: 'reload.start', n: 4 },
    end(120_000),
  ] as OutputRecord[]);
  // 120 s in 1-minute buckets: [0, 60) and [60, 120].
  expect(rate.bucketMs).toBe(60_000);
  expect(rate.byReason).toEqual([
    { reason: 'initial', counts: [1, 0] },
    { reason: 'route-change', counts: [1, 0] },
    { reason: 'endpoints-change', counts: [0, 1] },
    { reason: UNREQUESTED, counts: [0, 1] },
  ]);
  expect(rate.inputs).toEqual([1, 0]);
});

test('a saturated day: one reload every 5 s in buckets widened to fit, 12 reloads per minute throughout', () => {
  const records: OutputRecord[] = [];
  const dayMs = 86_400_000;
  for (let ms = 0, n = 1; ms < dayMs; ms += 5000, n++) {
    records.push({ atUs: ms * 1000, type: 'reload.request', reason: n % 2 === 0 ? 'route-change' : 'endpoints-change' });
    records.push({ atUs: ms * 1000, type: 'reload.start', n });
  }
  records.push(end(dayMs));
  const rate = projectReloadRate(records);
  // 1,440 minutes: 1-minute buckets double to 2, 4, 8 minutes, the first width giving at most 240 (180).
  expect(rate.bucketMs).toBe(8 * 60_000);
  expect(rate.inputs).toHaveLength(180);
  const [odd, even] = rate.byReason;
  expect(odd!.reason).toBe('endpoints-change');
  // 8 minutes hold 96 reloads, alternating reasons: 48 each, 6 per minute each.
  expect(new Set(odd!.counts)).toEqual(new Set([48]));
  expect(new Set(perMinute(even!.counts, rate.bucketMs, rate.simulatedMs))).toEqual(new Set([6]));
});

test('per minute: the last bucket runs to the end of the run, however short or long its remainder', () => {
  // 140 s in 1-minute buckets: 2.33 buckets round to 2, so the last covers 80 s (60 s to the end).
  const rate = projectReloadRate([
    { atUs: s(10), type: 'reload.start', n: 1 },
    { atUs: s(100), type: 'reload.start', n: 2 },
    { atUs: s(139), type: 'reload.start', n: 3 },
    end(140_000),
  ] as OutputRecord[]);
  expect(rate.byReason[0]!.counts).toEqual([1, 2]);
  // 2 reloads over 80 s: 2 · 60 / 80 = 1.5 per minute.
  expect(perMinute(rate.byReason[0]!.counts, rate.bucketMs, rate.simulatedMs)).toEqual([1, 1.5]);
});

fcTest.prop([fc.array(fc.tuple(fc.nat({ max: 40 * 86_400 }), fc.constantFrom('initial', 'route-change', 'pool-exhausted', null)), { maxLength: 400 })])(
  'bounded and conserving: every reload is counted once, in at most MAX_RATE_BUCKETS buckets',
  (events) => {
    const records: OutputRecord[] = [];
    let n = 0;
    for (const [sec, reason] of [...events].sort((a, b) => a[0] - b[0])) {
      if (reason === null) records.push({ atUs: s(sec), type: 'reload.start', n: ++n });
      else records.push({ atUs: s(sec), type: 'reload.request', reason });
    }
    const rate = projectReloadRate(records);
    expect(rate.inputs.length).toBeLessThanOrEqual(MAX_RATE_BUCKETS);
    let total = 0;
    for (const r of rate.byReason) {
      expect(r.counts).toHaveLength(rate.inputs.length);
      total += r.counts.reduce((a, b) => a + b, 0);
    }
    expect(total).toBe(n);
  },
);
