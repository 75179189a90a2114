/**
 * Runs the fidelity plan on real keepalived processes (fidelity/netns-harness.ts) and measures every
 * takeover. Real I/O and real time, like the harness: for fidelity/ tests and bench/ only, never imported
 * by the simulation path.
 */
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterSchema } from '../sim/cluster/cluster-schema.ts';
import { resolveCluster } from '../sim/cluster/resolve.ts';
import { RandomStreams } from '../sim/random-streams.ts';
import { renderKeepalivedConf } from './keepalived-conf.ts';
import { FAULTED_NODE, FIDELITY_ADVERT_MS, FIDELITY_CLUSTER, PARTITION_HOLD_MS, type FaultKind, type MeasuredIncident } from './keepalived-fidelity.ts';
import type { AddressEvent } from './address-monitor.ts';
import { NetnsCluster } from './netns-harness.ts';
import { wallUs } from './real-time.ts';
import type { AdvertEvent } from './wire-observer.ts';

export type FidelityPlan = Record<FaultKind, number>;

/** ~100 s of real time on this machine: a few incidents of each kind. */
export const DEFAULT_PLAN: FidelityPlan = { crash: 3, 'host-loss': 2, shutdown: 3, 'router-fail': 3, partition: 2 };

/** Where in the master's advert interval the faults land, in turn (fraction of A after its last advert). */
const PHASES = [0.2, 0.5, 0.8];
const BASELINE_TIMEOUT_MS = 15_000;
const TAKEOVER_TIMEOUT_MS = 8_000;
/**
 * A fault that took longer than this to act is measured again (up to FAULT_ATTEMPTS in all). Only a
 * partition acts after its stamp: its `bridge` command takes 2-5 ms, but once, with the machine loaded,
 * 1.2 s, so that an advert sent after the stamp still crossed and the takeover came an interval late.
 * That measures the machine, not keepalived.
 */
const FAULT_LATE_US = 100_000;
const FAULT_ATTEMPTS = 3;

export interface RealRun {
  keepalivedVersion: string;
  incidents: MeasuredIncident[];
  /** Anything that moved that the plan did not expect. */
  notes: string[];
  /** Incidents measured again because their fault acted late (FAULT_LATE_US), a line each. */
  remeasured: string[];
  /** The masters' advert periods as the observer saw them (ms); empty without python3. */
  advertPeriodsMs: number[];
  realSeconds: number;
}

const VIPS = FIDELITY_CLUSTER.keepalived.instances.map((i) => i.vip);
const VRID: Record<string, number> = Object.fromEntries(FIDELITY_CLUSTER.keepalived.instances.map((i) => [i.vip, i.vrid]));
const BASELINE: Record<string, string> = Object.fromEntries(
  FIDELITY_CLUSTER.keepalived.instances.map((i) => [i.vip, Object.entries(i.priorities).sort((a, b) => b[1] - a[1])[0]![0]]),
);

export function keepalivedVersion(): string {
  const r = spawnSync('keepalived', ['-v'], { encoding: 'utf8' });
  return ((r.stderr || r.stdout || '').split('\n')[0] ?? '').trim();
}

/** Incidents in the order they run: rounds of the single-node faults, partitions last (they leave two masters that must settle). */
export function planOrder(plan: FidelityPlan): FaultKind[] {
  const order: FaultKind[] = [];
  const rounds = Math.max(plan.crash, plan['host-loss'], plan.shutdown, plan['router-fail']);
  for (let r = 0; r < rounds; r++) for (const k of ['crash', 'shutdown', 'router-fail', 'host-loss'] as const) if (r < plan[k]) order.push(k);
  for (let r = 0; r < plan.partition; r++) order.push('partition');
  return order;
}

export async function measureRealKeepalived(plan: FidelityPlan = DEFAULT_PLAN, log: (line: string) => void = () => {}): Promise<RealRun> {
  const started = Date.now();
  const resolved = resolveCluster(ClusterSchema.parse(FIDELITY_CLUSTER), new RandomStreams(1));
  const cluster = await NetnsCluster.create({
    nodes: resolved.nodes,
    vips: VIPS,
    conf: (node, { routerDownFlag }) =>
      renderKeepalivedConf(resolved, node, { scriptCommand: (script) => (script === 'router-check' ? `/usr/bin/test ! -e ${routerDownFlag}` : '/bin/true') }),
  });
  const incidents: MeasuredIncident[] = [];
  const notes: string[] = [];
  const remeasured: string[] = [];
  let periods: number[] = [];
  const atBaseline = () => VIPS.every((v) => sameList(cluster.holders(v), [BASELINE[v]!]));
  const waitBaseline = async (what: string) => {
    if (!(await cluster.waitFor(atBaseline, BASELINE_TIMEOUT_MS)))
      throw new Error(`keepalived-real: no baseline ${what} after ${BASELINE_TIMEOUT_MS} ms: ${VIPS.map((v) => `${v} on [${cluster.holders(v)}]`).join(', ')}\n${cluster.nodeNames().map((n) => `--- ${n}\n${cluster.logTail(n, 15)}`).join('\n')}`);
  };
  try {
    for (const n of cluster.nodeNames()) await cluster.start(n);
    await waitBaseline('at start');
    const counts = new Map<FaultKind, number>();
    let k = 0;
    for (const kind of planOrder(plan)) {
      const index = counts.get(kind) ?? 0;
      counts.set(kind, index + 1);
      const phase = PHASES[k++ % PHASES.length]!;
      let holdersAtFault: Map<string, string[]>;
      let faultUs: number;
      const moved = kind === 'partition' ? VIPS : [VIPS[0]!];
      for (let attempt = 1; ; attempt++) {
        await sleep(500);
        // Aim the fault at a chosen phase of the master's advert interval (we measure where it really lands).
        const A = FIDELITY_ADVERT_MS * 1000;
        const acq = lastAdd(cluster.events, FAULTED_NODE, VIPS[0]!, Infinity)!;
        const target = acq + Math.ceil((wallUs() + 300_000 - acq) / A) * A + phase * A;
        await sleep(Math.max(0, (target - wallUs()) / 1000));
        const holders = new Map(VIPS.map((v) => [v, cluster.holders(v)]));
        const at = await applyFault(cluster, kind);
        const takenOver = () => moved.every((v) => firstTakeover(cluster.events, v, at, holders.get(v)!) !== null);
        await cluster.waitFor(takenOver, TAKEOVER_TIMEOUT_MS);
        if (kind === 'partition') await sleep(Math.max(0, (at + PARTITION_HOLD_MS * 1000 - wallUs()) / 1000));
        else await sleep(300);
        const lateUs = cluster.lastFaultEndUs - at;
        if (lateUs <= FAULT_LATE_US || attempt === FAULT_ATTEMPTS) {
          holdersAtFault = holders;
          faultUs = at;
          break;
        }
        remeasured.push(`${kind} #${index}: the fault took ${(lateUs / 1000).toFixed(1)} ms to act; measured again`);
        log(remeasured[remeasured.length - 1]!);
        await restore(cluster, kind);
        await waitBaseline(`after ${kind} #${index}, to measure it again`);
      }
      for (const vip of moved) {
        const oldMaster = holdersAtFault.get(vip)![0]!;
        const take = firstTakeover(cluster.events, vip, faultUs, holdersAtFault.get(vip)!);
        const resign = cluster.events.find((e) => e.address === vip && e.node === oldMaster && !e.added && e.atUs >= faultUs);
        const inc: MeasuredIncident = {
          kind,
          index,
          vip,
          oldMaster,
          newMaster: take?.node ?? null,
          latencyMs: take ? (take.atUs - faultUs) / 1000 : null,
          sinceAcquiredMs: (faultUs - lastAdd(cluster.events, oldMaster, vip, faultUs)!) / 1000,
          ...advertPhase(cluster.adverts, oldMaster, VRID[vip]!, faultUs, cluster.lastFaultEndUs),
          zeroAdvertMs: firstZeroAdvert(cluster.adverts, oldMaster, VRID[vip]!, faultUs),
          resignMs: resign ? (resign.atUs - faultUs) / 1000 : null,
        };
        incidents.push(inc);
        log(`${kind} #${index} ${vip}: ${inc.oldMaster} → ${inc.newMaster} in ${inc.latencyMs} ms (fault ${inc.sinceAdvertMs ?? `~${inc.sinceAcquiredMs % FIDELITY_ADVERT_MS}`} ms after the last advert${inc.resignMs !== null ? `, resigned after ${inc.resignMs} ms` : ''})`);
      }
      for (const vip of VIPS) {
        if (moved.includes(vip)) continue;
        const stray = cluster.events.find((e) => e.address === vip && e.atUs >= faultUs && e.added);
        if (stray) notes.push(`${kind} #${index}: ${vip} moved to ${stray.node} though the fault was not on its master`);
      }
      await restore(cluster, kind);
      await waitBaseline(`after ${kind} #${index}`);
    }
    periods = advertPeriodsMs(cluster.adverts);
  } finally {
    await cluster.destroy();
  }
  return { keepalivedVersion: keepalivedVersion(), incidents, notes, remeasured, advertPeriodsMs: periods, realSeconds: (Date.now() - started) / 1000 };
}

async function applyFault(c: NetnsCluster, kind: FaultKind): Promise<number> {
  switch (kind) {
    case 'crash':
      return c.crash(FAULTED_NODE);
    case 'host-loss':
      return c.hostLoss(FAULTED_NODE);
    case 'shutdown':
      return c.shutdown(FAULTED_NODE);
    case 'router-fail':
      return c.routerFail(FAULTED_NODE);
    case 'partition':
      return c.partition(FAULTED_NODE);
  }
}

async function restore(c: NetnsCluster, kind: FaultKind): Promise<void> {
  switch (kind) {
    case 'host-loss':
      c.hostBack(FAULTED_NODE);
      return c.start(FAULTED_NODE);
    case 'crash':
    case 'shutdown':
      return c.start(FAULTED_NODE);
    case 'router-fail':
      c.routerRecover(FAULTED_NODE);
      return;
    case 'partition':
      c.heal(FAULTED_NODE);
      return;
  }
}

/**
 * How close to the fault an advert must be for its order against the fault to count as unknown: the
 * partition's `bridge` command takes a few ms to act, and the observer's reading of an advert and keepalived's
 * own timers trail by a few ms more (two partitions out of ~40 needed 11 and 39 ms). Generous on purpose: an
 * ambiguous incident is only simulated twice.
 */
const OBSERVER_SLACK_US = 50_000;

/**
 * Fault − the old master's last advert that may have crossed before the fault was certainly in effect, and
 * the alternative (the advert before it) when that one falls inside the fault's uncertainty window.
 */
function advertPhase(adverts: readonly AdvertEvent[], node: string, vrid: number, faultUs: number, faultEndUs: number) {
  const mine = adverts.filter((a) => a.node === node && a.vrid === vrid && a.priority > 0 && a.atUs <= Math.max(faultUs, faultEndUs) + OBSERVER_SLACK_US);
  const last = mine[mine.length - 1];
  if (last === undefined) return { sinceAdvertMs: null, altSinceAdvertMs: null };
  const prev = mine[mine.length - 2];
  const ambiguous = last.atUs >= faultUs - OBSERVER_SLACK_US && prev !== undefined;
  return { sinceAdvertMs: (faultUs - last.atUs) / 1000, altSinceAdvertMs: ambiguous ? (faultUs - prev!.atUs) / 1000 : null };
}

function firstZeroAdvert(adverts: readonly AdvertEvent[], node: string, vrid: number, afterUs: number): number | null {
  const a = adverts.find((x) => x.node === node && x.vrid === vrid && x.priority === 0 && x.atUs >= afterUs);
  return a ? (a.atUs - afterUs) / 1000 : null;
}

/** Gaps between consecutive adverts of one (node, vrid), ms, when about one interval (a master's period). */
export function advertPeriodsMs(adverts: readonly AdvertEvent[]): number[] {
  const last = new Map<string, number>();
  const out: number[] = [];
  const A = FIDELITY_ADVERT_MS * 1000;
  for (const a of adverts) {
    if (a.priority === 0) continue;
    const key = `${a.node}/${a.vrid}`;
    const prev = last.get(key);
    if (prev !== undefined && a.atUs - prev > 0.5 * A && a.atUs - prev < 1.5 * A) out.push((a.atUs - prev) / 1000);
    last.set(key, a.atUs);
  }
  return out;
}

function lastAdd(events: readonly AddressEvent[], node: string, vip: string, beforeUs: number): number | null {
  let at: number | null = null;
  for (const e of events) if (e.added && e.node === node && e.address === vip && e.atUs <= beforeUs) at = e.atUs;
  return at;
}

/** The first node not holding `vip` at the fault that adds it after the fault. */
function firstTakeover(events: readonly AddressEvent[], vip: string, faultUs: number, holders: readonly string[]): AddressEvent | null {
  return events.find((e) => e.added && e.address === vip && e.atUs >= faultUs && !holders.includes(e.node)) ?? null;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
