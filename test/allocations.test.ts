import { describe, expect, it } from 'vitest';
import { Allocations, allocationSites, samplingParameters, type ProfileNode } from '../bench/lib/allocations.ts';

const node = (functionName: string, url: string, lineNumber: number, selfSize: number, children: ProfileNode[] = []): ProfileNode => ({
  callFrame: { functionName, url, lineNumber },
  selfSize,
  children,
});

describe('allocationSites', () => {
  it('sums a function reached by several paths, names native and anonymous code, and sorts largest first', () => {
    const head = node('(root)', '', -1, 0, [
      node('run', 'file:///x/sim/engine.ts', 9, 10, [node('build', 'file:///x/core/names.ts', 41, 300), node('', 'file:///x/core/a.ts', 0, 40)]),
      node('step', 'file:///x/sim/engine.ts', 20, 0, [node('build', 'file:///x/core/names.ts', 41, 200), node('push', '', -1, 70)]),
    ]);
    // build: 300 + 200 from its two callers; the root and `step` allocated nothing and are left out; a line
    // number of 0 (tsx) is not shown.
    expect(allocationSites(head)).toEqual([
      { site: 'build names.ts:42', bytes: 500 },
      { site: 'push (native)', bytes: 70 },
      { site: '(anonymous) a.ts', bytes: 40 },
      { site: 'run engine.ts:10', bytes: 10 },
    ]);
  });
});

describe('Allocations', () => {
  it('samples what this thread allocates, freed objects included', () => {
    const sampler = new Allocations(1024);
    sampler.start();
    // About 20 MB of arrays, none kept: a profile of live objects only would see none of it.
    let sum = 0;
    for (let i = 0; i < 20_000; i++) sum += allocateGarbage().length;
    const sites = sampler.stop();
    expect(sum).toBe(20_000 * 128);
    const mine = sites.find((s) => s.site.startsWith('allocateGarbage '));
    expect(mine?.bytes ?? 0).toBeGreaterThan(10_000_000);
  });
});

describe('samplingParameters', () => {
  it('keeps what scavenges freed in the samples by default, and leaves it out when only survivors are asked for', () => {
    expect(samplingParameters(4096, false)).toEqual({ samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    expect(samplingParameters(4096, true)).toEqual({ samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
  });
});

describe('Allocations, survivors only', () => {
  it('lists what outlived the scavenges', () => {
    const sampler = new Allocations(1024, true);
    sampler.start();
    // About 4 MB kept alive through the sampling, then 64 MB of garbage: scavenges copy the kept arrays.
    const kept: number[][] = [];
    for (let i = 0; i < 4_000; i++) kept.push(allocateKept());
    let sum = 0;
    for (let i = 0; i < 64_000; i++) sum += allocateGarbage().length;
    const sites = sampler.stop();
    expect(sum + kept.length).toBe(64_000 * 128 + 4_000);
    expect(sites.find((s) => s.site.startsWith('allocateKept '))?.bytes ?? 0).toBeGreaterThan(2_000_000);
  });
});

function allocateKept(): number[] {
  return new Array<number>(128).fill(2.5);
}

function allocateGarbage(): number[] {
  return new Array<number>(128).fill(1.5);
}
