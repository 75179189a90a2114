import type { MapEntry } from '../../core/haproxy/config-model.ts';
import type { MapMatch } from './haproxy-cfg.ts';
import { literalPrefixOf, mapKeyTest, type MockMap, type MockMapEntry } from './map-state.ts';

/**
 * A map's first-match lookup, as the frontends do it (`map_reg` tries entries in order, `map` compares
 * keys exactly), indexed for many lookups against an unchanging map. HAProxy walks a regex map entry by
 * entry; the invariant checker resolves every route after every settled change, which that walk makes
 * quadratic in the routes. A regex entry can only match inputs that start with its literal prefix, so
 * entries are grouped by prefix and only the groups of the input's own prefixes are tried, in entry order.
 * Valid while the entries stand: use `lookupOf` for a built map (rebuilt when a command moved its `rev`)
 * and `pristineLookupOf` for a config's entries (never changed once rendered).
 */
export class MapLookup<E extends LookupEntry = MockMapEntry> {
  private readonly exact = new Map<string, E>();
  private readonly byPrefix = new Map<string, number[]>();
  /** The distinct prefix lengths, ascending. */
  private readonly lengths: number[] = [];
  private readonly live: E[] = [];

  /** Entries whose `version` (0 when absent) is not `currVer` are not live. */
  constructor(
    entries: readonly E[],
    readonly match: MapMatch,
    currVer = 0,
  ) {
    const lengths = new Set<number>();
    for (const e of entries) {
      if ((e.version ?? 0) !== currVer) continue;
      if (match === 'str') {
        if (!this.exact.has(e.key)) this.exact.set(e.key, e);
        continue;
      }
      const i = this.live.push(e) - 1;
      const prefix = literalPrefixOf(e.key);
      const group = this.byPrefix.get(prefix);
      if (group === undefined) this.byPrefix.set(prefix, [i]);
      else group.push(i);
      lengths.add(prefix.length);
    }
    this.lengths = [...lengths].sort((a, b) => a - b);
  }

  /** Answers already given: the checker asks the same inputs (its routes' keys) after every settled change. */
  private readonly answers = new Map<string, E | null>();

  first(input: string): E | undefined {
    if (this.match === 'str') return this.exact.get(input);
    const known = this.answers.get(input);
    if (known !== undefined) return known ?? undefined;
    const hit = this.walk(input);
    this.answers.set(input, hit ?? null);
    return hit;
  }

  private walk(input: string): E | undefined {
    let candidates: number[] | undefined;
    let merged = false;
    for (const n of this.lengths) {
      if (n > input.length) break;
      const group = this.byPrefix.get(input.slice(0, n));
      if (group === undefined) continue;
      if (candidates === undefined) candidates = group;
      else {
        candidates = candidates.concat(group);
        merged = true;
      }
    }
    if (candidates === undefined) return undefined;
    if (merged) candidates.sort((a, b) => a - b);
    for (const i of candidates) {
      const e = this.live[i]!;
      if (mapKeyTest(e.key)?.(input) === true) return e;
    }
    return undefined;
  }
}

/** What a lookup needs of an entry: a built map's, or a config's (no version: it is current). */
export interface LookupEntry {
  key: string;
  value: string;
  version?: number;
}

const lookups = new WeakMap<MockMap, { rev: number; lookup: MapLookup }>();

/** The map's lookup, kept between calls until a command changes the map (its `rev` moves). */
export function lookupOf(map: MockMap): MapLookup {
  const hit = lookups.get(map);
  if (hit !== undefined && hit.rev === map.rev) return hit.lookup;
  const lookup = new MapLookup(map.entries, map.match, map.currVer);
  lookups.set(map, { rev: map.rev, lookup });
  return lookup;
}

const pristineLookups = new WeakMap<readonly MapEntry[], { match: MapMatch; lookup: MapLookup<MapEntry> }>();

/**
 * The lookup of a config's entries for a file, kept as long as the array lives: the renderer hands an
 * unchanged file to the next reload as the same array, so the lookup and its answers outlive the reload.
 */
export function pristineLookupOf(entries: readonly MapEntry[], match: MapMatch): MapLookup<MapEntry> {
  const hit = pristineLookups.get(entries);
  if (hit !== undefined && hit.match === match) return hit.lookup;
  const lookup = new MapLookup<MapEntry>(entries, match);
  pristineLookups.set(entries, { match, lookup });
  return lookup;
}
