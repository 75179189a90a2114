import { OK } from '../core/haproxy/commands.ts';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../core/events.ts';
import type { HaproxyConfig } from '../core/haproxy/config-model.ts';
import type { RouterStrategy } from '../core/strategy.ts';
import { Engine } from './engine.ts';
import type { OutputRecord } from './output/records.ts';
import { RouterProcess } from './router-process.ts';

const EMPTY: HaproxyConfig = { backends: [], maps: {} };

/** Every change asks for a reload: the rate limiter alone decides when reloads run. */
const reloadOnEveryChange: RouterStrategy = {
  name: 'reload-always',
  onChange: (_c, _s, ctx) => ctx.requestReload('route-change'),
  render: () => EMPTY,
  onReloaded: () => {},
};

function upsert(at: number, i: number): InputEvent {
  return { at, type: 'route.upsert', route: { namespace: 'ns', name: `r${i}`, host: `h${i}.example.com`, service: 's' } };
}

function run(requestsMs: number[], intervalMs: number, durationMs: number): number[] {
  const engine = new Engine();
  const records: OutputRecord[] = [];
  const router = new RouterProcess(reloadOnEveryChange, { load: () => {}, send: () => ({ ok: true, reply: OK }) }, engine, (r) => records.push(r), {
    reloadIntervalMs: intervalMs,
    reloadDurationMs: durationMs,
    commitIntervalMs: 3_600_000,
  });
  router.start();
  const events = requestsMs.map((t, i) => upsert(t, i));
  engine.run(events, (e) => router.onChurn(e as Extract<InputEvent, { type: 'route.upsert' }>), { settleUs: 60_000_000 });
  return records.filter((r) => r.type === 'reload.start').map((r) => r.atUs / 1000);
}

/**
 * The reference model, written from the rule rather than the mechanism. Requests (the initial one at 0
 * first) are served in order; a reload starts at the earliest moment allowed:
 * - if the router is idle and the interval has passed when a request arrives, at that request, serving it
 *   (requests at the same millisecond after it find a reload running and wait for the next);
 * - otherwise when the running reload ends, if the interval has passed by then, serving every request up to
 *   and including that moment (inputs at a time come before the reload-end timer);
 * - otherwise at lastStart + interval, serving requests before it and the first one exactly at it.
 */
function reference(requestsMs: number[], intervalMs: number, durationMs: number): number[] {
  const reqs = [0, ...requestsMs];
  const starts: number[] = [];
  let lastStart = -Infinity;
  let lastEnd = -Infinity;
  let i = 0;
  while (i < reqs.length) {
    const r = reqs[i]!;
    let t: number;
    if (r > lastEnd && r >= lastStart + intervalMs) {
      t = r;
      i++;
    } else if (lastEnd >= lastStart + intervalMs) {
      t = lastEnd;
      while (i < reqs.length && reqs[i]! <= t) i++;
    } else {
      t = lastStart + intervalMs;
      while (i < reqs.length && reqs[i]! < t) i++;
      if (i < reqs.length && reqs[i] === t) i++;
    }
    starts.push(t);
    lastStart = t;
    lastEnd = t + durationMs;
  }
  return starts;
}

describe('RouterProcess reload rate limiting (RELOAD_INTERVAL semantics)', () => {
  it('coalesces a burst into the initial reload plus one more at lastStart + interval', () => {
    // Initial reload at 0 (runs 0..1000 ms). Requests at 100, 200, 300 ms arrive while it runs; when it ends at
    // 1000 ms the interval (5000 ms from the start at 0) has not passed, so one timer fires at 5000 ms.
    expect(run([100, 200, 300], 5000, 1000)).toEqual([0, 5000]);
  });

  it('runs at once when the interval has passed since the last start', () => {
    // Start at 0; a request at 7000 ms is 7000 ms after the last start (>= 5000): runs at 7000.
    expect(run([7000], 5000, 1000)).toEqual([0, 7000]);
  });

  it('folds requests made during a long reload into one run when it ends', () => {
    // Reload takes 8000 ms, longer than the 5000 ms interval: requests at 1 and 2 s run when it ends at 8 s.
    expect(run([1000, 2000], 5000, 8000)).toEqual([0, 8000]);
  });

  test.prop([
    fc.array(fc.integer({ min: 1, max: 30_000 }), { maxLength: 60 }).map((a) => a.sort((x, y) => x - y)),
    fc.integer({ min: 0, max: 8000 }),
    fc.integer({ min: 0, max: 8000 }),
  ])('matches the reference model for any requests, interval and duration', (reqs, interval, duration) => {
    expect(run(reqs, interval, duration)).toEqual(reference(reqs, interval, duration));
  });

  test.prop([
    fc.array(fc.integer({ min: 1, max: 30_000 }), { maxLength: 60 }).map((a) => a.sort((x, y) => x - y)),
    fc.integer({ min: 1, max: 8000 }),
    fc.integer({ min: 0, max: 8000 }),
  ])('never starts two reloads less than an interval apart, nor while one runs', (reqs, interval, duration) => {
    const starts = run(reqs, interval, duration);
    for (let k = 1; k < starts.length; k++) {
      expect(starts[k]! - starts[k - 1]!).toBeGreaterThanOrEqual(Math.max(interval, duration));
    }
  });
});

describe('RouterProcess commit interval', () => {
  /** A strategy whose every change is applied at runtime (no reload), arming the commit timer, as dcm-slots does. */
  const dynamic: RouterStrategy = {
    name: 'dcm-slots',
    onChange: (_c, _s, ctx) => ctx.armCommitTimer(),
    render: () => EMPTY,
    onReloaded: () => {},
  };

  function starts(strategy: RouterStrategy, requestsMs: number[], extra: (ms: number, i: number) => InputEvent = upsert): number[] {
    const engine = new Engine();
    const records: OutputRecord[] = [];
    const router = new RouterProcess(strategy, { load: () => {}, send: () => ({ ok: true, reply: OK }) }, engine, (r) => records.push(r), {
      reloadIntervalMs: 5000,
      reloadDurationMs: 1000,
      commitIntervalMs: 60_000,
    });
    router.start();
    engine.run(requestsMs.map(extra), (e) => router.onChurn(e as Extract<InputEvent, { type: 'route.upsert' }>), { settleUs: 600_000_000 });
    return records.filter((r) => r.type === 'reload.start').map((r) => r.atUs / 1000);
  }

  it('fires once, commitIntervalMs after the first dynamic change; later changes do not extend it', () => {
    // Initial reload at 0. Dynamic changes at 10 s and 50 s: the timer armed at 10 s fires at 70 s.
    expect(starts(dynamic, [10_000, 50_000])).toEqual([0, 70_000]);
  });

  it('is disarmed by a reload, which writes everything applied at runtime', () => {
    // Change at 10 s arms the timer for 70 s; a strategy that also asks for a reload at 20 s writes the state at
    // 20 s (reload 20..21 s), so the timer is cancelled; the change at 30 s arms a new one for 90 s.
    const mixed: RouterStrategy = {
      ...dynamic,
      onChange: (change, _s, ctx) => {
        if (change.kind === 'route.added' && change.route.name === 'r1') ctx.requestReload('route-change');
        else ctx.armCommitTimer();
      },
    };
    expect(starts(mixed, [10_000, 20_000, 30_000])).toEqual([0, 20_000, 90_000]);
  });
});

/** The reload requests and starts of a run of `events` under `strategy`: [type, ms, reason or n]. */
function requestsAndStarts(
  strategy: RouterStrategy,
  events: InputEvent[],
  opts: { reloadIntervalMs: number; reloadDurationMs: number; commitIntervalMs: number },
): (string | number)[][] {
  const engine = new Engine();
  const records: OutputRecord[] = [];
  const router = new RouterProcess(strategy, { load: () => {}, send: () => ({ ok: true, reply: OK }) }, engine, (r) => records.push(r), opts);
  router.start();
  engine.run(events, (e) => router.onChurn(e as Extract<InputEvent, { type: 'route.upsert' }>), { settleUs: 60_000_000 });
  return records.filter((r) => r.type === 'reload.request' || r.type === 'reload.start').map((r) => [r.type, r.atUs / 1000, r.type === 'reload.request' ? r.reason : r.n]);
}

describe('a reload asked for while a change is handled', () => {
  /**
   * The blueprint plugin's reload request comes first, then the same change's dynamic route add. Upstream
   * (RouterController.HandleRoute: processRoute, then Commit(); RegisterChange runs the reload in its own
   * goroutine) the add runs before any reload starts, so it is not refused, and the change makes one reload.
   */
  const askThenAdd: RouterStrategy = {
    name: 'dcm-slots',
    onChange: (_c, _s, ctx) => {
      ctx.requestReload('blueprint-change');
      if (ctx.reloadInProgress) ctx.requestReload('reload-in-progress');
    },
    render: () => EMPTY,
    onReloaded: () => {},
  };

  it('starts after the change: its own work is not refused, and one change makes one reload', () => {
    const seen = requestsAndStarts(askThenAdd, [upsert(20_000, 1)], { reloadIntervalMs: 5000, reloadDurationMs: 100, commitIntervalMs: 3_600_000 });
    // The initial reload at 0, then at 20 s (past the 5 s interval) the change's request and its one reload.
    expect(seen).toEqual([
      ['reload.request', 0, 'initial'],
      ['reload.start', 0, 1],
      ['reload.request', 20_000, 'blueprint-change'],
      ['reload.start', 20_000, 2],
    ]);
  });
});

describe('a reload that comes due while a change waits on a retry', () => {
  /**
   * router.go holds its lock for a change's whole walk, the client's retries and backoff included, and
   * commitAndReload takes that lock before it marks the reload in progress: a reload the rate limiter or
   * the commit timer starts meanwhile waits for the change, whose later routes are therefore never refused.
   * The change `slow` waits 30 ms (a backoff) and is refused if a reload has started by then.
   */
  const backoff: RouterStrategy = {
    name: 'dcm-slots',
    onChange: (change, _s, ctx) => {
      if (change.kind !== 'route.added') return;
      if (change.route.name !== 'slow') return void ctx.armCommitTimer();
      return (function* () {
        yield { kind: 'sleep' as const, ms: 30 };
        if (ctx.reloadInProgress) ctx.requestReload('reload-in-progress');
      })();
    },
    render: () => EMPTY,
    onReloaded: () => {},
  };

  it('starts when the change is done: nothing refused, one reload', () => {
    const slow: InputEvent = { at: 5490, type: 'route.upsert', route: { namespace: 'ns', name: 'slow', host: 'slow.example.com', service: 's' } };
    const seen = requestsAndStarts(backoff, [upsert(1500, 1), slow], { reloadIntervalMs: 5000, reloadDurationMs: 1000, commitIntervalMs: 4000 });
    // The change at 1.5 s (after the initial reload's end at 1 s, which disarms the timer) arms the commit
    // timer: it fires at 5.5 s, past the 5 s interval, while `slow` (5.49 s) waits until 5.52 s. The reload
    // starts then, once, and `slow` was not refused.
    expect(seen).toEqual([
      ['reload.request', 0, 'initial'],
      ['reload.start', 0, 1],
      ['reload.request', 5500, 'commit-interval'],
      ['reload.start', 5520, 2],
    ]);
  });
});
