import { describe, expect, it } from 'vitest';
import { wantsSingleThreadedV8 } from './single-threaded-v8.ts';

describe('wantsSingleThreadedV8', () => {
  it('only when every core has a worker: then V8 helper threads have no idle core to run on', () => {
    // 0 runs in the CLI's own thread and 1 leaves a core idle on 2 cores: the helpers are free there.
    expect([0, 1].map((w) => wantsSingleThreadedV8(w, 2))).toEqual([false, false]);
    expect([2, 3].map((w) => wantsSingleThreadedV8(w, 2))).toEqual([true, true]);
    expect(wantsSingleThreadedV8(2, 4)).toBe(false);
    // One core: a single worker gains nothing from a re-run (the helpers share that core either way).
    expect(wantsSingleThreadedV8(1, 1)).toBe(false);
  });
});
