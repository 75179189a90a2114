import type { HaproxyConfig } from './haproxy/config-model.ts';
import type { ReloadReason } from './reload-reason.ts';
import type { RouterState, StateChange } from './router-state.ts';
import type { RuntimeProgram } from './runtime-effect.ts';

export const STRATEGY_NAMES = ['reload-always', 'dcm-slots', 'dcm-add-del'] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

/** What a strategy may do besides talking to HAProxy; all of it is bookkeeping, none of it I/O. */
export interface StrategyContext {
  /** True from the start of a reload until HAProxy runs the new config; dynamic calls are refused then. */
  readonly reloadInProgress: boolean;
  /** Ask the rate limiter for a reload; coalesced with other requests. */
  requestReload(reason: ReloadReason, detail?: string): void;
  /** Arm the commit-interval timer if it is not armed (later calls do not extend it). */
  armCommitTimer(): void;
  /** A note for the output log (e.g. that a change went on despite an error); a reload request's detail says why it falls back. */
  note(message: string): void;
  /**
   * A runtime API call failed for good (after retries, or HAProxy answered with an error); counted in the
   * report. The `runtime-api-error` reload request that follows carries no detail of its own: this one
   * says why, and a request without a detail folds into the reload already asked for, where a repeated
   * detail made a line of its own (22 of the 177 MB a dcm-add-del replay of the bench churn log wrote).
   */
  runtimeError(detail: string): void;
}

/**
 * A router generation. `onChange` runs after the desired state has changed; it either changes HAProxy at
 * runtime (the returned program) or asks for a reload. `render` is what a reload writes.
 */
export interface RouterStrategy {
  readonly name: StrategyName;
  /** The router runs the blueprint plugin (the config managers); without it blueprint events are routes. */
  readonly blueprintPlugin?: boolean;
  /**
   * The state hands this strategy's endpoint changes a list whose endpoints alike in the list before are
   * that list's objects, at the cost of reading it (router-state.ts keepingAlike). Worth it to a manager that
   * diffs the two lists and reads the old one anyway; the template router tells most changes apart
   * without reading it (sameServedSince).
   */
  readonly keepsAlikeEndpoints?: boolean;
  /** The program's return value, if any, is not used: it lets a manager hand out one of its steps as is. */
  onChange(change: StateChange, state: RouterState, ctx: StrategyContext): RuntimeProgram<unknown> | void;
  /** The full configuration a reload would write for this state (pool backends and slots included). */
  render(state: RouterState): HaproxyConfig;
  /** A reload finished and HAProxy now runs `render(stateAtReloadStart)`: reset every runtime bookkeeping. */
  onReloaded(state: RouterState): void;
}
