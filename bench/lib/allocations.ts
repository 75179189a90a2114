import { Session } from 'node:inspector';

/**
 * Where a replay's memory is allocated, by function: V8's sampling heap profiler with the objects the
 * collector has since freed kept in the samples. Its own `--heap-prof` keeps only what is still alive at
 * the end, which for a replay is the router's state, not the garbage whose collection costs a dcm-slots
 * replay a fifth of its main thread's time. Each sample stands for `intervalBytes` of allocation on
 * average, so the figures are estimates; totals repeat to a few percent between runs.
 */
export class Allocations {
  private readonly session = new Session();

  constructor(private readonly intervalBytes = 16384) {}

  start(): void {
    this.session.connect();
    // The session of the process's own thread answers synchronously: the callbacks have run on return.
    this.session.post('HeapProfiler.enable');
    this.session.post('HeapProfiler.startSampling', {
      samplingInterval: this.intervalBytes,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }

  /** Stops sampling; the profile's allocation by function. */
  stop(): AllocationSite[] {
    let profile: ProfileNode | undefined;
    this.session.post('HeapProfiler.stopSampling', (err, r) => {
      if (err !== null) throw err;
      profile = r.profile.head as ProfileNode;
    });
    this.session.disconnect();
    if (profile === undefined) throw new Error('the heap profiler returned no profile');
    return allocationSites(profile);
  }
}

/** The part of a sampling heap profile's node read here (the DevTools protocol's SamplingHeapProfileNode). */
export interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

export interface AllocationSite {
  /** `function file:line`, the line 1-based and left out when unknown; `(anonymous)` for a function without a name. */
  site: string;
  bytes: number;
}

/** Self allocation summed by function (a function reached by several paths is one site), largest first. */
export function allocationSites(head: ProfileNode): AllocationSite[] {
  const bytes = new Map<string, number>();
  const stack = [head];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.selfSize > 0) {
      const f = n.callFrame;
      const file = f.url === '' ? '(native)' : f.url.slice(f.url.lastIndexOf('/') + 1);
      // Under tsx every line number is 0: the file names the function well enough then.
      const site = `${f.functionName === '' ? '(anonymous)' : f.functionName} ${file}${f.lineNumber > 0 ? `:${f.lineNumber + 1}` : ''}`;
      bytes.set(site, (bytes.get(site) ?? 0) + n.selfSize);
    }
    stack.push(...n.children);
  }
  return [...bytes]
    .map(([site, b]) => ({ site, bytes: b }))
    .sort((a, b) => b.bytes - a.bytes || (a.site < b.site ? -1 : a.site > b.site ? 1 : 0));
}
