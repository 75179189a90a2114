import type { RandomStream } from '../random-streams.ts';
import type { ChurnContext } from './churn-context.ts';
import type { BurstsSpec, DrainsSpec, RolloutsSpec, ScaleSpec } from './spec.ts';
import type { Service } from './world.ts';

/** Every service's initial endpoints at the start, in chunks (one `endpoints.set` per service). */
export function installInitialEndpoints(ctx: ChurnContext, startMs: number): void {
  const CHUNK = 1000;
  let next = 0;
  const chunk = (at: number): void => {
    const services = ctx.world.services;
    const end = Math.min(services.length, next + CHUNK);
    for (; next < end; next++) ctx.emit(ctx.world.endpointsEvent(services[next]!, at));
    if (next < services.length) ctx.at(at, chunk);
  };
  if (ctx.world.services.length > 0) ctx.at(startMs, chunk);
}

/** Random scale up/down of one service by 1..step pods within [min, max]. Stream `generate/scale`. */
export function installScale(ctx: ChurnContext, spec: ScaleSpec, rng: RandomStream, startMs: number): void {
  ctx.poisson(rng, spec.perHour, startMs, (at) => {
    const services = ctx.world.services;
    const svc = services[rng.int(services.length)]!;
    const n = svc.pods.size;
    const up = n <= spec.min ? true : n >= spec.max ? false : rng.chance(0.5);
    const delta = 1 + rng.int(spec.step);
    if (up) ctx.world.scaleUp(svc, Math.min(delta, spec.max - n), rng, at, true);
    else ctx.world.scaleDown(svc, Math.min(delta, n - spec.min));
    if (svc.pods.size !== n) ctx.emit(ctx.world.endpointsEvent(svc, at));
  });
}

/**
 * Rolling deployments: every pod of a service replaced in batches of `batchSize`. Each batch removes old
 * pods and adds as many new ones (new IPs, listed not-ready), which turn ready `readyAfterMs` later; the
 * next batch starts `batchIntervalMs` after the previous. Stream `generate/rollouts`.
 */
export function installRollouts(ctx: ChurnContext, spec: RolloutsSpec, rng: RandomStream, startMs: number): void {
  const rolling = new Set<Service>();
  const start = (at: number): void => {
    const services = ctx.world.services;
    const svc = services[rng.int(services.length)]!;
    if (rolling.has(svc) || svc.pods.size === 0) return;
    rolling.add(svc);
    const old = new Set(svc.pods.keys());
    const batch = (now: number): void => {
      const take = [...old].filter((name) => svc.pods.has(name)).slice(0, spec.batchSize);
      if (take.length === 0) {
        rolling.delete(svc);
        return;
      }
      for (const name of take) {
        svc.pods.delete(name);
        old.delete(name);
      }
      const fresh = ctx.world.scaleUp(svc, take.length, rng, now, spec.readyAfterMs === 0);
      ctx.emit(ctx.world.endpointsEvent(svc, now));
      if (spec.readyAfterMs > 0) {
        ctx.at(now + spec.readyAfterMs, (t) => {
          let changed = false;
          for (const p of fresh) {
            if (svc.pods.get(p.name) === p && !p.ready) {
              p.ready = true;
              changed = true;
            }
          }
          if (changed) ctx.emit(ctx.world.endpointsEvent(svc, t));
        });
      }
      ctx.at(now + spec.batchIntervalMs, batch);
    };
    batch(at);
  };
  ctx.poisson(rng, spec.perHour, startMs, start);
  ctx.fixed(spec.at, start);
}

/**
 * Node drains: a worker is cordoned and every pod on it evicted (one `endpoints.set` per service touched);
 * the evicted pods come back on other workers with new IPs `rescheduleAfterMs` later. Stream `generate/drains`.
 */
export function installDrains(ctx: ChurnContext, spec: DrainsSpec, rng: RandomStream, startMs: number): void {
  const drain = (at: number): void => {
    const world = ctx.world;
    const open = world.cordonedUntil.flatMap((until, w) => (until <= at ? [w] : []));
    if (open.length === 0) return;
    const worker = open[rng.int(open.length)]!;
    world.cordonedUntil[worker] = at + spec.cordonMs;
    const evicted: Array<[Service, number]> = [];
    for (const svc of world.services) {
      let n = 0;
      for (const [name, pod] of svc.pods) {
        if (pod.worker === worker) {
          svc.pods.delete(name);
          n++;
        }
      }
      if (n > 0) {
        evicted.push([svc, n]);
        ctx.emit(world.endpointsEvent(svc, at));
      }
    }
    if (evicted.length === 0) return;
    ctx.at(at + spec.rescheduleAfterMs, (t) => {
      for (const [svc, n] of evicted) {
        world.scaleUp(svc, n, rng, t, true);
        ctx.emit(world.endpointsEvent(svc, t));
      }
    });
  };
  ctx.poisson(rng, spec.perHour, startMs, drain);
  ctx.fixed(spec.at, drain);
}

/**
 * Autoscaling bursts: `services` services scale out to `scaleTo` pods in HPA steps (at most max(4, current)
 * more pods every `stepMs`), hold for `holdMs`, then scale back in one step. Stream `generate/bursts`.
 */
export function installBursts(ctx: ChurnContext, spec: BurstsSpec, rng: RandomStream, startMs: number): void {
  const bursting = new Set<Service>();
  const burst = (at: number): void => {
    const services = ctx.world.services;
    const chosen: Array<[Service, number]> = [];
    for (let i = 0; i < spec.services && chosen.length < services.length - bursting.size; i++) {
      const svc = services[rng.int(services.length)]!;
      if (bursting.has(svc) || svc.pods.size >= spec.scaleTo) continue;
      bursting.add(svc);
      chosen.push([svc, svc.pods.size]);
    }
    if (chosen.length === 0) return;
    const step = (now: number): void => {
      let more = false;
      for (const [svc] of chosen) {
        const n = svc.pods.size;
        if (n >= spec.scaleTo) continue;
        ctx.world.scaleUp(svc, Math.min(spec.scaleTo - n, Math.max(4, n)), rng, now, true);
        ctx.emit(ctx.world.endpointsEvent(svc, now));
        if (svc.pods.size < spec.scaleTo) more = true;
      }
      if (more) ctx.at(now + spec.stepMs, step);
      else ctx.at(now + spec.holdMs, scaleIn);
    };
    const scaleIn = (now: number): void => {
      for (const [svc, original] of chosen) {
        bursting.delete(svc);
        if (svc.pods.size <= original) continue;
        ctx.world.scaleDown(svc, svc.pods.size - original);
        ctx.emit(ctx.world.endpointsEvent(svc, now));
      }
    };
    step(at);
  };
  ctx.poisson(rng, spec.perHour, startMs, burst);
  ctx.fixed(spec.at, burst);
}
