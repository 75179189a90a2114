/**
 * Tracked scripts (keepalived `vrrp_script` + `track_script`): each check result moves a script between OK and
 * KO after `rise` consecutive successes or `fall` consecutive failures. A script with weight 0 puts the instance
 * in FAULT while KO; a positive weight adds to the priority while OK, a negative one subtracts while KO.
 * The effective priority is clamped to 1..254; an address owner (255) keeps 255.
 */
export interface TrackSpec {
  script: string;
  weight: number;
  rise: number;
  fall: number;
  intervalMs: number;
}

export interface TrackStatus {
  ok: boolean;
  /** Consecutive results contrary to `ok` seen so far. */
  streak: number;
}

/** keepalived starts a script in the state given by its first result unless `init_fail`; we start OK. */
export function initialTrackStatus(): TrackStatus {
  return { ok: true, streak: 0 };
}

/** Fold one check result into a script's status. */
export function applyCheckResult(spec: TrackSpec, status: TrackStatus, success: boolean): TrackStatus {
  if (success === status.ok) return status.streak === 0 ? status : { ok: status.ok, streak: 0 };
  const streak = status.streak + 1;
  const needed = status.ok ? spec.fall : spec.rise;
  return streak >= needed ? { ok: !status.ok, streak: 0 } : { ok: status.ok, streak };
}

export interface PriorityView {
  /** Effective priority, 1..255. */
  priority: number;
  /** A weight-0 script is KO: the instance must be in FAULT. */
  fault: boolean;
}

export function effectivePriority(basePriority: number, specs: readonly TrackSpec[], statuses: readonly TrackStatus[]): PriorityView {
  let fault = false;
  let delta = 0;
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i]!;
    const ok = statuses[i]!.ok;
    if (spec.weight === 0) {
      if (!ok) fault = true;
    } else if (spec.weight > 0) {
      if (ok) delta += spec.weight;
    } else if (!ok) {
      delta += spec.weight;
    }
  }
  if (basePriority === 255) return { priority: 255, fault };
  return { priority: Math.min(254, Math.max(1, basePriority + delta)), fault };
}
