import { InputError } from '../eventlog/input-error.ts';
import { resultOf, type ExploreResult, type Finding } from './explore.ts';
import { PROPERTY_NAMES } from './properties.ts';

/**
 * Shards of one exploration back into the result one unsharded run writes: the same seed, strategies, runs
 * and --allow; no run in two shards. Per (property, strategy) the finding of the lowest run is kept (each
 * shard shrank its own lowest, and shrinking is deterministic) and the runs that found it are summed.
 */
export function mergeExplore(parts: ReadonlyArray<{ dir: string; json: ExploreResult }>): ExploreResult {
  if (parts.length === 0) throw new InputError('merge', 'give the directories of the shards to merge');
  const head = parts[0]!.json;
  const seen = new Map<number, string>();
  for (const { dir, json } of parts) {
    for (const key of ['seed', 'strategies', 'runsPlanned', 'allow'] as const) {
      if (JSON.stringify(json[key]) !== JSON.stringify(head[key])) throw new InputError(dir, `its ${key} (${JSON.stringify(json[key])}) differs from ${parts[0]!.dir}'s (${JSON.stringify(head[key])}); shards must come from the same command line`);
    }
    for (const k of json.runIndices) {
      const other = seen.get(k);
      if (other !== undefined) throw new InputError(dir, `run ${k} was also made in ${other}: give each shard once`);
      seen.set(k, dir);
    }
  }
  if (head.runsPlanned !== null && seen.size < head.runsPlanned) {
    const missing = Array.from({ length: head.runsPlanned }, (_, k) => k).filter((k) => !seen.has(k));
    const count = head.shard?.count;
    const absent = count === undefined ? [] : [...new Set(missing.map((k) => k % count))].sort((a, b) => a - b);
    throw new InputError('merge', `${missing.length} of ${head.runsPlanned} runs are missing${absent.length > 0 ? `; shards ${absent.map((i) => `${i}/${count}`).join(', ')} are not among the directories` : ''}`);
  }
  const byKey = new Map<string, Finding>();
  for (const { json } of parts) {
    for (const f of json.findings) {
      const key = `${f.property}@${f.strategy}`;
      const had = byKey.get(key);
      if (had === undefined) byKey.set(key, { ...f });
      else byKey.set(key, { ...(f.run < had.run ? f : had), runs: had.runs + f.runs });
    }
  }
  const order = (f: Finding): number => head.strategies.indexOf(f.strategy);
  const findings = [...byKey.values()].sort((a, b) => propertyRank(a) - propertyRank(b) || order(a) - order(b));
  const runIndices = [...seen.keys()].sort((a, b) => a - b);
  return resultOf({ seed: head.seed, runs: head.runsPlanned ?? undefined, allow: head.allow, strategies: head.strategies.map((name) => ({ name })) }, runIndices, findings);
}

function propertyRank(f: Finding): number {
  return PROPERTY_NAMES.indexOf(f.property);
}
