import { z } from 'zod';
import { ClusterConfigError } from '../../core/vrrp/instance-spec.ts';
import { expandVirtualIps, parsePreemption } from '../../core/vrrp/ipfailover.ts';

/**
 * The scenario's `cluster` section: router nodes, the network between them and keepalived, either as explicit
 * VRRP instances (`keepalived.instances`) or generated the way OpenShift ipfailover does it (`ipfailover`).
 * Strict: an unknown key is as likely a typo as a mistake. Defaults are keepalived's own unless noted.
 */
const name = z.string().min(1);
const ms = z.number().min(0);

export const ClusterNodeSchema = z.object({ name, ip: z.ipv4() }).strict();

export const LinkOverrideSchema = z
  .object({
    from: name,
    to: name,
    delayMs: ms.optional(),
    jitterMs: ms.optional(),
    loss: z.number().min(0).max(1).optional(),
    /** Only from → to; by default both directions. */
    oneWay: z.boolean().default(false),
  })
  .strict();

export const NetworkSchema = z
  .object({
    /** One-way delay of every link. */
    delayMs: ms.default(0.2),
    /** Uniform extra delay in [0, jitterMs) per packet. */
    jitterMs: ms.default(0.1),
    /** Probability a packet is lost. */
    loss: z.number().min(0).max(1).default(0),
    links: z.array(LinkOverrideSchema).default([]),
  })
  .strict();

export const TrackScriptSchema = z
  .object({
    /** `router-check` is the router's check script (a TCP connect to the node's watch port); others succeed until a `script.fail` event. */
    script: name.default('router-check'),
    weight: z.number().int().min(-253).max(253).default(0),
    fall: z.number().int().min(1).default(1),
    rise: z.number().int().min(1).default(1),
    intervalMs: z.number().int().min(1).default(1000),
  })
  .strict();

export const VrrpInstanceSchema = z
  .object({
    vip: z.ipv4(),
    vrid: z.number().int().min(1).max(255),
    /** Base priority per node; nodes not named get `keepalived.defaultPriority`. */
    priorities: z.record(z.string(), z.number().int().min(1).max(255)).default({}),
    /** false = nopreempt. */
    preempt: z.boolean().default(true),
    preemptDelayMs: z.number().int().min(0).max(1_000_000).default(0),
    track: z.array(TrackScriptSchema).default([]),
    /** This instance's VRRP version (keepalived's per-instance `version`); default `keepalived.version`. */
    version: z.union([z.literal(2), z.literal(3)]).optional(),
    /** This instance's `advert_int`; default `keepalived.advertIntervalMs` (a node's own interval still wins). */
    advertIntervalMs: z.number().int().min(10).max(255_000).optional(),
    /** Nodes whose config says `state MASTER` for this instance (the others say `state BACKUP`). */
    masterNodes: z.array(name).default([]),
  })
  .strict();

export const KeepalivedSchema = z
  .object({
    version: z.union([z.literal(2), z.literal(3)]).default(2),
    advertIntervalMs: z.number().int().min(10).max(255_000).default(1000),
    downTimerAdverts: z.number().int().min(1).max(100).default(3),
    /** `garp_master_delay`, which keepalived reads in whole seconds (a fraction is "invalid - ignoring": 5 s). */
    garpMasterDelayMs: z
      .number()
      .int()
      .min(0)
      .max(4_294_000)
      .multipleOf(1000, { message: 'keepalived reads garp_master_delay in whole seconds (a fraction is ignored, leaving 5 s): give a multiple of 1000' })
      .default(5000),
    unicast: z.boolean().default(false),
    defaultPriority: z.number().int().min(1).max(255).default(100),
    /** Misconfiguration: nodes whose keepalived uses another advert interval (v2 drops mismatched adverts). */
    advertIntervalMsByNode: z.record(z.string(), z.number().int().min(10).max(255_000)).default({}),
    instances: z.array(VrrpInstanceSchema).default([]),
  })
  .strict();

export const IpfailoverSchema = z
  .object({
    /** OPENSHIFT_HA_VIRTUAL_IPS: comma or space separated addresses and `a.b.c.X-Y` ranges. */
    virtualIps: z.string().min(1),
    /** OPENSHIFT_HA_VRRP_ID_OFFSET: instance c (1-based) gets virtual_router_id offset + c. */
    vrrpIdOffset: z.number().int().min(0).max(254).default(0),
    /** OPENSHIFT_HA_MONITOR_PORT: the check script connects here; 0 means no check (`script "true"`). */
    watchPort: z.number().int().min(0).max(65535).default(80),
    checkIntervalMs: z.number().int().min(1000).default(2000),
    /** OPENSHIFT_HA_PREEMPTION: "preempt_delay N" (seconds), "preempt" or "nopreempt". */
    preemption: z.string().default('preempt_delay 300'),
    unicastPeers: z.boolean().default(false),
    /** OPENSHIFT_HA_REPLICA_COUNT; defaults to the number of nodes (one keepalived pod per node). */
    replicas: z.number().int().min(1).optional(),
    /** OPENSHIFT_HA_VIP_GROUPS: the VIPs are shared out over this many VRRP instances; 0 for one per VIP. */
    vipGroups: z.number().int().min(0).default(0),
  })
  .strict();

export const MembershipSchema = z
  .object({
    /** Unicast: time until the other nodes' configs are regenerated with a joined/left node's address. */
    configRegenDelayMs: z.number().int().min(0).default(30_000),
  })
  .strict();

export const ClusterSchema = z
  .object({
    nodes: z.array(ClusterNodeSchema).min(1),
    network: NetworkSchema.default(NetworkSchema.parse({})),
    keepalived: KeepalivedSchema.default(KeepalivedSchema.parse({})),
    ipfailover: IpfailoverSchema.optional(),
    membership: MembershipSchema.default(MembershipSchema.parse({})),
  })
  .strict()
  .superRefine((c, ctx) => {
    const names = new Set<string>();
    const ips = new Map<string, string>();
    c.nodes.forEach((n, i) => {
      if (names.has(n.name)) ctx.addIssue({ code: 'custom', path: ['nodes', i, 'name'], message: `duplicate node '${n.name}'` });
      names.add(n.name);
      // Two nodes answering for one address make every GARP a conflict, and the run never settles.
      const other = ips.get(n.ip);
      if (other !== undefined) ctx.addIssue({ code: 'custom', path: ['nodes', i, 'ip'], message: `duplicate address ${n.ip} (also node '${other}')` });
      else ips.set(n.ip, n.name);
    });
    const known = (node: string, path: (string | number)[]): void => {
      if (!names.has(node)) ctx.addIssue({ code: 'custom', path, message: `unknown node '${node}'` });
    };
    c.network.links.forEach((l, i) => {
      known(l.from, ['network', 'links', i, 'from']);
      known(l.to, ['network', 'links', i, 'to']);
    });
    for (const node of Object.keys(c.keepalived.advertIntervalMsByNode)) known(node, ['keepalived', 'advertIntervalMsByNode', node]);
    const k = c.keepalived;
    // Each interval against the version of every instance that sends it: an instance's own version and
    // interval, else keepalived's; a node's own interval goes out on all its instances.
    const intervalIssue = (version: 2 | 3, ms: number, path: (string | number)[]): void => {
      const problem = advertIntervalProblem(version, ms);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', path, message: problem });
    };
    const versions = new Set<2 | 3>(k.instances.length === 0 ? [k.version] : []);
    let defaultUsedBy: 2 | 3 | undefined = k.instances.length === 0 ? k.version : undefined;
    k.instances.forEach((inst, i) => {
      const version = inst.version ?? k.version;
      versions.add(version);
      if (inst.advertIntervalMs !== undefined) intervalIssue(version, inst.advertIntervalMs, ['keepalived', 'instances', i, 'advertIntervalMs']);
      else if (defaultUsedBy !== 2) defaultUsedBy = version;
    });
    if (defaultUsedBy !== undefined) intervalIssue(defaultUsedBy, k.advertIntervalMs, ['keepalived', 'advertIntervalMs']);
    const strictest = versions.has(2) ? 2 : 3;
    for (const [node, ms] of Object.entries(k.advertIntervalMsByNode)) intervalIssue(strictest, ms, ['keepalived', 'advertIntervalMsByNode', node]);
    const vrids = new Map<number, number>();
    const vips = new Map<string, number>();
    c.keepalived.instances.forEach((inst, i) => {
      const prev = vrids.get(inst.vrid);
      if (prev !== undefined)
        ctx.addIssue({ code: 'custom', path: ['keepalived', 'instances', i, 'vrid'], message: `duplicate vrid ${inst.vrid} (also instances[${prev}])` });
      vrids.set(inst.vrid, i);
      // Two instances electing a master each for one address: both masters answer for it (split brain by design).
      const sameVip = vips.get(inst.vip);
      if (sameVip !== undefined) ctx.addIssue({ code: 'custom', path: ['keepalived', 'instances', i, 'vip'], message: `duplicate VIP ${inst.vip} (also instances[${sameVip}]); one instance holds a VIP` });
      else vips.set(inst.vip, i);
      const node = c.nodes.find((n) => n.ip === inst.vip);
      if (node !== undefined) ctx.addIssue({ code: 'custom', path: ['keepalived', 'instances', i, 'vip'], message: `the VIP ${inst.vip} is node '${node.name}''s own address` });
      for (const node of Object.keys(inst.priorities)) known(node, ['keepalived', 'instances', i, 'priorities', node]);
      inst.masterNodes.forEach((node, j) => known(node, ['keepalived', 'instances', i, 'masterNodes', j]));
    });
    if (c.ipfailover) {
      const ipf = c.ipfailover;
      const issue = (key: 'virtualIps' | 'preemption', f: () => void): void => {
        try {
          f();
        } catch (err) {
          if (!(err instanceof ClusterConfigError)) throw err;
          ctx.addIssue({ code: 'custom', path: ['ipfailover', key], message: err.message.replace(/^[^:]*: /, '') });
        }
      };
      issue('virtualIps', () => {
        const all = expandVirtualIps(ipf.virtualIps);
        const node = c.nodes.find((n) => all.includes(n.ip));
        if (node !== undefined) throw new ClusterConfigError('virtualIps', `${node.ip} is node '${node.name}''s own address`);
        const n = all.length;
        if (ipf.vrrpIdOffset + n > 255)
          throw new ClusterConfigError('virtualIps', `${n} VIPs from vrrpIdOffset ${ipf.vrrpIdOffset} need VRRP ids up to ${ipf.vrrpIdOffset + n}; at most 255 ids exist`);
      });
      issue('preemption', () => parsePreemption(ipf.preemption));
    }
    const hasInstances = c.keepalived.instances.length > 0;
    if (hasInstances && c.ipfailover)
      ctx.addIssue({ code: 'custom', path: ['ipfailover'], message: 'give either keepalived.instances or ipfailover, not both' });
    if (!hasInstances && !c.ipfailover)
      ctx.addIssue({ code: 'custom', path: ['keepalived', 'instances'], message: 'no VRRP instances: give keepalived.instances or ipfailover' });
  });

/**
 * What an advert can carry. VRRPv2 (RFC 3768 §5.3.7) has an 8-bit Adver Int in whole seconds, 1 to 255;
 * VRRPv3 (RFC 5798 §5.2.7) a 12-bit Max Adver Int in centiseconds, 1 to 4095 (10 ms to 40.95 s). Any other
 * value would be rounded by keepalived, and the run would not be the one asked for.
 */
export function advertIntervalProblem(version: 2 | 3, ms: number): string | undefined {
  if (version === 2 && (ms % 1000 !== 0 || ms > 255_000)) {
    return `VRRPv2 carries the advert interval in whole seconds (1 to 255), so ${ms} ms cannot be sent as it is: give a multiple of 1000, or keepalived.version: 3 for centiseconds`;
  }
  if (version === 3 && (ms % 10 !== 0 || ms > 40_950)) {
    return `VRRPv3 carries the advert interval in centiseconds (10 ms to 40950 ms), so ${ms} ms cannot be sent as it is: give a multiple of 10 up to 40950`;
  }
  return undefined;
}

export type ClusterConfig = z.infer<typeof ClusterSchema>;
export type ClusterNode = z.infer<typeof ClusterNodeSchema>;
export type NetworkConfig = z.infer<typeof NetworkSchema>;
export type KeepalivedConfig = z.infer<typeof KeepalivedSchema>;
export type IpfailoverConfig = z.infer<typeof IpfailoverSchema>;
export type VrrpInstanceConfig = z.infer<typeof VrrpInstanceSchema>;
