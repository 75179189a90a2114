import { readdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSize, loadRunInput, progressLabel, sizeOf } from '../load-input.ts';
import { inputErrorOf } from '../testing/input-error-of.ts';
import { loadScenario } from './load-scenario.ts';
import { estimateSize, overLimit, SIZE_LIMITS } from './size-estimate.ts';

const dir = mkdtempSync(join(tmpdir(), 'rb-size-'));
let n = 0;
const scenario = (yaml: string): string => {
  const file = join(dir, `s${n++}.yaml`);
  writeFileSync(file, yaml);
  return file;
};
const HOUR = 3_600_000;

describe('the size estimate', () => {
  it('refuses knobs each within its cap whose product is not: a million services of ten thousand pods', () => {
    const file = scenario(`name: big\ngenerate:\n  durationMs: ${HOUR}\n  world: { services: 1000000, endpointsPerService: 10000 }\n`);
    const e = inputErrorOf(() => loadRunInput(file));
    // 10^6 × 10^4 = 10^10 endpoints at 600 bytes each: 6 × 10^12 bytes, about 5588 GiB, against 2 GiB.
    expect(e).toMatchObject({ file, field: 'generate.world.services' });
    expect(e.detail).toMatch(/^this run would take about 5587\.9 GiB of memory \(limit 2\.0 GiB\), mostly from generate\.world\.services \(10,000,000,000 endpoints\): make it smaller, or run it anyway with --allow-large/);
  });

  it('refuses a burst to a hundred million pods, naming bursts.scaleTo', () => {
    const file = scenario(`name: burst\ngenerate:\n  durationMs: ${HOUR}\n  world: { services: 20 }\n  bursts: { at: [1000], scaleTo: 100000000 }\n`);
    // One bursting service (bursts.services defaults to 1) at 10^8 pods: 6 × 10^10 bytes, about 55.9 GiB.
    expect(inputErrorOf(() => loadRunInput(file))).toMatchObject({ field: 'generate.bursts.scaleTo', detail: expect.stringContaining('55.9 GiB of memory') });
  });

  it('refuses churn over 285 simulated years, and a cluster run as long', () => {
    const churn = scenario(`name: long\ngenerate:\n  durationMs: 9000000000000\n  world: { services: 20 }\n  scale: { perHour: 30 }\n`);
    // 9 × 10^12 ms is 2.5 × 10^6 hours; 30 scale events an hour make 7.5 × 10^7 events.
    expect(estimateSize(loadScenario(churn).generate, undefined, undefined).events).toBe(20 + 75_000_000);
    // Written with --out: 75,000,020 events × 300 bytes of compact output log = 20.95 GiB, past 20 GiB.
    expect(inputErrorOf(() => loadRunInput(churn, { outputLog: { trace: [] } }))).toMatchObject({ field: 'generate.scale.perHour', detail: expect.stringContaining('21.0 GiB of output log (limit 20.0 GiB)') });
    // Without --out no output log is written, and 75 million events are within the 100 million.
    expect(loadRunInput(churn).name).toBe('long');
    const cluster = scenario(`name: adverts\nsim: { durationMs: 9000000000000 }\ncluster:\n  nodes: [{ name: a, ip: 10.0.0.1 }, { name: b, ip: 10.0.0.2 }]\n  ipfailover: { virtualIps: 10.0.1.1 }\n`);
    // 9 × 10^9 advert intervals of 1 s × 1 instance × 2 nodes = 1.8 × 10^10 steps, past 10^9.
    expect(inputErrorOf(() => loadRunInput(cluster))).toMatchObject({ field: 'sim.durationMs', detail: expect.stringContaining('18,000,000,000 keepalived steps (limit 1,000,000,000)') });
  });

  it('holds the file a command writes to the limit: the compact output log, a traced one, an expanded event log', () => {
    // 20 initial endpoints.set and 100,000 scale events an hour for 20 hours: 2,000,020 events, each listing up
    // to 200 endpoints (every service at endpointsPerService).
    const file = scenario(`name: wide\ngenerate:\n  durationMs: ${20 * HOUR}\n  world: { services: 20, endpointsPerService: 200 }\n  scale: { perHour: 100000 }\n`);
    const events = 2_000_020;
    const input = loadRunInput(file, { outputLog: { trace: ['inputs'] } });
    // Compact, 300 bytes an event, 100 more for --trace inputs: 0.8 GB.
    expect(sizeOf(input, { kind: 'output log', trace: ['inputs'] }).outputBytes).toBe(events * 400);
    // --trace runtime: 300 + 400 + 200 endpoints × 200 bytes = 40,700 an event, 75.8 GiB.
    expect(inputErrorOf(() => loadRunInput(file, { outputLog: { trace: ['runtime'] } }))).toMatchObject({ field: 'generate.scale.perHour', detail: expect.stringContaining('75.8 GiB of output log (limit 20.0 GiB)') });
    // expand writes the event log: 300 + 200 endpoints × 100 bytes = 20,300 an event, 37.8 GiB.
    expect(inputErrorOf(() => checkSize(file, input, { kind: 'event log' }))).toMatchObject({ detail: expect.stringContaining('37.8 GiB of event log (limit 20.0 GiB)') });
    // A run without --out writes neither.
    expect(sizeOf(input).outputBytes).toBe(0);
  });

  it('lets --allow-large through, and every bundled scenario is well within the limits', () => {
    const file = scenario(`name: big\ngenerate:\n  durationMs: ${HOUR}\n  world: { services: 1000000, endpointsPerService: 10000 }\n`);
    expect(loadRunInput(file, { allowLarge: true }).name).toBe('big');
    const bundled = join(import.meta.dirname, '..', '..', 'scenarios');
    for (const f of readdirSync(bundled).filter((x) => x.endsWith('.yaml'))) {
      const input = loadScenario(join(bundled, f));
      const e = estimateSize(input.generate, input.cluster, input.settings.sim.durationMs);
      expect(overLimit(e), f).toBeUndefined();
      // Not merely within: a hundredth of each limit, so that a small change of the formulas cannot refuse them.
      expect(e.memoryBytes, f).toBeLessThan(SIZE_LIMITS.memoryBytes / 100);
      expect(e.clusterSteps, f).toBeLessThan(SIZE_LIMITS.clusterSteps / 100);
    }
  });

  it('shows in a run\'s progress label, so that a run that will not end soon says so from its first line', () => {
    const churn = scenario(`name: long\ngenerate:\n  durationMs: 9000000000000\n  world: { services: 20 }\n  scale: { perHour: 30 }\n`);
    // 20 initial endpoints.set and 30 × 2,500,000 scale events, as above.
    expect(progressLabel(loadRunInput(churn, { allowLarge: true }))).toBe('long (about 75,000,020 events expected)');
    const plain = scenario(`name: plain\nevents:\n  - { at: 0, type: network.heal }\n`);
    expect(progressLabel(loadRunInput(plain))).toBe('plain');
  });
});
