import { z } from 'zod';

/**
 * The `generate` section of a scenario: seeded churn and fault generators, expanded into v1 events.
 * Rates are per simulated hour and drive Poisson processes; every generator draws from its own stream
 * (`generate/<name>`), so switching one on or changing its knobs never moves another's draws.
 */
const ms = z.number().int().min(0);
const perHour = z.number().min(0).max(3_600_000).default(0);
const probability = z.number().min(0).max(1).default(0);
const count = z.number().int().min(0);
/** A Kubernetes port name (a DNS label), as the event log requires. */
const portName = z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, { error: 'expected a port name: a DNS label (lowercase letters, digits and -, at most 63)' });

/** The simulated application world the churn runs in: namespaces, services, pods on worker nodes. */
export const WorldSpecSchema = z
  .object({
    namespaces: count.min(1).max(10_000).default(4),
    /** 0 for fault-only scenarios (no initial endpoints.set); churn generators need at least one. */
    services: count.max(1_000_000).default(20),
    endpointsPerService: count.max(10_000).default(3),
    /** Worker nodes pods run on (what drains empty); not the router nodes of `cluster`. */
    workers: count.min(1).max(100_000).default(6),
    port: z.number().int().min(1).max(65535).default(8080),
    /**
     * More named ports every service exposes (a multi-port service, e.g. metrics besides http). With any,
     * `port` is named `portName`, and each pod is an endpoint per port, listed port by port.
     */
    extraPorts: z.array(z.object({ name: portName, port: z.number().int().min(1).max(65535) }).strict()).default([]),
    portName: portName.default('http'),
    domain: z.string().min(1).default('apps.example.com'),
  })
  .strict()
  .superRefine((w, ctx) => {
    const names = [w.portName, ...w.extraPorts.map((p) => p.name)];
    const ports = [w.port, ...w.extraPorts.map((p) => p.port)];
    w.extraPorts.forEach((p, i) => {
      if (names.indexOf(p.name) !== i + 1) ctx.addIssue({ code: 'custom', path: ['extraPorts', i, 'name'], message: `port name '${p.name}' is used twice` });
      if (ports.indexOf(p.port) !== i + 1) ctx.addIssue({ code: 'custom', path: ['extraPorts', i, 'port'], message: `port ${p.port} is used twice` });
    });
  });

export const TerminationMixSchema = z
  .object({
    http: z.number().min(0).default(0),
    edge: z.number().min(0).default(0),
    passthrough: z.number().min(0).default(0),
    reencrypt: z.number().min(0).default(0),
  })
  .strict()
  .refine((m) => m.http + m.edge + m.passthrough + m.reencrypt > 0, { message: 'at least one weight of the mix must be above 0' });

export const RoutesSpecSchema = z
  .object({
    /** Routes present at the start. */
    initial: count.max(10_000_000).default(0),
    createPerHour: perHour,
    deletePerHour: perHour,
    /** Relative weights of the route kinds. */
    mix: TerminationMixSchema.default({ http: 1, edge: 1, passthrough: 1, reencrypt: 0 }),
    /** Share of edge/reencrypt routes carrying their own certificate (so they match no default blueprint). */
    customCertificates: probability,
    /** Share of routes carrying backend-modifying annotations (timeout, balance, …). */
    annotations: probability,
    /** Share of http/edge/reencrypt routes with a path. */
    paths: probability,
    /**
     * Share of new routes given the host of a live generated route instead of their own. The router admits
     * one holder per host and path; routes of another namespace wait for the holder unless
     * `router.disableNamespaceOwnershipCheck` (docs/fidelity-config-manager.md, "Route admission").
     */
    sharedHosts: probability,
    /**
     * Share of new routes with `wildcardPolicy: Subdomain`, each on a domain of its own (`www.<name>.<domain>`,
     * served as `*.<name>.<domain>`); the router admits them only with `router.allowWildcardRoutes`.
     */
    wildcards: probability,
    /** Creations stop while this many generated routes exist. */
    max: count.optional(),
    /** `spec.port.targetPort` of every route (a port name or number): with `world.extraPorts`, which port it serves. */
    targetPort: z.union([portName, z.number().int().min(1).max(65535)]).optional(),
  })
  .strict();

export const ScaleSpecSchema = z
  .object({
    perHour: perHour,
    min: count.default(1),
    max: count.default(10),
    /** Largest change of one scale event, in pods. */
    step: count.min(1).default(1),
  })
  .strict()
  .refine((s) => s.min <= s.max, { message: 'min must not exceed max', path: ['min'] });

export const RolloutsSpecSchema = z
  .object({
    perHour: perHour,
    at: z.array(ms).default([]),
    /** Pods replaced per batch (maxSurge = maxUnavailable = batchSize). */
    batchSize: count.min(1).default(1),
    batchIntervalMs: ms.min(1).default(10_000),
    /** A new pod is listed not-ready first, then ready after this long. */
    readyAfterMs: ms.default(5_000),
  })
  .strict();

export const DrainsSpecSchema = z
  .object({
    perHour: perHour,
    at: z.array(ms).default([]),
    /** Evicted pods reappear on other workers after this long (with new IPs). */
    rescheduleAfterMs: ms.default(10_000),
    /** A drained worker takes no new pods for this long. */
    cordonMs: ms.default(600_000),
  })
  .strict();

export const BurstsSpecSchema = z
  .object({
    perHour: perHour,
    at: z.array(ms).default([]),
    /** Services that scale out together in one burst. */
    services: count.min(1).default(1),
    /** Pods per service at the top of a burst. */
    scaleTo: count.min(1).default(20),
    /** HPA scale-up step: at most max(4, current) more pods per step. */
    stepMs: ms.min(1).default(15_000),
    /** Time at the top before scaling back in one step. */
    holdMs: ms.default(300_000),
  })
  .strict();

export const FAULT_KINDS = ['node.fail', 'node.shutdown', 'node.stall', 'router.fail', 'network.partition'] as const;

export const ScheduledFaultSchema = z
  .object({
    at: ms,
    type: z.enum(FAULT_KINDS),
    /** The router node (not needed for a partition, which isolates `node` or uses `groups`). */
    node: z.string().min(1).optional(),
    groups: z.array(z.array(z.string().min(1)).min(1)).min(2).optional(),
    /** Recover (or heal) after this long; omitted: never within the run. For a stall, its length (default downMs). */
    recoverAfterMs: ms.optional(),
  })
  .strict()
  .refine((f) => f.type === 'network.partition' || f.node !== undefined, {
    message: 'a node fault needs `node`',
    path: ['node'],
  })
  .refine((f) => f.type !== 'network.partition' || f.node !== undefined || f.groups !== undefined, {
    message: 'a partition needs `node` (isolated from the rest) or `groups`',
    path: ['groups'],
  });

export const FaultsSpecSchema = z
  .object({
    /** Router nodes faults may hit; defaults to the names in `cluster.nodes`. */
    nodes: z.array(z.string().min(1)).min(1).optional(),
    schedule: z.array(ScheduledFaultSchema).default([]),
    nodeFailPerHour: perHour,
    nodeShutdownPerHour: perHour,
    routerCrashPerHour: perHour,
    /** keepalived on a node freezes (a stalled master still believes it is master) for downMs. */
    nodeStallPerHour: perHour,
    partitionPerHour: perHour,
    /** How long a rate-drawn fault lasts before recovery or heal. */
    downMs: ms.min(1).default(60_000),
  })
  .strict();

export const GenerateSpecSchema = z
  .object({
    /** Generators start here … */
    startMs: ms.default(0),
    /** … and start nothing new after startMs + durationMs (defaults to sim.durationMs). */
    durationMs: ms.min(1).optional(),
    world: WorldSpecSchema.default(WorldSpecSchema.parse({})),
    routes: RoutesSpecSchema.optional(),
    scale: ScaleSpecSchema.optional(),
    rollouts: RolloutsSpecSchema.optional(),
    drains: DrainsSpecSchema.optional(),
    bursts: BurstsSpecSchema.optional(),
    faults: FaultsSpecSchema.optional(),
  })
  .strict()
  .superRefine((g, ctx) => {
    const churn = (['routes', 'scale', 'rollouts', 'drains', 'bursts'] as const).filter((k) => g[k] !== undefined);
    if (g.world.services === 0 && churn.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['world', 'services'], message: `${churn.join(', ')} need services to act on: world.services must be at least 1` });
    }
  });

export type GenerateSpecInput = z.input<typeof GenerateSpecSchema>;
export type GenerateSpec = z.output<typeof GenerateSpecSchema>;
export type WorldSpec = z.output<typeof WorldSpecSchema>;
export type RoutesSpec = z.output<typeof RoutesSpecSchema>;
export type ScaleSpec = z.output<typeof ScaleSpecSchema>;
export type RolloutsSpec = z.output<typeof RolloutsSpecSchema>;
export type DrainsSpec = z.output<typeof DrainsSpecSchema>;
export type BurstsSpec = z.output<typeof BurstsSpecSchema>;
export type FaultsSpec = z.output<typeof FaultsSpecSchema>;
export type ScheduledFault = z.output<typeof ScheduledFaultSchema>;
