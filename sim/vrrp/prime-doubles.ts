/**
 * Times pass 2^31 µs (35.8 simulated minutes) in long runs, beyond V8's small integers. A field that held only
 * small integers then changes representation, which deoptimizes the hot code late in a run and can leave it
 * unoptimized (a 5× slowdown measured on the benchmark). Writing a double once at creation fixes the fields'
 * representation up front; the value is restored at once.
 */
export const PRIME_US = 2 ** 41 + 0.5;

/** Give each of `keys` a double representation from the start (see PRIME_US); their values are unchanged. */
export function primeDoubleFields<T extends object>(obj: T, keys: (keyof T)[]): void {
  const o = obj as Record<keyof T, unknown>;
  for (const k of keys) {
    const v = o[k];
    o[k] = PRIME_US;
    o[k] = v;
  }
}
