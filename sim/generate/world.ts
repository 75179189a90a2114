import type { Endpoint } from '../../core/endpoint.ts';
import type { InputEvent } from '../../core/events.ts';
import type { RandomStream } from '../random-streams.ts';
import type { WorldSpec } from './spec.ts';

/** One pod behind a service: its address, the worker it runs on, and whether it passes readiness. */
export interface Pod {
  name: string;
  ip: string;
  worker: number;
  ready: boolean;
}

export interface Service {
  namespace: string;
  name: string;
  /** In creation order: the newest pods are last (scale-down removes those first, as a ReplicaSet does). */
  pods: Map<string, Pod>;
}

/**
 * The application world churn generators act on: services with pods on worker nodes. Generators share it,
 * so every `endpoints.set` lists a service's complete current set whichever generator changed it. Each
 * generator passes its own random stream to any choice it makes, keeping the streams independent.
 */
export class World {
  readonly services: Service[] = [];
  /** Per worker, the time until which it takes no new pods (drained). */
  readonly cordonedUntil: number[];
  private ipSeq = 1;
  private podSeq = 0;

  constructor(readonly spec: WorldSpec) {
    this.cordonedUntil = new Array<number>(spec.workers).fill(-1);
    for (let i = 0; i < spec.services; i++) {
      const svc: Service = { namespace: `ns-${i % spec.namespaces}`, name: `svc-${i}`, pods: new Map() };
      // Initial placement is round robin, not random: it is the same whatever generators are switched on.
      for (let j = 0; j < spec.endpointsPerService; j++) this.addPod(svc, (i * spec.endpointsPerService + j) % spec.workers, true);
      this.services.push(svc);
    }
  }

  /** A fresh pod IP from 10.128.0.0/9, never reused within a run (a replaced pod gets a new address). */
  private nextIp(): string {
    const n = this.ipSeq++ % (127 * 65536);
    return `10.${128 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
  }

  addPod(svc: Service, worker: number, ready: boolean): Pod {
    const pod: Pod = { name: `${svc.name}-${(this.podSeq++).toString(36)}`, ip: this.nextIp(), worker, ready };
    svc.pods.set(pod.name, pod);
    return pod;
  }

  /** A worker that takes new pods at `at`, drawn from `rng`; any worker if all are cordoned. */
  pickWorker(rng: RandomStream, at: number): number {
    const open: number[] = [];
    for (let w = 0; w < this.cordonedUntil.length; w++) if (this.cordonedUntil[w]! <= at) open.push(w);
    if (open.length === 0) return rng.int(this.cordonedUntil.length);
    return open[rng.int(open.length)]!;
  }

  /** Adds `n` ready-or-not pods on workers drawn from `rng`. */
  scaleUp(svc: Service, n: number, rng: RandomStream, at: number, ready: boolean): Pod[] {
    const added: Pod[] = [];
    for (let i = 0; i < n; i++) added.push(this.addPod(svc, this.pickWorker(rng, at), ready));
    return added;
  }

  /** Removes the `n` newest pods. */
  scaleDown(svc: Service, n: number): void {
    const names = [...svc.pods.keys()];
    for (const name of names.slice(Math.max(0, names.length - n))) svc.pods.delete(name);
  }

  endpointsEvent(svc: Service, at: number): InputEvent {
    const endpoints: Endpoint[] = [];
    const multi = this.spec.extraPorts.length > 0;
    for (const p of svc.pods.values()) {
      const e: Endpoint = { ip: p.ip, port: this.spec.port, name: p.name };
      if (!p.ready) e.ready = false;
      if (multi) e.portName = this.spec.portName;
      endpoints.push(e);
    }
    // Port by port, as the router lists a multi-port service's endpoints.
    for (const extra of this.spec.extraPorts) {
      for (const p of svc.pods.values()) {
        const e: Endpoint = { ip: p.ip, port: extra.port, name: p.name, portName: extra.name };
        if (!p.ready) e.ready = false;
        endpoints.push(e);
      }
    }
    return { at, type: 'endpoints.set', namespace: svc.namespace, service: svc.name, endpoints };
  }
}
