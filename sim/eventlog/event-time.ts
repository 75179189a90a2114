import { US_PER_MS } from '../scheduler.ts';

/**
 * The latest `at` an event may have, in ms. The engine runs on an integer microsecond clock (`at` × 1000),
 * and a double holds integers exactly only up to Number.MAX_SAFE_INTEGER: a later time would land on a
 * rounded instant, so two events a millisecond apart could swap or merge. About 285 years.
 */
export const MAX_AT_MS = Math.floor(Number.MAX_SAFE_INTEGER / US_PER_MS);

/** The one wording of the bound, for the event schema and a scenario's generated event times. */
export const AT_BOUND = `at most ${MAX_AT_MS} ms (the simulated clock counts microseconds, exact only up to 2^53 - 1 µs)`;

export function atTooLateMessage(got: unknown): string {
  return `must be ${AT_BOUND}, got ${String(got)}`;
}
