import { describe, expect, test } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { vrrpMachine, type VrrpEvent, type VrrpInput } from './machine.ts';
import { skewUs } from './timers.ts';

const base: VrrpInput = {
  version: 2,
  ip: 10,
  basePriority: 100,
  advertIntervalUs: 1_000_000,
  downTimerAdverts: 3,
  preempt: true,
  preemptDelayUs: 0,
  garpMasterDelayUs: 5_000_000,
};

function run(input: Partial<VrrpInput>, events: VrrpEvent[]) {
  let [snap] = initialTransition(vrrpMachine, { ...base, ...input });
  let actions: { type: string; params: unknown }[] = [];
  for (const e of events) {
    const [next, acts] = transition(vrrpMachine, snap, e);
    snap = next;
    actions = acts.map((a) => ({ type: a.type, params: a.params }));
  }
  return { state: snap.value, ctx: snap.context, actions };
}

const start: VrrpEvent = { type: 'START', nowUs: 0, fault: false };
const advert = (nowUs: number, priority: number, srcIp = 20, intervalUs = 1_000_000): VrrpEvent => ({ type: 'ADVERT', nowUs, priority, srcIp, intervalUs });

describe('VRRP instance machine', () => {
  test('INIT → BACKUP with the down timer at Master_Down; the owner (255) goes straight to MASTER only when it wants MASTER', () => {
    expect(run({}, [start])).toMatchObject({ state: 'BACKUP', ctx: { downDeadlineUs: 3_609_375 } });
    const owner = run({ basePriority: 255, initialMaster: true }, [start]);
    expect(owner.state).toBe('MASTER');
    expect(owner.actions.map((a) => a.type)).toEqual(['sendAdvert', 'garp', 'armAdvertTimer', 'armGarpTimer']);
    // `state BACKUP` with priority 255 (vrrp_init_state's quick start needs wantstate MASTER): BACKUP, its
    // down timer at 3 · 1 s + Skew(255) = 3 s + ⌊1 · 10⁶ / 256⌋ µs = 3,003,906 µs.
    expect(run({ basePriority: 255 }, [start])).toMatchObject({ state: 'BACKUP', ctx: { downDeadlineUs: 3_003_906 } });
    // A non-owner that wants MASTER starts in BACKUP like the others.
    expect(run({ initialMaster: true }, [start])).toMatchObject({ state: 'BACKUP', ctx: { downDeadlineUs: 3_609_375 } });
  });

  test("a backup's priority change moves its running down timer by the change in Skew", () => {
    // Priority 100 → 150 at 1 s: Master_Down shrinks by Skew(100) − Skew(150), in whole µs
    // 156·10⁶/256 − ⌊106·10⁶/256⌋ = 609,375 − 414,062 = 195,313; the deadline set at START moves that much
    // earlier and the timer is re-armed there.
    const before = run({}, [start]).ctx.downDeadlineUs;
    const shift = skewUs(2, 100, 1_000_000) - skewUs(2, 150, 1_000_000);
    const after = run({}, [start, { type: 'SET_PRIORITY', nowUs: 1_000_000, priority: 150 }]);
    expect(after.ctx).toMatchObject({ priority: 150, downDeadlineUs: before - shift });
    expect(after.actions).toEqual([{ type: 'armDownTimer', params: { atUs: before - shift } }]);
    expect(shift).toBe(195_313);
  });

  test('a priority change after a priority-0 advert or a discarded one moves the timer from what keepalived stored', () => {
    // vrrp_set_effective_priority moves the deadline by Master_Down(new) − ms_down_timer.
    // Priority-0 advert at 5 s: the timer is at Skew(100) = 609,375 µs, deadline 5,609,375. Priority 70 at 5.3 s:
    // Master_Down(70) = 3 s + ⌊186 · 10⁶ / 256⌋ = 3,726,562, so the deadline moves by 3,726,562 − 609,375 to
    // 8,726,562 = 5 s + 3A + Skew(70): the backup waits about 3A more, not 117 ms less.
    const zero = run({}, [start, advert(5_000_000, 0), { type: 'SET_PRIORITY', nowUs: 5_300_000, priority: 70 }]);
    expect(zero.ctx).toMatchObject({ priority: 70, downDeadlineUs: 8_726_562, downTimerUs: 3_726_562 });
    // A lower advert (50) discarded at 2 s leaves what was left of the START timer: 3,609,375 − 2,000,000 =
    // 1,609,375. Priority 150 at 2.5 s: Master_Down(150) = 3 s + ⌊106 · 10⁶ / 256⌋ = 3,414,062, so the deadline
    // becomes 3,609,375 + 3,414,062 − 1,609,375 = 5,414,062 = 2 s + Master_Down(150): it runs from the discarded advert.
    const discarded = run({}, [start, advert(2_000_000, 50), { type: 'SET_PRIORITY', nowUs: 2_500_000, priority: 150 }]);
    expect(discarded.ctx).toMatchObject({ priority: 150, downDeadlineUs: 5_414_062 });
    // After an accepted advert the stored timer is the whole Master_Down: the move is the change in Skew.
    const accepted = run({}, [start, advert(2_000_000, 120), { type: 'SET_PRIORITY', nowUs: 2_500_000, priority: 150 }]);
    expect(accepted.ctx.downDeadlineUs).toBe(2_000_000 + 3_000_000 + skewUs(2, 150, 1_000_000));
  });

  test('a weight-0 script KO at start means FAULT', () => {
    expect(run({}, [{ type: 'START', nowUs: 0, fault: true }]).state).toBe('FAULT');
  });

  test('priority 0 sets the down timer to Skew', () => {
    expect(run({}, [start, advert(500_000, 0)]).ctx.downDeadlineUs).toBe(500_000 + 609_375);
  });

  test('v3: a priority-0 advert starts Skew from the interval the backup holds, not the advert\'s own', () => {
    // The backup learned 1 s from its master at 1 s; a priority-0 advert at 2 s carries 2 s. keepalived's
    // vrrp_state_backup computes Skew from master_adver_int (1 s) and learns nothing from that advert.
    const r = run({ version: 3 }, [start, advert(1_000_000, 200), advert(2_000_000, 0, 20, 2_000_000)]);
    expect(r.ctx).toMatchObject({ masterAdverIntervalUs: 1_000_000, downDeadlineUs: 2_000_000 + skewUs(3, 100, 1_000_000) });
    expect(skewUs(3, 100, 1_000_000)).not.toBe(skewUs(3, 100, 2_000_000));
  });

  test('a lower-priority advert is discarded with preemption, accepted with nopreempt', () => {
    expect(run({}, [start, advert(1_000_000, 50)]).ctx.downDeadlineUs).toBe(3_609_375);
    expect(run({ preempt: false }, [start, advert(1_000_000, 50)]).ctx.downDeadlineUs).toBe(1_000_000 + 3_609_375);
  });

  test('preempt_delay: lower adverts are accepted until the delay from the first has passed', () => {
    const d = 2_000_000;
    const r = run({ preemptDelayUs: d }, [start, advert(1_000_000, 50), advert(2_000_000, 50), advert(3_000_000, 50)]);
    // first lower advert at 1 s starts the clock (preemptAt = 3 s); 2 s accepted; 3 s is not before 3 s: discarded
    expect(r.ctx.preemptAtUs).toBe(3_000_000);
    expect(r.ctx.downDeadlineUs).toBe(2_000_000 + 3_609_375);
  });

  test('MASTER: higher priority → BACKUP; equal priority from a higher IP → BACKUP; lower → advert and GARP at once', () => {
    const master: VrrpEvent[] = [start, { type: 'DOWN_TIMER', nowUs: 3_609_375 }];
    expect(run({}, [...master, advert(4_000_000, 150)]).state).toBe('BACKUP');
    expect(run({}, [...master, advert(4_000_000, 100, 20)]).state).toBe('BACKUP');
    expect(run({}, [...master, advert(4_000_000, 100, 5)]).state).toBe('MASTER');
    const lower = run({}, [...master, advert(4_000_000, 50)]);
    expect(lower.state).toBe('MASTER');
    // ... the advert timer restarts from the received advert: 4 s + A; and a second burst is due
    // GARP_LOWER_PRIO_DELAY_US (5 s) after it, whatever garp_master_delay says: 4 s + 5 s.
    expect(lower.actions).toEqual([
      { type: 'sendAdvert', params: { priority: 100 } },
      { type: 'garp', params: { reason: 'lower-prio' } },
      { type: 'armAdvertTimer', params: { atUs: 5_000_000 } },
      { type: 'armGarpTimer', params: { atUs: 9_000_000 } },
    ]);
  });

  test('MASTER: an advert it drops still restarts its advert timer (vrrp_dispatcher_read); so does priority 0', () => {
    const master: VrrpEvent[] = [start, { type: 'DOWN_TIMER', nowUs: 3_609_375 }];
    // v2 with A = 1 s: an advert carrying 2 s is dropped, and the next own advert is due 1 s after it,
    // not 1 s after the last one sent (3.609375 s + 1 s).
    const dropped = run({}, [...master, advert(4_200_000, 150, 20, 2_000_000)]);
    expect(dropped.state).toBe('MASTER');
    expect(dropped.actions).toEqual([
      { type: 'dropAdvert', params: { reason: 'interval' } },
      { type: 'armAdvertTimer', params: { atUs: 5_200_000 } },
    ]);
    const zero = run({}, [...master, advert(4_200_000, 0)]);
    expect(zero.actions).toEqual([
      { type: 'sendAdvert', params: { priority: 100 } },
      { type: 'armAdvertTimer', params: { atUs: 5_200_000 } },
    ]);
  });

  test('shutdown of a master sends a priority-0 advert, FAULT two (leave_master, then restore_interface)', () => {
    const master: VrrpEvent[] = [start, { type: 'DOWN_TIMER', nowUs: 3_609_375 }];
    expect(run({}, [...master, { type: 'SHUTDOWN', nowUs: 5_000_000 }])).toMatchObject({ state: 'INIT', actions: [{ type: 'sendAdvert', params: { priority: 0 } }] });
    expect(run({}, [...master, { type: 'FAULT', nowUs: 5_000_000 }])).toMatchObject({
      state: 'FAULT',
      actions: [
        { type: 'sendAdvert', params: { priority: 0 } },
        { type: 'sendAdvert', params: { priority: 0 } },
      ],
    });
    expect(run({}, [...master, { type: 'CRASH', nowUs: 5_000_000 }])).toMatchObject({ state: 'INIT', actions: [] });
  });

  test('v2 drops an advert with another interval; v3 adopts it', () => {
    const v2 = run({}, [start, advert(1_000_000, 200, 20, 2_000_000)]);
    expect(v2.actions).toEqual([{ type: 'dropAdvert', params: { reason: 'interval' } }]);
    expect(v2.ctx.downDeadlineUs).toBe(3_609_375);
    const v3 = run({ version: 3 }, [start, advert(1_000_000, 200, 20, 2_000_000)]);
    // 3 · 2 s + 156 · 200 cs / 256 = 6 s + 1.21875 s
    expect(v3.ctx.downDeadlineUs).toBe(1_000_000 + 6_000_000 + 1_218_750);
  });

  test('FAULT_CLEAR → BACKUP with a full down timer', () => {
    const r = run({}, [start, { type: 'FAULT', nowUs: 1_000_000 }, { type: 'FAULT_CLEAR', nowUs: 9_000_000 }]);
    expect(r).toMatchObject({ state: 'BACKUP', ctx: { downDeadlineUs: 9_000_000 + 3_609_375 } });
  });
});
