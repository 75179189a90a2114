import { assign, setup } from 'xstate';
import { masterDownUs, skewUs, type VrrpVersion } from './timers.ts';

/**
 * One VRRP instance (one node's view of one virtual router) as an xstate 5 machine. It is pure: it never
 * reads a clock. Every event carries `nowUs`, timers are deadlines in the context, and what the instance
 * wants done (send an advert, send gratuitous ARPs, arm a timer) comes back as named actions with params
 * from `transition()`; the simulation executes them on its own virtual clock.
 *
 * Behaviour (RFC 3768/5798 §6.4, keepalived 2.x vrrp.c):
 * - INIT --START--> MASTER if the address owner (priority 255) configured to start as master (vrrp_init_state's
 *   quick start needs wantstate MASTER: `state MASTER`, or no state with priority 255), FAULT if a weight-0
 *   tracked script is KO, else BACKUP with the down timer at now + Master_Down_Interval (an owner with
 *   `state BACKUP` too: it then takes over when that runs out, discarding the lower adverts).
 * - BACKUP: priority-0 advert → down timer at now + Skew. Advert with priority ≥ own, or preemption off, or
 *   within preempt_delay → accept: down timer at now + Master_Down (the first lower-priority advert starts the
 *   preempt_delay clock). Lower priority otherwise → discard, the timer keeps running. Timer → MASTER.
 * - MASTER: entry sends an advert and a GARP burst, arms the advert timer (every A) and the second GARP burst
 *   (garp_master_delay). Higher priority (or equal from a higher primary IP) → BACKUP. Lower priority → send an
 *   advert at once and re-send GARPs (keepalived 2.x, RFC 9568), with another burst GARP_LOWER_PRIO_DELAY_US
 *   later. Priority 0 → send an advert at once.
 * - SHUTDOWN: a master sends a priority-0 advert, then INIT. CRASH: INIT silently. FAULT: a master sends two
 *   priority-0 adverts; FAULT_CLEAR → BACKUP with a full down timer.
 * - v2 drops an advert whose interval differs from its own; v3 backups adopt the master's interval.
 */
export type VrrpState = 'INIT' | 'BACKUP' | 'MASTER' | 'FAULT';

/**
 * The delayed burst after answering a lower-priority advert: keepalived's `garp_lower_prio_delay`, which
 * defaults to the global `vrrp_garp_master_delay` (5 s), not to the instance's `garp_master_delay`; ipfailover
 * sets neither (vrrp.c, vrrp_state_master_rx; global_parser.c).
 */
export const GARP_LOWER_PRIO_DELAY_US = 5_000_000;
export type GarpReason = 'master' | 'repeat' | 'lower-prio';

export interface VrrpContext {
  version: VrrpVersion;
  /** Primary IP as an unsigned 32-bit number (tie-break between equal priorities). */
  ip: number;
  basePriority: number;
  /** Effective priority (base + tracked weights, clamped); what adverts carry. */
  priority: number;
  advertIntervalUs: number;
  /** v3: the interval learned from the master; v2: always advertIntervalUs. */
  masterAdverIntervalUs: number;
  downTimerAdverts: number;
  preempt: boolean;
  preemptDelayUs: number;
  /** When a lower-priority master may be preempted (preempt_delay running); −1 when not running. */
  preemptAtUs: number;
  /** BACKUP: when the master is declared down; −1 otherwise. */
  downDeadlineUs: number;
  /**
   * keepalived's ms_down_timer: what the down timer was last set from. Master_Down_Interval on entering
   * BACKUP and on an accepted advert, Skew after a priority-0 advert, what was left of it when an advert was
   * discarded. A priority change moves a backup's deadline by the new Master_Down_Interval minus this
   * (vrrp_set_effective_priority), which is the change in Skew only in the first case.
   */
  downTimerUs: number;
  garpMasterDelayUs: number;
  /** keepalived's wantstate is MASTER: the config says `state MASTER`, or no state and priority 255. */
  initialMaster: boolean;
}

export type VrrpInput = Omit<VrrpContext, 'masterAdverIntervalUs' | 'preemptAtUs' | 'downDeadlineUs' | 'downTimerUs' | 'priority' | 'initialMaster'> & {
  priority?: number;
  /** Default false: `state BACKUP`. */
  initialMaster?: boolean;
};

export type VrrpEvent =
  | { type: 'START'; nowUs: number; fault: boolean }
  | { type: 'ADVERT'; nowUs: number; priority: number; srcIp: number; intervalUs: number }
  | { type: 'DOWN_TIMER'; nowUs: number }
  | { type: 'ADVERT_TIMER'; nowUs: number }
  | { type: 'GARP_TIMER'; nowUs: number }
  | { type: 'SET_PRIORITY'; nowUs: number; priority: number }
  | { type: 'FAULT'; nowUs: number }
  | { type: 'FAULT_CLEAR'; nowUs: number }
  | { type: 'SHUTDOWN'; nowUs: number }
  | { type: 'CRASH'; nowUs: number };

type Advert = Extract<VrrpEvent, { type: 'ADVERT' }>;

/** The context of a new instance (INIT). */
export function initialVrrpContext(input: VrrpInput): VrrpContext {
  return {
    ...input,
    priority: input.priority ?? input.basePriority,
    initialMaster: input.initialMaster ?? false,
    masterAdverIntervalUs: input.advertIntervalUs,
    preemptAtUs: -1,
    downDeadlineUs: -1,
    downTimerUs: 0,
  };
}

/** Master_Down_Interval for this context (own priority, learned interval). */
export function contextMasterDownUs(c: VrrpContext): number {
  return masterDownUs(c.version, c.priority, c.masterAdverIntervalUs, c.downTimerAdverts);
}

export function intervalMismatch(c: VrrpContext, e: Advert): boolean {
  return c.version === 2 && e.intervalUs !== c.advertIntervalUs;
}

/** The interval a backup times the master with after hearing `e` (v3 adopts the master's). */
function learnedInterval(c: VrrpContext, e: Advert): number {
  return c.version === 3 ? e.intervalUs : c.masterAdverIntervalUs;
}

/** BACKUP accepts (resets its down timer on) this non-zero-priority advert. */
export function backupAccepts(c: VrrpContext, e: Advert): boolean {
  if (e.priority >= c.priority || !c.preempt) return true;
  return c.preemptDelayUs > 0 && (c.preemptAtUs < 0 || e.nowUs < c.preemptAtUs);
}

/** MASTER yields to this advert. */
export function masterYields(c: VrrpContext, e: Advert): boolean {
  return e.priority > c.priority || (e.priority === c.priority && e.srcIp > c.ip);
}

/** A master's advert timer, (re)started from the event's time. */
const REARM_ADVERT_TIMER = { type: 'armAdvertTimer', params: ({ context, event }: { context: VrrpContext; event: { nowUs: number } }) => ({ atUs: event.nowUs + context.advertIntervalUs }) } as const;

export const vrrpMachine = setup({
  types: {
    context: {} as VrrpContext,
    events: {} as VrrpEvent,
    input: {} as VrrpInput,
  },
  actions: {
    /** Back to BACKUP: the down timer restarts in full (with the interval just learned, v3). */
    enterBackup: assign(({ context: c, event }) => {
      const interval = event.type === 'ADVERT' ? learnedInterval(c, event) : c.advertIntervalUs;
      const down = masterDownUs(c.version, c.priority, interval, c.downTimerAdverts);
      return { masterAdverIntervalUs: interval, downDeadlineUs: event.nowUs + down, downTimerUs: down, preemptAtUs: -1 };
    }),
    /** An advert the backup ignores (dropped, or a lower one discarded): keepalived keeps what is left of the timer. */
    ignoreAdvert: assign(({ context: c, event }) => ({ downTimerUs: Math.max(0, c.downDeadlineUs - event.nowUs) })),
    leaveBackup: assign({ downDeadlineUs: -1, preemptAtUs: -1 }),
    /** Send one advert (to the group or every unicast peer). */
    sendAdvert: (_, _params: { priority: number }) => {},
    /** Make sure the down timer fires no later than atUs (the deadline lives in the context). */
    armDownTimer: (_, _params: { atUs: number }) => {},
    armAdvertTimer: (_, _params: { atUs: number }) => {},
    armGarpTimer: (_, _params: { atUs: number }) => {},
    /** Send a gratuitous ARP burst for the VIP. */
    garp: (_, _params: { reason: GarpReason }) => {},
    /** An advert dropped on receipt (v2 interval mismatch). */
    dropAdvert: (_, _params: { reason: 'interval' }) => {},
  },
  guards: {
    owner: ({ context }) => context.priority === 255 && context.initialMaster,
    startFault: ({ event }) => event.type === 'START' && event.fault,
    mismatch: ({ context, event }) => event.type === 'ADVERT' && intervalMismatch(context, event),
    priorityZero: ({ event }) => event.type === 'ADVERT' && event.priority === 0,
    backupAccepts: ({ context, event }) => event.type === 'ADVERT' && backupAccepts(context, event),
    masterYields: ({ context, event }) => event.type === 'ADVERT' && masterYields(context, event),
    downExpired: ({ context, event }) => context.downDeadlineUs >= 0 && event.nowUs >= context.downDeadlineUs,
  },
}).createMachine({
  id: 'vrrp',
  context: ({ input }) => initialVrrpContext(input),
  initial: 'INIT',
  on: {
    SET_PRIORITY: { actions: assign({ priority: ({ event }) => event.priority }) },
    CRASH: { target: '.INIT', actions: ['leaveBackup'] },
  },
  states: {
    INIT: {
      on: {
        START: [
          { guard: 'startFault', target: 'FAULT' },
          { guard: 'owner', target: 'MASTER' },
          { target: 'BACKUP', actions: ['enterBackup', { type: 'armDownTimer', params: ({ context }) => ({ atUs: context.downDeadlineUs }) }] },
        ],
        CRASH: {},
      },
    },
    BACKUP: {
      on: {
        ADVERT: [
          { guard: 'mismatch', actions: [{ type: 'dropAdvert', params: { reason: 'interval' } }, 'ignoreAdvert'] },
          {
            guard: 'priorityZero',
            actions: [
              // keepalived's vrrp_state_backup: Skew from the interval it already holds; a priority-0
              // advert's own interval is not learned (v3), unlike an accepted one's.
              assign(({ context: c, event }) => {
                const skew = skewUs(c.version, c.priority, c.masterAdverIntervalUs);
                return { downDeadlineUs: event.nowUs + skew, downTimerUs: skew };
              }),
              { type: 'armDownTimer', params: ({ context }) => ({ atUs: context.downDeadlineUs }) },
            ],
          },
          {
            guard: 'backupAccepts',
            actions: [
              assign(({ context: c, event }) => {
                const e = event as Advert;
                const interval = learnedInterval(c, e);
                const down = masterDownUs(c.version, c.priority, interval, c.downTimerAdverts);
                let preemptAtUs = c.preemptAtUs;
                if (e.priority >= c.priority) preemptAtUs = -1;
                else if (c.preempt && c.preemptDelayUs > 0 && preemptAtUs < 0) preemptAtUs = e.nowUs + c.preemptDelayUs;
                return { masterAdverIntervalUs: interval, downDeadlineUs: e.nowUs + down, downTimerUs: down, preemptAtUs };
              }),
              { type: 'armDownTimer', params: ({ context }) => ({ atUs: context.downDeadlineUs }) },
            ],
          },
          // Lower priority with preemption on: discarded; the down timer keeps running.
          { actions: 'ignoreAdvert' },
        ],
        DOWN_TIMER: [
          { guard: 'downExpired', target: 'MASTER' },
          { actions: { type: 'armDownTimer', params: ({ context }) => ({ atUs: context.downDeadlineUs }) } },
        ],
        // keepalived's vrrp_set_effective_priority: a backup's running down timer moves by the new
        // Master_Down_Interval minus the ms_down_timer it was last set from (downTimerUs). After an accepted
        // advert that is the change in Skew; after a priority-0 advert (timer at Skew) it adds about 3A; after
        // a discarded advert the timer runs from that advert again, with the new interval.
        SET_PRIORITY: {
          actions: [
            assign(({ context: c, event }) => {
              const e = event as Extract<VrrpEvent, { type: 'SET_PRIORITY' }>;
              const down = masterDownUs(c.version, e.priority, c.masterAdverIntervalUs, c.downTimerAdverts);
              const shift = down - c.downTimerUs;
              return { priority: e.priority, downTimerUs: down, downDeadlineUs: c.downDeadlineUs < 0 ? c.downDeadlineUs : c.downDeadlineUs + shift };
            }),
            { type: 'armDownTimer', params: ({ context, event }) => ({ atUs: Math.max(context.downDeadlineUs, event.nowUs) }) },
          ],
        },
        FAULT: { target: 'FAULT', actions: ['leaveBackup'] },
        SHUTDOWN: { target: 'INIT', actions: ['leaveBackup'] },
      },
    },
    MASTER: {
      entry: [
        assign(({ context: c }) => ({ masterAdverIntervalUs: c.advertIntervalUs, downDeadlineUs: -1, preemptAtUs: -1 })),
        { type: 'sendAdvert', params: ({ context }) => ({ priority: context.priority }) },
        { type: 'garp', params: { reason: 'master' } },
        REARM_ADVERT_TIMER,
        { type: 'armGarpTimer', params: ({ context, event }) => ({ atUs: event.nowUs + context.garpMasterDelayUs }) },
      ],
      on: {
        // Every advert a master reads and stays master after, dropped ones included, restarts its advert
        // timer from now (vrrp_dispatcher_read → vrrp_init_instance_sands). Checked against keepalived 2.2.7
        // (docs/fidelity-keepalived.md): a 2 s master hearing 1 s adverts sends once and then never again.
        ADVERT: [
          { guard: 'mismatch', actions: [{ type: 'dropAdvert', params: { reason: 'interval' } }, REARM_ADVERT_TIMER] },
          { guard: 'priorityZero', actions: [{ type: 'sendAdvert', params: ({ context }) => ({ priority: context.priority }) }, REARM_ADVERT_TIMER] },
          {
            guard: 'masterYields',
            target: 'BACKUP',
            actions: ['enterBackup', { type: 'armDownTimer', params: ({ context }) => ({ atUs: context.downDeadlineUs }) }],
          },
          {
            actions: [
              { type: 'sendAdvert', params: ({ context }) => ({ priority: context.priority }) },
              { type: 'garp', params: { reason: 'lower-prio' } },
              REARM_ADVERT_TIMER,
              { type: 'armGarpTimer', params: ({ event }) => ({ atUs: event.nowUs + GARP_LOWER_PRIO_DELAY_US }) },
            ],
          },
        ],
        ADVERT_TIMER: {
          actions: [
            { type: 'sendAdvert', params: ({ context }) => ({ priority: context.priority }) },
            REARM_ADVERT_TIMER,
          ],
        },
        GARP_TIMER: { actions: { type: 'garp', params: { reason: 'repeat' } } },
        // Entering FAULT sends priority 0 twice: vrrp_state_leave_master once, then vrrp_restore_interface
        // (called with advF from down_instance) again before the VIPs go. Both seen on the wire.
        FAULT: {
          target: 'FAULT',
          actions: [
            { type: 'sendAdvert', params: { priority: 0 } },
            { type: 'sendAdvert', params: { priority: 0 } },
          ],
        },
        SHUTDOWN: { target: 'INIT', actions: { type: 'sendAdvert', params: { priority: 0 } } },
      },
    },
    FAULT: {
      on: {
        FAULT_CLEAR: {
          target: 'BACKUP',
          actions: ['enterBackup', { type: 'armDownTimer', params: ({ context }) => ({ atUs: context.downDeadlineUs }) }],
        },
        SHUTDOWN: { target: 'INIT' },
      },
    },
  },
});

export type VrrpMachine = typeof vrrpMachine;
