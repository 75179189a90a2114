import { z } from 'zod';
import { describeIssue } from '../output/output-log-reader.ts';

/**
 * What `routerbench merge` reads from a sweep directory: the definition in sweep.json and the rows of
 * runs.json. Shards travel between machines (CI artifacts, a Job's volume) and may be cut short or edited,
 * so they are checked before anything is computed from them: a mistake is an input error naming the file
 * and the field, never a crash halfway through a merge. Strict objects: merge writes the definition and the
 * rows back out, so a field routerbench does not write would reach the merged files and break their
 * byte-identity with the unsharded sweep's.
 */
const gridValue = z.union([z.number(), z.string(), z.boolean()]);

export const SweepDefinitionSchema = z.strictObject({
  scenario: z.strictObject({ path: z.string(), name: z.string(), sha256: z.string() }),
  grid: z.array(z.strictObject({ key: z.string(), spec: z.string(), values: z.array(gridValue).min(1) })),
  seeds: z.array(z.number().int()).min(1),
  set: z.record(z.string(), z.string()),
  env: z
    .strictObject({
      deployment: z.strictObject({ path: z.string(), sha256: z.string() }).optional(),
      vars: z.array(z.string()),
      settings: z.record(z.string(), z.string()),
      sources: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  budgets: z.array(z.string()),
  extraBudgets: z.array(z.string()),
  statistic: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('quantile'), q: z.number() }),
    z.strictObject({ kind: z.literal('confidence'), level: z.number() }),
  ]),
  ciLevel: z.number(),
  cost: z.strictObject({ perBackendBytes: z.number(), perServerBytes: z.number() }),
});

export const ShardSchema = z
  .strictObject({ index: z.number().int().nonnegative(), count: z.number().int().positive() })
  .refine((s) => s.index < s.count, { message: 'a shard index is below the shard count (0 ≤ index < count)', path: ['index'] });

/**
 * A row's shape. Which keys `point` and `metrics` hold depends on the sweep's grid and on the metrics a
 * budget can name; readSweepDir checks those sets once the types are known to be right.
 */
// Every metric is a count or a duration and every preallocation a count: a negative one was edited in, and
// merged it would move a quantile or a verdict without any run having measured it.
const notNegative = z.number().min(0, { error: (issue) => `${String(issue.input)} is negative; counts and durations never are` });
const countOf = z.number().int().min(0, { error: (issue) => `${String(issue.input)} is negative; a count never is` });

export const RunRowSchema = z.strictObject({
  point: z.record(z.string(), gridValue),
  seed: z.number().int().min(0),
  metrics: z.record(z.string(), notNegative.nullable()),
  preallocated: z.strictObject({ poolBackends: countOf, routeBackends: countOf, slotServers: countOf }),
  pass: z.boolean(),
  reproduce: z.string(),
});

/** The first problem as a dotted field and a message, or undefined. */
export function firstIssue(schema: z.ZodType, value: unknown, prefix: string): { field: string; message: string } | undefined {
  const r = schema.safeParse(value);
  if (r.success) return undefined;
  return describeIssue(r.error.issues[0]!, prefix);
}
