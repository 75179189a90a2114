import type { InputEvent } from '../../core/events.ts';
import { RandomStreams } from '../random-streams.ts';
import { ChurnContext } from './churn-context.ts';
import { installBursts, installDrains, installInitialEndpoints, installRollouts, installScale } from './endpoint-generators.ts';
import { installFaults } from './fault-generator.ts';
import { installRoutes } from './routes-generator.ts';
import { World } from './world.ts';
import { GenerateSpecSchema, type GenerateSpec, type GenerateSpecInput } from './spec.ts';

/**
 * Expands a `generate` spec into v1 events in non-decreasing `at`, lazily: generators schedule actions on a
 * queue ordered by (time, sequence) and events are yielded as each action runs, so memory holds the world
 * (services, pods, live routes) and pending actions, never the whole log. Each generator draws from its own
 * stream `generate/<name>` of the seed, so switching one generator on never changes another's events.
 * `durationMs` must be resolved (the scenario loader defaults it to sim.durationMs).
 */
export function expandGenerators(spec: GenerateSpec, seed: number): Iterable<InputEvent> {
  if (spec.durationMs === undefined) throw new Error('expandGenerators: spec.durationMs is not resolved');
  return new GeneratedEvents(spec, seed);
}

/**
 * A class, not an object literal with a generator method: every run's iterator then comes from the one
 * prototype function and has the same hidden class, so the engine's optimized loop is not thrown away (and
 * recompiled) at the start of each run of a sweep.
 */
class GeneratedEvents implements Iterable<InputEvent> {
  constructor(
    private readonly spec: GenerateSpec,
    private readonly seed: number,
  ) {}

  *[Symbol.iterator](): Iterator<InputEvent> {
    const spec = this.spec;
    const streams = new RandomStreams(this.seed);
    const start = spec.startMs;
    const ctx = new ChurnContext(new World(spec.world), start + spec.durationMs!);
    installInitialEndpoints(ctx, start);
    if (spec.routes) installRoutes(ctx, spec.routes, streams.get('generate/routes'), start);
    if (spec.scale) installScale(ctx, spec.scale, streams.get('generate/scale'), start);
    if (spec.rollouts) installRollouts(ctx, spec.rollouts, streams.get('generate/rollouts'), start);
    if (spec.drains) installDrains(ctx, spec.drains, streams.get('generate/drains'), start);
    if (spec.bursts) installBursts(ctx, spec.bursts, streams.get('generate/bursts'), start);
    if (spec.faults) installFaults(ctx, spec.faults, streams.get('generate/faults'), start);
    while (ctx.step()) {
      if (ctx.out.length === 0) continue;
      yield* ctx.out;
      ctx.out.length = 0;
    }
  }
}

/** Parses (with defaults) and expands a spec written as a scenario's `generate` section. */
export function expandGeneratorInput(input: GenerateSpecInput, seed: number): Iterable<InputEvent> {
  return expandGenerators(GenerateSpecSchema.parse(input), seed);
}
