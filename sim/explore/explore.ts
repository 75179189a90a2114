import type { Shard } from '../sweep/plan.ts';
import { PROPERTY_NAMES, type PropertyName, type Violation } from './properties.ts';
import { runSeed, type ExploreStrategy, type RunOutcome, type ShrunkFinding } from './task.ts';

/** Where explore's runs and shrinks happen: in this thread or on worker threads (explore-executor.ts). */
export interface ExploreExecutor {
  readonly workers: number;
  run(run: number, seed: number, strategy: ExploreStrategy): Promise<RunOutcome>;
  shrink(seed: number, strategy: ExploreStrategy, property: PropertyName, first: Violation): Promise<ShrunkFinding>;
}

export interface ExplorePlan {
  seed: number;
  /** Runs to make (each under every strategy); undefined runs until `shouldStop` says so. */
  runs: number | undefined;
  strategies: readonly ExploreStrategy[];
  shard?: Shard;
  /** `property` or `property@strategy`: findings that do not fail the exploration. */
  allow: readonly string[];
}

export interface Finding {
  property: PropertyName;
  strategy: string;
  /** The first run (lowest index) that violated the property under the strategy: the one shrunk. */
  run: number;
  seed: number;
  /** Runs (under this strategy) that violated the property. */
  runs: number;
  atMs: number;
  detail: string;
  features: string[];
  allowed: boolean;
  before: number;
  after: number;
  shrinkRuns: number;
  /** The finding's file under --out. */
  file: string;
  scenario: string;
}

/** explore.json, version 1. */
export interface ExploreResult {
  routerbench: 'explore';
  version: 1;
  seed: number;
  strategies: string[];
  /** Runs asked for (--runs), or null for --minutes. */
  runsPlanned: number | null;
  shard?: Shard;
  /** Runs made (every strategy); with a shard, this shard's. */
  runs: number;
  /** Run indices made (a shard's share, or 0..runs−1): what merge checks for overlaps. */
  runIndices: number[];
  allow: string[];
  findings: Finding[];
  pass: boolean;
}

export interface ExploreHooks {
  /** Asked before each run is handed out; true stops at a run boundary (--minutes, Ctrl-C). */
  shouldStop?: () => boolean;
  onRun?: (done: number, findings: number) => void;
  onShrink?: (done: number, total: number) => void;
}

/**
 * Runs the plan: every run of the shard's share (run k, seed + k, each strategy), then for each (property,
 * strategy) found, the lowest run that found it shrunk. Runs are handed out in index order and a stop comes
 * only between runs, so the runs made are always a prefix of the share: the findings of N runs are the same
 * whatever the workers, the clock or the order in which runs finish.
 */
export async function explore(plan: ExplorePlan, executor: ExploreExecutor, hooks: ExploreHooks = {}): Promise<ExploreResult> {
  const step = plan.shard?.count ?? 1;
  const first = plan.shard?.index ?? 0;
  const indices: number[] = [];
  const outcomes: RunOutcome[][] = [];
  let nextRun = first;
  let found = 0;
  let failure: unknown;
  const keys = new Set<string>();
  const lane = async (): Promise<void> => {
    while (failure === undefined) {
      if (plan.runs !== undefined && nextRun >= plan.runs) return;
      if (hooks.shouldStop?.() === true) return;
      const run = nextRun;
      nextRun += step;
      const slot = indices.length;
      indices.push(run);
      try {
        outcomes[slot] = await Promise.all(plan.strategies.map((s) => executor.run(run, runSeed(plan.seed, run), s)));
      } catch (err) {
        failure ??= err;
        return;
      }
      for (const o of outcomes[slot]!) for (const v of o.violations) keys.add(`${v.property}@${o.strategy}`);
      found = keys.size;
      hooks.onRun?.(outcomes.filter((x) => x !== undefined).length, found);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, executor.workers) }, lane));
  if (failure !== undefined) throw failure;

  // Each (property, strategy): the lowest run, and how many runs found it.
  const groups = new Map<string, { property: PropertyName; strategy: ExploreStrategy; outcome: RunOutcome; violation: Violation; runs: number }>();
  for (const list of outcomes) {
    for (const o of list) {
      for (const v of o.violations) {
        const key = `${v.property}@${o.strategy}`;
        const g = groups.get(key);
        if (g === undefined) groups.set(key, { property: v.property, strategy: plan.strategies.find((s) => s.name === o.strategy)!, outcome: o, violation: v, runs: 1 });
        else {
          g.runs++;
          if (o.run < g.outcome.run) Object.assign(g, { outcome: o, violation: v });
        }
      }
    }
  }
  const ordered = [...groups.values()].sort((a, b) => PROPERTY_NAMES.indexOf(a.property) - PROPERTY_NAMES.indexOf(b.property) || plan.strategies.indexOf(a.strategy) - plan.strategies.indexOf(b.strategy));
  let shrunk = 0;
  const findings = await Promise.all(
    ordered.map(async (g): Promise<Finding> => {
      const s = await executor.shrink(g.outcome.seed, g.strategy, g.property, g.violation);
      hooks.onShrink?.(++shrunk, ordered.length);
      return {
        property: g.property,
        strategy: g.strategy.name,
        run: g.outcome.run,
        seed: g.outcome.seed,
        runs: g.runs,
        atMs: g.violation.atMs,
        detail: g.violation.detail,
        features: g.outcome.features,
        allowed: isAllowed(plan.allow, g.property, g.strategy.name),
        ...s,
        file: findingFile(g.property, g.strategy.name),
      };
    }),
  );
  return resultOf(plan, indices.sort((a, b) => a - b), findings);
}

export function resultOf(plan: Pick<ExplorePlan, 'seed' | 'runs' | 'shard' | 'allow'> & { strategies: readonly { name: string }[] }, runIndices: number[], findings: Finding[]): ExploreResult {
  return {
    routerbench: 'explore',
    version: 1,
    seed: plan.seed,
    strategies: plan.strategies.map((s) => s.name),
    runsPlanned: plan.runs ?? null,
    ...(plan.shard !== undefined && { shard: plan.shard }),
    runs: runIndices.length,
    runIndices,
    allow: [...plan.allow],
    findings,
    pass: findings.every((f) => f.allowed),
  };
}

export function isAllowed(allow: readonly string[], property: string, strategy: string): boolean {
  return allow.includes(property) || allow.includes(`${property}@${strategy}`);
}

export function findingFile(property: string, strategy: string): string {
  return `findings/${property}--${strategy}.yaml`;
}
