import { z } from 'zod';
import { BOUND_PATTERN, knownMetricPaths, METRIC_ALIASES, parseBudget } from '../../reports/budgets.ts';
import { ClusterSchema, type ClusterConfig } from '../cluster/cluster-schema.ts';
import { InputEventSchema } from '../eventlog/event-schema.ts';
import { isRouteHost, ROUTE_HOST_MAX_LENGTH } from '../eventlog/route-host.ts';
import { GenerateSpecSchema } from '../generate/spec.ts';
import { SCENARIO_NAME_MAX_LENGTH, scenarioName } from './scenario-name.ts';
import { HaproxySettingsSchema, RouterSettingsSchema, SimSettingsSchema } from '../settings.ts';
import { firstEventNodeIssue, inlineEventsOf } from './event-nodes.ts';
import { firstGeneratedTimeIssue } from './generated-times.ts';

/**
 * A scenario file (scenarios/*.yaml): which cluster, which router settings, what churn and faults, and
 * which budgets must hold. Published as scenarios/scenario.schema.json (generated from this schema; a test
 * keeps the two equal), so an editor with the YAML language server completes and checks it given the line
 *   # yaml-language-server: $schema=./scenario.schema.json
 * at the top of the file.
 */

/** The `cluster` section is the VRRP work's ClusterSchema; its node names are the fault generators' targets. */
export const ClusterSectionSchema = ClusterSchema.meta({
  description: 'Router nodes, the network between them and keepalived (explicit instances or ipfailover).',
});

/** Inline events: v1 events in non-decreasing `at` (same rule as an event log file). */
export const InlineEventsSchema = z.array(InputEventSchema.meta({ id: 'InputEvent', description: 'One event log v1 event.' })).superRefine((events, ctx) => {
  for (let i = 1; i < events.length; i++) {
    const prev = events[i - 1]!.at;
    const at = events[i]!.at;
    if (at < prev) {
      ctx.addIssue({ code: 'custom', path: [i, 'at'], message: `time goes backwards: ${at} ms after ${prev} ms` });
      return;
    }
  }
});

const logPath = z
  .string()
  .min(1)
  .regex(/\.jsonl$/, { message: 'an event log path must end in .jsonl' })
  .meta({ description: 'A v1 event log (.jsonl), relative to the scenario file.' });

/** `events`: inline events, a path to a v1 event log, or both (`{ file, inline }`). */
export const EventsSectionSchema = z.union([
  logPath,
  InlineEventsSchema,
  z.object({ file: logPath.optional(), inline: InlineEventsSchema.optional() }).strict(),
]);

const bound = z
  .string({ error: 'a budget bound is a quoted string such as "<= 2"' })
  .meta({ description: 'A bound such as "<= 2" (quote it: YAML reads a leading > or ! specially).' });

export const BudgetsSectionSchema = z.record(z.string(), bound).superRefine((map, ctx) => {
  for (const [path, b] of Object.entries(map)) {
    try {
      parseBudget(path, b);
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: [path], message: (err as Error).message });
    }
  }
});

export const ScenarioSchema = z
  .object({
    name: scenarioName.optional().meta({ description: `Shown in reports and names the output directory; defaults to the file name. One line, at most ${SCENARIO_NAME_MAX_LENGTH} characters.` }),
    description: z.string().optional(),
    seed: z.number().int().min(0).max(2 ** 32 - 1).optional(),
    router: RouterSettingsSchema.optional(),
    cluster: ClusterSectionSchema.optional(),
    events: EventsSectionSchema.optional(),
    generate: GenerateSpecSchema.optional(),
    budgets: BudgetsSectionSchema.optional().meta({
      description: 'Metric path of report.json → bound, e.g. reloads.total: "<= 2".',
    }),
    sim: SimSettingsSchema.optional(),
    haproxy: HaproxySettingsSchema.optional().meta({ description: 'Faults on the stats socket (haproxy.* settings).' }),
  })
  .strict()
  .superRefine((s, ctx) => {
    const events = inlineEventsOf(s.events);
    const nodeIssue = firstEventNodeIssue(events.inline, clusterNodeNames(s.cluster), { withLogFile: events.logFile !== undefined });
    if (nodeIssue !== undefined) ctx.addIssue({ code: 'custom', path: [...events.path, ...nodeIssue.path], message: nodeIssue.message });
    const g = s.generate;
    if (g === undefined) return;
    if (g.durationMs === undefined && s.sim?.durationMs === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['generate'],
        message: 'generators need a horizon: set generate.durationMs or sim.durationMs',
      });
    }
    const domain = g.world.domain;
    if (!isRouteHost(domain) || domain.length > MAX_GENERATED_DOMAIN_LENGTH) {
      ctx.addIssue({
        code: 'custom',
        path: ['generate', 'world', 'domain'],
        message: `expected the domain of the generated route hosts (route-N-ns-K.<domain>), a DNS-1123 subdomain as OpenShift requires of a host: lowercase letters, digits, '-' and '.', each label 1 to 63 characters starting and ending with a letter or digit, at most ${MAX_GENERATED_DOMAIN_LENGTH} characters; got ${JSON.stringify(domain)}`,
      });
    }
    const timeIssue = firstGeneratedTimeIssue(g, s.sim?.durationMs);
    if (timeIssue !== undefined) ctx.addIssue({ code: 'custom', path: timeIssue.path, message: timeIssue.message });
    if (g.routes?.max !== undefined && g.routes.max < g.routes.initial) {
      ctx.addIssue({ code: 'custom', path: ['generate', 'routes', 'max'], message: `max (${g.routes.max}) is below initial (${g.routes.initial})` });
    }
    const f = g.faults;
    if (f === undefined) return;
    const known = f.nodes ?? clusterNodeNames(s.cluster);
    const rates = f.nodeFailPerHour + f.nodeShutdownPerHour + f.nodeStallPerHour + f.routerCrashPerHour + f.partitionPerHour;
    if (known === undefined) {
      if (rates > 0) {
        ctx.addIssue({ code: 'custom', path: ['generate', 'faults'], message: 'fault rates need router nodes: set generate.faults.nodes or cluster.nodes' });
      }
      return;
    }
    f.schedule.forEach((fault, i) => {
      const names = [...(fault.node === undefined ? [] : [fault.node]), ...(fault.groups ?? []).flat()];
      for (const n of names) {
        if (!known.includes(n)) {
          const field = fault.node === n ? 'node' : 'groups';
          ctx.addIssue({
            code: 'custom',
            path: ['generate', 'faults', 'schedule', i, field],
            message: `unknown router node '${n}'; known: ${known.join(', ')}`,
          });
          return;
        }
      }
    });
  });

/** Room for the generated first label (route-N-ns-K: always under 63 characters) and its dot within a host's 253. */
const MAX_GENERATED_DOMAIN_LENGTH = ROUTE_HOST_MAX_LENGTH - 64;

export type ScenarioFile = z.output<typeof ScenarioSchema>;

/** `cluster.nodes[].name`, or undefined with no cluster section. */
export function clusterNodeNames(cluster: ClusterConfig | undefined): string[] | undefined {
  return cluster?.nodes.map((n) => n.name);
}

/**
 * The JSON Schema published as scenarios/scenario.schema.json (input side: defaults are optional). Draft 7,
 * the version the YAML language server validates; zod-only formats (e.g. `starts_with`, already expressed as
 * a `pattern`) are dropped so editors do not flag them.
 */
/** The schema's identifier: a name, not a place (the file ships in the package as `routerbench/scenario.schema.json`). */
export const SCENARIO_SCHEMA_ID = 'urn:routerbench:scenario:1';

export function scenarioJsonSchema(): Record<string, unknown> {
  const schema = dropUnknownFormats(z.toJSONSchema(ScenarioSchema, { io: 'input', unrepresentable: 'any', target: 'draft-7' })) as Record<string, unknown>;
  // Editors check budgets too: metric names (aliases included) and the bound's syntax, as parseBudget does.
  const properties = schema['properties'] as Record<string, Record<string, unknown>>;
  properties['budgets'] = {
    ...properties['budgets'],
    propertyNames: { enum: [...knownMetricPaths(), ...Object.keys(METRIC_ALIASES)] },
    additionalProperties: { ...(properties['budgets']!['additionalProperties'] as object), pattern: BOUND_PATTERN },
  };
  return {
    $schema: schema['$schema'],
    $id: SCENARIO_SCHEMA_ID,
    ...schema,
    title: 'routerbench scenario',
    description:
      'A routerbench scenario file. Put `# yaml-language-server: $schema=./scenario.schema.json` on its first line for editor completion and checks.',
  };
}

const DRAFT7_FORMATS = new Set([
  'date-time', 'date', 'time', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6',
  'uri', 'uri-reference', 'iri', 'iri-reference', 'uri-template', 'json-pointer', 'relative-json-pointer', 'regex',
]);

function dropUnknownFormats(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropUnknownFormats);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'format' && typeof v === 'string' && !DRAFT7_FORMATS.has(v)) continue;
    out[k] = dropUnknownFormats(v);
  }
  return out;
}
