import type { InputEvent } from '../../core/events.ts';
import type { RandomStream } from '../random-streams.ts';
import type { ChurnContext } from './churn-context.ts';
import type { FaultsSpec, ScheduledFault } from './spec.ts';

type FaultKind = ScheduledFault['type'];

/**
 * Router-node faults at given times or as Poisson processes: node failures (hard), shutdowns (graceful),
 * keepalived stalls, router (HAProxy) crashes and network partitions, each undone after its duration. A rate-drawn fault only
 * hits a node that is up, and only one partition stands at a time. Stream `generate/faults`.
 */
export function installFaults(ctx: ChurnContext, spec: FaultsSpec, rng: RandomStream, startMs: number): void {
  const nodes = spec.nodes ?? [];
  const down = new Set<string>();
  let partitioned = false;

  const inject = (at: number, kind: FaultKind, node: string | undefined, groups: string[][] | undefined, recoverAfterMs: number | undefined): void => {
    if (kind === 'network.partition') {
      const g = groups ?? [[node!], nodes.filter((n) => n !== node)].filter((x) => x.length > 0);
      partitioned = true;
      ctx.emit({ at, type: 'network.partition', groups: g });
      if (recoverAfterMs !== undefined) {
        ctx.at(at + recoverAfterMs, (t) => {
          partitioned = false;
          ctx.emit({ at: t, type: 'network.heal' });
        });
      }
      return;
    }
    const n = node!;
    down.add(n);
    if (kind === 'node.stall') {
      // A stall ends by itself after its duration: no recovery event.
      const durationMs = recoverAfterMs ?? spec.downMs;
      ctx.emit({ at, type: 'node.stall', node: n, durationMs });
      ctx.at(at + durationMs, () => down.delete(n));
      return;
    }
    ctx.emit({ at, type: kind, node: n } as InputEvent);
    if (recoverAfterMs !== undefined) {
      const recover = kind === 'router.fail' ? 'router.recover' : 'node.recover';
      ctx.at(at + recoverAfterMs, (t) => {
        down.delete(n);
        ctx.emit({ at: t, type: recover, node: n });
      });
    }
  };

  for (const f of [...spec.schedule].sort((a, b) => a.at - b.at)) {
    ctx.at(f.at, (at) => inject(at, f.type, f.node, f.groups, f.recoverAfterMs));
  }

  const random = (kind: FaultKind) => (at: number) => {
    if (kind === 'network.partition' && (partitioned || nodes.length < 2)) return;
    const up = nodes.filter((n) => !down.has(n));
    if (up.length === 0) return;
    inject(at, kind, up[rng.int(up.length)]!, undefined, spec.downMs);
  };
  ctx.poisson(rng, spec.nodeFailPerHour, startMs, random('node.fail'));
  ctx.poisson(rng, spec.nodeShutdownPerHour, startMs, random('node.shutdown'));
  ctx.poisson(rng, spec.routerCrashPerHour, startMs, random('router.fail'));
  ctx.poisson(rng, spec.nodeStallPerHour, startMs, random('node.stall'));
  ctx.poisson(rng, spec.partitionPerHour, startMs, random('network.partition'));
}
