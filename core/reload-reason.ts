/** Why a reload was requested. Stable strings: reports, budgets and baselines key on them. */
export const RELOAD_REASONS = [
  'initial',
  'route-change',
  'endpoints-change',
  'blueprint-change',
  'no-blueprint-match',
  'pool-exhausted',
  'dynamic-slots-exhausted',
  'reload-in-progress',
  'commit-interval',
  'runtime-api-error',
  'forced',
] as const;

export type ReloadReason = (typeof RELOAD_REASONS)[number];
