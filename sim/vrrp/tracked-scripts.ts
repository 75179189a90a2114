import { applyCheckResult, effectivePriority, type PriorityView, type TrackSpec } from '../../core/vrrp/track.ts';
import type { RandomStreams } from '../random-streams.ts';
import type { Scheduler } from '../scheduler.ts';
import type { InstanceRt, NodeRt, ScriptRt } from './instance.ts';

/**
 * keepalived's tracked scripts on every node (vrrp_script, track_script): each runs every interval, its
 * result counted against rise and fall; a change of status changes the priority of the instances tracking
 * it, or puts them in FAULT. `router-check` succeeds while the node's router is up; every other script
 * succeeds unless a `script.fail` event made it fail (until `script.recover`).
 */
export class TrackedScripts {
  constructor(
    private readonly sched: Scheduler,
    private readonly streams: RandomStreams,
    /** Runs `fn` as a timer of keepalived on `node` (dropped after a restart, deferred by a stall). */
    private readonly onNode: (node: NodeRt, epoch: number, fn: () => void) => void,
    /** A script's status changed on `node`. */
    private readonly changed: (node: NodeRt, script: string) => void,
  ) {}

  /** keepalived starts: every script runs once now, then periodically. */
  start(node: NodeRt): void {
    for (const [script, s] of node.scripts) {
      s.status = { ok: this.succeeds(node, script), streak: 0 };
      this.schedule(node, s, script, true);
    }
  }

  /** keepalived stops: no script runs any more. */
  stop(node: NodeRt): void {
    for (const s of node.scripts.values()) {
      if (s.timer) this.sched.cancel(s.timer);
      s.timer = null;
    }
  }

  private succeeds(node: NodeRt, script: string): boolean {
    return script === 'router-check' ? node.routerUp : !node.scripts.get(script)!.failing;
  }

  private schedule(node: NodeRt, s: ScriptRt, script: string, first: boolean): void {
    const intervalUs = s.spec.intervalMs * 1000;
    // The first periodic check lands at a phase drawn per node, so detection takes up to fall · interval.
    const delay = first ? 1 + this.streams.get(`vrrp/script-phase/${node.name}`).int(intervalUs) : intervalUs;
    if (s.onTimer === null) {
      const check = (): void => {
        const before = s.status.ok;
        s.status = applyCheckResult(s.spec, s.status, this.succeeds(node, script));
        this.schedule(node, s, script, false);
        if (s.status.ok !== before) this.changed(node, script);
      };
      s.onTimer = () => this.onNode(node, s.timerEpoch, check);
    }
    // The handler reads the epoch the timer was armed in: re-arming always cancels the timer first.
    s.timerEpoch = node.epoch;
    s.timer = this.sched.at(this.sched.nowUs + delay, s.onTimer);
  }
}

/** The instance's effective priority and whether it is in FAULT, from the scripts it tracks. */
export function priorityView(inst: InstanceRt): PriorityView {
  const specs: TrackSpec[] = inst.spec.track;
  return effectivePriority(
    inst.ctx.basePriority,
    specs,
    specs.map((t) => inst.node.scripts.get(t.script)!.status),
  );
}
