import { z } from 'zod';
import { fieldName } from '../eventlog/field-name.ts';

/**
 * What `routerbench merge` reads from a sweep directory: the definition in sweep.json and the rows of
 * runs.json. Shards travel between machines (CI artifacts, a Job's volume) and may be cut short or edited,
 * so they are checked before anything is computed from them: a mistake is an input error naming the file
 * and the field, never a crash halfway through a merge.
 */
const gridValue = z.union([z.number(), z.string(), z.boolean()]);

export const SweepDefinitionSchema = z.looseObject({
  scenario: z.looseObject({ path: z.string(), name: z.string(), sha256: z.string() }),
  grid: z.array(z.looseObject({ key: z.string(), spec: z.string(), values: z.array(gridValue).min(1) })),
  seeds: z.array(z.number().int()).min(1),
  set: z.record(z.string(), z.string()),
  env: z
    .looseObject({
      deployment: z.looseObject({ path: z.string(), sha256: z.string() }).optional(),
      vars: z.array(z.string()),
      settings: z.record(z.string(), z.string()),
    })
    .optional(),
  budgets: z.array(z.string()),
  extraBudgets: z.array(z.string()),
  statistic: z.union([
    z.looseObject({ kind: z.literal('quantile'), q: z.number() }),
    z.looseObject({ kind: z.literal('confidence'), level: z.number() }),
  ]),
  ciLevel: z.number(),
  cost: z.looseObject({ perBackendBytes: z.number(), perServerBytes: z.number() }),
});

export const RunRowSchema = z.looseObject({
  point: z.record(z.string(), gridValue),
  seed: z.number().int(),
  metrics: z.record(z.string(), z.number().nullable()),
  preallocated: z.looseObject({ poolBackends: z.number(), routeBackends: z.number(), slotServers: z.number() }),
  pass: z.boolean(),
  reproduce: z.string(),
});

/** The first problem as a dotted field and a message, or undefined. */
export function firstIssue(schema: z.ZodType, value: unknown, prefix: string): { field: string; message: string } | undefined {
  const r = schema.safeParse(value);
  if (r.success) return undefined;
  const issue = r.error.issues[0]!;
  const field = fieldName(issue.path, prefix);
  return { field, message: issue.message };
}
