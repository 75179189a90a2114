import { failoverWindows } from '../../reports/failover-windows.ts';
import type { OutputRecord } from '../output/records.ts';
import type { RecordObserver } from '../run.ts';
import type { RunInput } from '../run-input.ts';
import { livenessBoundMs } from './liveness-bound.ts';

/**
 * The properties `routerbench explore` checks on every run, by name. docs/explore.md says what each means
 * and where its bound comes from; the names are what `--allow` takes and what findings are keyed by.
 */
export const PROPERTIES = [
  { name: 'haproxy-view', kind: 'safety', meaning: 'whenever the router has settled, what HAProxy serves equals the desired state (sim/invariants.ts)' },
  { name: 'vip-split-brain', kind: 'safety', meaning: 'no VIP has two live masters for longer than one advert interval plus the longest link delay, unless a partition stands' },
  { name: 'vip-no-master', kind: 'safety', meaning: 'no VIP is without a live master for longer than its failover window while a live node is BACKUP for it' },
  { name: 'router-converges', kind: 'liveness', meaning: 'with every fault healed and the churn over, the router has settled by the end of the liveness phase' },
  { name: 'vip-one-master', kind: 'liveness', meaning: 'with every fault healed, every VIP has exactly one live master at the end of the liveness phase' },
] as const;

export type PropertyName = (typeof PROPERTIES)[number]['name'];
export const PROPERTY_NAMES: readonly PropertyName[] = PROPERTIES.map((p) => p.name);

export interface Violation {
  property: PropertyName;
  /** Simulated ms when the property first failed. */
  atMs: number;
  detail: string;
}

interface VipWatch {
  masters: Set<string>;
  backups: Map<string, number>;
  hadMaster: boolean;
  /** Since when two or more live masters (and no partition), µs; -1 when not. */
  splitSinceUs: number;
  /** Since when no live master, µs; -1 when it has one. */
  orphanSinceUs: number;
}

/**
 * Folds a run's output records into the violated properties, the first violation of each. A run's records
 * come in time order, so each duration property is judged at the first record after its bound ran out.
 */
export class PropertyMonitor implements RecordObserver {
  private readonly violations = new Map<PropertyName, Violation>();
  private readonly vips = new Map<string, VipWatch>();
  private readonly live = new Map<string, boolean>();
  private readonly liveSinceUs = new Map<string, number>();
  /** Faults standing (node down, router down, keepalived crashed, script failed, link down, partition), by what heals them. */
  private readonly open = new Set<string>();
  private partitionHealedUs = 0;
  private lastInputUs = 0;
  private stallEndUs = 0;
  private notSettled = false;
  private readonly splitBoundUs: number;
  private readonly orphanBoundUs: number;
  /** The liveness bound (liveness-bound.ts): judged only when the run went on this long after the last heal. */
  private readonly livenessUs: number;

  constructor(input: RunInput) {
    const w = input.cluster === undefined ? undefined : failoverWindows(input.cluster);
    this.splitBoundUs = w?.settleUs ?? 0;
    this.orphanBoundUs = w?.faultUs ?? 0;
    this.livenessUs = livenessBoundMs(input) * 1000;
  }

  add(r: OutputRecord): void {
    this.judgeDurations(r.atUs);
    switch (r.type) {
      case 'invariant':
        if (r.violations.length > 0) this.violate('haproxy-view', r.atUs, r.violations[0]!);
        return;
      case 'warning':
        if (r.message.startsWith('the router had not settled')) this.notSettled = true;
        return;
      case 'input':
        this.lastInputUs = r.atUs;
        this.onInput(r.event, r.subject, r.atUs);
        return;
      case 'input.counts':
        // checkRun traces every input; an observer of a compact run gets endpoint events per second, at the
        // second's last record: a last input no earlier than the true one, so liveness is never judged early.
        this.lastInputUs = r.atUs;
        return;
      case 'vrrp.node':
        this.live.set(r.node, r.live);
        if (r.live) this.liveSinceUs.set(r.node, r.atUs);
        if (r.cause === 'node.stall') this.open.add(`stall ${r.node}`);
        if (r.cause === 'stall-end') {
          this.open.delete(`stall ${r.node}`);
          this.stallEndUs = Math.max(this.stallEndUs, r.atUs);
        }
        for (const vip of this.vips.keys()) this.recount(vip, r.atUs);
        return;
      case 'vrrp.state': {
        const v = this.watch(r.vip);
        if (r.to === 'MASTER') {
          v.masters.add(r.node);
          v.hadMaster = true;
        } else v.masters.delete(r.node);
        if (r.to === 'BACKUP') v.backups.set(r.node, r.atUs);
        else v.backups.delete(r.node);
        this.recount(r.vip, r.atUs);
        return;
      }
      case 'run.end':
        this.finish(r.atUs);
        return;
    }
  }

  /** The violated properties, each with its first violation, in PROPERTIES order. */
  result(): Violation[] {
    return PROPERTY_NAMES.flatMap((p) => {
      const v = this.violations.get(p);
      return v === undefined ? [] : [v];
    });
  }

  private onInput(event: string, subject: string, atUs: number): void {
    const heals: Record<string, [string, boolean]> = {
      'node.fail': [`node ${subject}`, true],
      'node.shutdown': [`node ${subject}`, true],
      'node.recover': [`node ${subject}`, false],
      'router.fail': [`router ${subject}`, true],
      'router.recover': [`router ${subject}`, false],
      'link.down': [`link ${subject}`, true],
      'link.up': [`link ${subject}`, false],
      // A node.fail while keepalived is down does not heal the crash: keepalived.restart does (or a node.recover,
      // which starts keepalived, followed by the restart's warning); a crash without its restart is standing.
      'keepalived.crash': [`keepalived ${subject}`, true],
      'keepalived.restart': [`keepalived ${subject}`, false],
    };
    if (event === 'network.partition') {
      this.open.add('partition');
      for (const v of this.vips.values()) v.splitSinceUs = -1;
    } else if (event === 'network.heal') {
      this.open.delete('partition');
      this.partitionHealedUs = atUs;
      for (const vip of this.vips.keys()) this.recount(vip, atUs);
    } else if (event === 'keepalived.reload') {
      // keepalived restarts a backup's down timer when it rereads its configuration (vrrp_init_instance_sands;
      // docs/event-log.md, measured on 2.2.7): the node's takeover bound runs again from the reload.
      for (const v of this.vips.values()) if (v.backups.has(subject)) v.backups.set(subject, atUs);
    } else if (event === 'script.fail' || event === 'script.recover') {
      if (event === 'script.fail') this.open.add(`script ${subject}`);
      else this.open.delete(`script ${subject}`);
    } else {
      const h = heals[event];
      if (h !== undefined) {
        if (h[1]) this.open.add(h[0]);
        else this.open.delete(h[0]);
      }
    }
  }

  private watch(vip: string): VipWatch {
    let v = this.vips.get(vip);
    if (v === undefined) {
      v = { masters: new Set(), backups: new Map(), hadMaster: false, splitSinceUs: -1, orphanSinceUs: -1 };
      this.vips.set(vip, v);
    }
    return v;
  }

  private isLive(node: string): boolean {
    return this.live.get(node) ?? true;
  }

  private liveMasters(v: VipWatch): string[] {
    return [...v.masters].filter((m) => this.isLive(m)).sort();
  }

  /** After a change: when the VIP's split brain or orphan time starts or ends (ended ones judged first). */
  private recount(vip: string, atUs: number): void {
    const v = this.vips.get(vip)!;
    this.judgeVip(vip, v, atUs);
    const k = this.liveMasters(v).length;
    if (k >= 2 && !this.open.has('partition')) {
      if (v.splitSinceUs < 0) v.splitSinceUs = Math.max(atUs, this.partitionHealedUs);
    } else v.splitSinceUs = -1;
    if (k === 0 && v.hadMaster) {
      if (v.orphanSinceUs < 0) v.orphanSinceUs = atUs;
    } else v.orphanSinceUs = -1;
  }

  private judgeDurations(nowUs: number): void {
    for (const [vip, v] of this.vips) this.judgeVip(vip, v, nowUs);
  }

  private judgeVip(vip: string, v: VipWatch, nowUs: number): void {
    if (v.splitSinceUs >= 0 && nowUs - v.splitSinceUs > this.splitBoundUs) {
      this.violate('vip-split-brain', v.splitSinceUs + this.splitBoundUs, `${vip} has masters ${this.liveMasters(v).join(', ')} for more than ${this.splitBoundUs / 1000} ms`);
    }
    if (v.orphanSinceUs >= 0) {
      // The bound runs from when the VIP lost its master or a node became a live BACKUP (or reloaded), whichever is later.
      for (const [node, since] of v.backups) {
        if (!this.isLive(node)) continue;
        const from = Math.max(v.orphanSinceUs, since, this.liveSinceUs.get(node) ?? 0);
        if (nowUs - from > this.orphanBoundUs) {
          this.violate('vip-no-master', from + this.orphanBoundUs, `${vip} has no live master for more than ${this.orphanBoundUs / 1000} ms while ${node} is BACKUP`);
          break;
        }
      }
    }
  }

  private finish(endUs: number): void {
    this.judgeDurations(endUs);
    // Liveness is judged only after a whole liveness phase with every fault healed: a log cut short of its
    // recoveries (or a replayed one that never heals) proves nothing about convergence.
    const healedUs = Math.max(this.lastInputUs, this.stallEndUs);
    if (this.open.size > 0 || endUs - healedUs < this.livenessUs) return;
    if (this.notSettled) this.violate('router-converges', endUs, `the router had not settled ${(endUs - healedUs) / 1000} ms after the last event (bound ${this.livenessUs / 1000} ms)`);
    for (const [vip, v] of this.vips) {
      const masters = this.liveMasters(v);
      if (masters.length !== 1) {
        this.violate('vip-one-master', endUs, `${vip} has ${masters.length === 0 ? 'no live master' : `masters ${masters.join(', ')}`} ${(endUs - healedUs) / 1000} ms after the last heal (bound ${this.livenessUs / 1000} ms)`);
        break;
      }
    }
  }

  private violate(property: PropertyName, atUs: number, detail: string): void {
    if (!this.violations.has(property)) this.violations.set(property, { property, atMs: atUs / 1000, detail });
  }
}
