import seedrandom from 'seedrandom';

/** A seeded source of numbers in [0, 1) with the draws a simulation needs. */
export interface RandomStream {
  next(): number;
  /** Integer in [0, n). */
  int(n: number): number;
  /** Exponentially distributed with the given mean (for Poisson arrivals). */
  exponential(mean: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
}

/**
 * Every random component draws from its own stream, derived from the run seed and a stable name,
 * so a new draw in one component never shifts another's (FoundationDB/TigerBeetle practice).
 * Alea is several times faster than seedrandom's default ARC4 and as reproducible.
 */
export class RandomStreams {
  private readonly streams = new Map<string, RandomStream>();

  constructor(readonly seed: number) {}

  get(name: string): RandomStream {
    let s = this.streams.get(name);
    if (s === undefined) {
      s = makeStream(`${this.seed}/${name}`);
      this.streams.set(name, s);
    }
    return s;
  }
}

export function makeStream(seedText: string): RandomStream {
  const prng = seedrandom.alea(seedText);
  const next = (): number => prng();
  return {
    next,
    int: (n) => Math.floor(next() * n),
    exponential: (mean) => -Math.log(1 - next()) * mean,
    chance: (p) => p > 0 && next() < p,
  };
}
