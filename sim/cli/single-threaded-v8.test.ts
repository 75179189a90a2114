import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SWEEP_V8_FLAGS, wantsSingleThreadedV8 } from './single-threaded-v8.ts';

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

describe('SWEEP_V8_FLAGS', () => {
  it('are flags this node accepts (a renamed V8 flag would stop every sweep that uses all cores)', () => {
    // node exits 9 with "bad option" on a flag V8 does not know.
    const child = spawnSync(process.execPath, [...SWEEP_V8_FLAGS, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' });
    expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual({ status: 0, stdout: 'ok', stderr: '' });
  });
});
