import type { StrategyName } from '../../core/strategy.ts';
import type { RunOptions } from '../run.ts';
import { scenarioYaml } from '../shrink/scenario-yaml.ts';
import { shrinkLog } from '../shrink/shrink-log.ts';
import { checkRun, violatesProperty } from './check-run.ts';
import type { PropertyName, Violation } from './properties.ts';
import { drawSwarm, swarmInput } from './swarm.ts';

/**
 * A router generation explore runs: a strategy by name, or (tests only) one with a planted bug that runs as
 * `base` with its own factory. Only named ones cross to worker threads.
 */
export interface ExploreStrategy {
  name: string;
  base: StrategyName;
  createStrategy?: RunOptions['createStrategy'];
}

/** The seed of run `k` of an exploration from `seed`: consecutive, wrapping at 2^32. */
export function runSeed(seed: number, k: number): number {
  return (seed + k) % 2 ** 32;
}

export interface RunOutcome {
  run: number;
  seed: number;
  strategy: string;
  features: string[];
  violations: Violation[];
}

export function exploreRun(run: number, seed: number, strategy: ExploreStrategy): RunOutcome {
  const swarm = drawSwarm(seed);
  const input = swarmInput(swarm, strategy.base);
  const violations = checkRun(input, optionsOf(strategy));
  return { run, seed, strategy: strategy.name, features: swarm.features, violations };
}

export interface ShrunkFinding {
  /** Events of the run, and of the shrunk log. */
  before: number;
  after: number;
  /** Runs the shrinker spent. */
  shrinkRuns: number;
  /** The shrunk log as a scenario file (seed, settings, cluster, events inline). */
  scenario: string;
}

/**
 * The run cut to a 1-minimal event log that still violates `property` (sim/shrink), as a scenario file whose
 * description names the seed, the property and the violation.
 */
export async function shrinkFinding(seed: number, strategy: ExploreStrategy, property: PropertyName, first: Violation): Promise<ShrunkFinding> {
  const input = swarmInput(drawSwarm(seed), strategy.base);
  const r = await shrinkLog(input, { failureOf: violatesProperty(input, property, optionsOf(strategy)) });
  if (!r.failed) throw new Error(`explore: seed ${seed} under ${strategy.name} no longer violates ${property} when run again`);
  const description = `Found by routerbench explore: seed ${seed}, strategy ${strategy.name}, violates ${property} (${first.detail}). Shrunk from ${r.before} to ${r.events.length} events.`;
  const yaml = scenarioYaml({ ...input, name: `explore-${seed}-${property}` }, r.events, description);
  if ('reason' in yaml) throw new Error(`explore: ${yaml.reason}`);
  return { before: r.before, after: r.events.length, shrinkRuns: r.runs, scenario: yaml.text };
}

function optionsOf(strategy: ExploreStrategy): Pick<RunOptions, 'createStrategy'> {
  return strategy.createStrategy === undefined ? {} : { createStrategy: strategy.createStrategy };
}
