import { z } from 'zod';
import type { InputEvent } from '../../core/events.ts';
import { atTooLateMessage, MAX_AT_MS } from './event-time.ts';
import { namespaceName, objectName } from './k8s-names.ts';
import { badHostMessage, hostTooLongMessage, ROUTE_HOST_MAX_LENGTH, ROUTE_HOST_PATTERN } from './route-host.ts';

/** Validation of event log v1 lines. Strict: an unknown field is as likely a typo as a mistake. */
// The bound comes before int(): otherwise 2^53 would be refused with int()'s own, larger limit.
const at = z
  .number()
  .max(MAX_AT_MS, { error: (issue) => atTooLateMessage(issue.input) })
  .int()
  .min(0);
/** A router node's name (the cluster's, not a Kubernetes object's). */
const name = z.string().min(1);
// min(1) first, so an empty host is still reported as empty.
const host = z
  .string()
  .min(1)
  .max(ROUTE_HOST_MAX_LENGTH, { error: (issue) => hostTooLongMessage(issue.input) })
  .regex(ROUTE_HOST_PATTERN, { error: (issue) => badHostMessage(issue.input) });

export const RouteTlsSchema = z
  .object({
    termination: z.enum(['edge', 'passthrough', 'reencrypt']),
    insecureEdgeTerminationPolicy: z.enum(['None', 'Allow', 'Redirect']).optional(),
    certificate: z.string().optional(),
    key: z.string().optional(),
    caCertificate: z.string().optional(),
    destinationCACertificate: z.string().optional(),
  })
  .strict();

export const RouteSchema = z
  .object({
    namespace: namespaceName,
    name: objectName,
    host,
    path: z.string().startsWith('/').optional(),
    service: objectName,
    targetPort: z.union([z.string().min(1), z.number().int().min(1).max(65535)]).optional(),
    tls: RouteTlsSchema.optional(),
    wildcardPolicy: z.enum(['None', 'Subdomain']).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
    createdAt: z.number().int().min(-MAX_AT_MS).max(MAX_AT_MS).optional(),
  })
  .strict();

export const EndpointSchema = z
  .object({
    ip: z.union([z.ipv4(), z.ipv6()], { error: 'expected an IPv4 or IPv6 address' }),
    port: z.number().int().min(1).max(65535),
    ready: z.boolean().optional(),
    /** The pod's name (targetRef). */
    name: objectName.optional(),
    // Kubernetes requires a DNS label here; it becomes part of an HAProxy server name.
    portName: z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, { error: 'expected a port name: a DNS label (lowercase letters, digits and -, at most 63)' }).optional(),
  })
  .strict();

const nodeEvent = <T extends string>(type: T) => z.object({ at, type: z.literal(type), node: name }).strict();
// The router check follows the router: router.fail and router.recover drive it.
const script = name.refine((s) => s !== 'router-check', { error: 'router-check follows the router: use router.fail / router.recover' });
const scriptEvent = <T extends string>(type: T) => z.object({ at, type: z.literal(type), node: name, script }).strict();

export const InputEventSchema = z.discriminatedUnion('type', [
  z.object({ at, type: z.literal('route.upsert'), route: RouteSchema }).strict(),
  z.object({ at, type: z.literal('route.delete'), namespace: namespaceName, name: objectName }).strict(),
  z.object({ at, type: z.literal('endpoints.set'), namespace: namespaceName, service: objectName, endpoints: z.array(EndpointSchema) }).strict(),
  z.object({ at, type: z.literal('endpoints.delete'), namespace: namespaceName, service: objectName }).strict(),
  z.object({ at, type: z.literal('blueprint.upsert'), route: RouteSchema }).strict(),
  z.object({ at, type: z.literal('blueprint.delete'), namespace: namespaceName, name: objectName }).strict(),
  nodeEvent('node.fail'),
  nodeEvent('node.recover'),
  nodeEvent('node.shutdown'),
  nodeEvent('router.fail'),
  nodeEvent('router.recover'),
  scriptEvent('script.fail'),
  scriptEvent('script.recover'),
  nodeEvent('link.down'),
  nodeEvent('link.up'),
  nodeEvent('keepalived.crash'),
  nodeEvent('keepalived.restart'),
  z
    .object({
      at,
      type: z.literal('keepalived.reload'),
      node: name,
      priority: z.number().int().min(1).max(255).optional(),
      instances: z
        .array(z.object({ vrid: z.number().int().min(1).max(255), vips: z.array(z.ipv4()).min(1) }).strict())
        .min(1)
        .optional(),
    })
    .strict()
    .superRefine((e, ctx) => {
      if (e.priority === undefined && e.instances === undefined) ctx.addIssue({ code: 'custom', path: ['priority'], message: 'a reload changes a priority or instances\' VIPs: give priority, instances or both' });
      const vrids = new Set<number>();
      e.instances?.forEach((inst, i) => {
        if (vrids.has(inst.vrid)) ctx.addIssue({ code: 'custom', path: ['instances', i, 'vrid'], message: `vrid ${inst.vrid} is listed twice` });
        vrids.add(inst.vrid);
        const seen = new Set<string>();
        inst.vips.forEach((v, j) => {
          if (seen.has(v)) ctx.addIssue({ code: 'custom', path: ['instances', i, 'vips', j], message: `${v} is listed twice` });
          seen.add(v);
        });
      });
    }),
  z
    .object({
      at,
      type: z.literal('node.join'),
      node: name,
      ip: z.ipv4(),
      priority: z.number().int().min(1).max(255).optional(),
      preempt: z.boolean().optional(),
      preemptDelayMs: z.number().int().min(0).max(1_000_000).optional(),
    })
    .strict(),
  nodeEvent('node.leave'),
  z.object({ at, type: z.literal('node.stall'), node: name, durationMs: z.number().int().min(0) }).strict(),
  z
    .object({ at, type: z.literal('network.partition'), groups: z.array(z.array(name).min(1)).min(1), oneWay: z.boolean().optional() })
    .strict()
    .superRefine((e, ctx) => {
      // A node in two groups would be cut off from itself and joined to both: no partition means that.
      const seen = new Map<string, number>();
      e.groups.forEach((g, i) =>
        g.forEach((n, j) => {
          const first = seen.get(n);
          if (first !== undefined && first !== i) ctx.addIssue({ code: 'custom', path: ['groups', i, j], message: `node '${n}' is in groups[${first}] and groups[${i}]; a node is in one group` });
          else if (first === i) ctx.addIssue({ code: 'custom', path: ['groups', i, j], message: `node '${n}' is listed twice in groups[${i}]` });
          else seen.set(n, i);
        }),
      );
    }),
  z.object({ at, type: z.literal('network.heal') }).strict(),
]);

// The schema and the core type must describe the same events; this line fails to compile if they drift.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _schemaMatchesCore: Same<z.infer<typeof InputEventSchema>, InputEvent> = true;
void _schemaMatchesCore;

export const EventLogHeaderSchema = z
  .object({ routerbench: z.literal('eventlog'), version: z.literal(1) })
  .passthrough();
