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

  /**
   * `survivors`: leave out the objects a scavenge freed, so that what is listed is what outlived the young
   * generation (promoted to the old one, or still alive at the end). A scavenge's cost is the copying of
   * those objects, not the garbage: under the dcm strategies a service's state lives until its next event,
   * thousands of events on, and is copied twice before it is promoted.
   */
  constructor(
    private readonly intervalBytes = 16384,
    private readonly survivors = false,
  ) {}

  start(): void {
    this.session.connect();
    // The session of the process's own thread answers synchronously: the callbacks have run on return.
    this.session.post('HeapProfiler.enable');
    this.session.post('HeapProfiler.startSampling', samplingParameters(this.intervalBytes, this.survivors));
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

/**
 * The sampling heap profiler's parameters (the DevTools protocol's HeapProfiler.startSampling): objects
 * freed by a full collection always stay in the samples, those freed by a scavenge unless only `survivors`
 * are asked for. What no collection has reached by the end (at most one young generation's worth of
 * garbage) stays in either way.
 */
export function samplingParameters(intervalBytes: number, survivors: boolean) {
  return { samplingInterval: intervalBytes, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !survivors };
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
