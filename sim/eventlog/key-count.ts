/**
 * Whether a parsed JSON object has exactly `n` enumerable keys. The hand-written fast checks test each known
 * field and then this: together they rule out unknown fields, as the strict schemas do. A known optional
 * field present with the value `undefined` is counted here but not by the caller, so such an object goes to
 * the schema: rare, and never from JSON.
 */
export function hasOnly(o: Record<string, unknown>, n: number): boolean {
  let count = 0;
  for (const _k in o) count++;
  return count === n;
}
