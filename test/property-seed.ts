/**
 * The seed of the property tests' random cases, from ROUTERBENCH_PROPERTY_SEED: undefined when unset or
 * empty (each run then draws new cases, fast-check's default). CI sets it from the commit (.ci/run), so that
 * a commit's property tests draw the same cases on every machine: a counterexample CI meets is met again by
 * anyone who runs the suite on that commit, and running .ci/run before pushing shows what CI will see.
 */
export function propertySeed(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  if (!/^\s*[+-]?[0-9]+\s*$/.test(text)) throw new Error(`ROUTERBENCH_PROPERTY_SEED: '${text}' is not an integer`);
  const n = Number(text);
  // fast-check seeds a 32-bit generator; a larger number is folded into 32 bits as fast-check itself does.
  return n | 0;
}
