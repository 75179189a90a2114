import { STRATEGY_NAMES, type StrategyName } from '../../core/strategy.ts';
import type { PropertyName, Violation } from './properties.ts';
import { exploreRun, shrinkFinding, type RunOutcome, type ShrunkFinding } from './task.ts';

export type ExploreMessage =
  | { kind: 'run'; run: number; seed: number; strategy: StrategyName }
  | { kind: 'shrink'; seed: number; strategy: StrategyName; property: PropertyName; first: Violation };

/** A tinypool worker thread of `routerbench explore`: a run or a shrink per call, by strategy name. */
export default async function exploreWorker(m: ExploreMessage): Promise<RunOutcome | ShrunkFinding> {
  if (!STRATEGY_NAMES.includes(m.strategy)) throw new Error(`explore worker: unknown strategy ${m.strategy}`);
  const strategy = { name: m.strategy, base: m.strategy };
  return m.kind === 'run' ? exploreRun(m.run, m.seed, strategy) : shrinkFinding(m.seed, strategy, m.property, m.first);
}
