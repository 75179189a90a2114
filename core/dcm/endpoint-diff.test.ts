import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { ServedEndpoint } from '../haproxy/names.ts';
import { DYNAMIC_SERVER_PREFIX, missingFrom, stageEndpointReplace, type StagedReplace } from './endpoint-diff.ts';
import type { CachedServer } from './runtime-view.ts';

/** The reference model: ReplaceRouteEndpoints written straight from upstream, with a Map and a Set. */
function reference(servers: CachedServer[], slotMap: Map<string, string>, oldEps: readonly ServedEndpoint[], newEps: readonly ServedEndpoint[], weight: string): StagedReplace {
  const modified = new Map<string, ServedEndpoint>();
  for (const e of newEps) modified.set(e.id, e);
  const deleted = new Set<string>();
  let changed = false;
  for (const e of oldEps) {
    const n = modified.get(e.id);
    if (n !== undefined) {
      if (n.ip === e.ip && n.port === e.port) modified.delete(e.id);
    } else {
      deleted.add(e.id);
      changed = true;
    }
  }
  if (modified.size === 0 && deleted.size === 0) return { changed, remaining: 0 };
  const stage = (s: CachedServer, ep: ServedEndpoint): void => {
    s.nextAddress = ep.ip;
    if (ep.port > 0) s.nextPort = ep.port;
    s.nextWeight = weight;
    s.nextState = 'ready';
  };
  const unused: CachedServer[] = [];
  for (const s of servers) {
    let related = s.name;
    const dynamic = s.name.startsWith(DYNAMIC_SERVER_PREFIX);
    if (dynamic) {
      const mapped = slotMap.get(s.name);
      if (mapped === undefined) {
        unused.push(s);
        continue;
      }
      related = mapped;
    }
    if (deleted.has(related)) {
      changed = true;
      s.nextState = 'maint';
      if (dynamic) slotMap.delete(s.name);
      continue;
    }
    const ep = modified.get(related);
    if (ep !== undefined) {
      changed = true;
      stage(s, ep);
      modified.delete(related);
    }
  }
  for (const s of unused) {
    if (modified.size === 0) break;
    const ep = modified.values().next().value as ServedEndpoint;
    changed = true;
    slotMap.set(s.name, ep.id);
    stage(s, ep);
    modified.delete(ep.id);
  }
  return { changed, remaining: modified.size };
}

// Few IDs and addresses, lists up to 40 long: duplicates, moves and both the in-place and indexed sets occur.
const endpointArb: fc.Arbitrary<ServedEndpoint> = fc
  .record({ n: fc.integer({ min: 0, max: 30 }), ip: fc.constantFrom('10.0.0.1', '10.0.0.2'), port: fc.constantFrom(0, 8080) })
  .map(({ n, ip, port }) => ({ id: `ep-${n}`, ip, port, dottedQuad: true }));
const listArb = fc.oneof(fc.array(endpointArb, { maxLength: 8 }), fc.array(endpointArb, { maxLength: 40 }));

function server(name: string): CachedServer {
  return { name, address: '172.4.0.4', port: 8765, weight: 1, weightText: '1', nextAddress: '172.4.0.4', nextPort: 8765, nextWeight: '1', nextState: null };
}

const slotsArb = fc.integer({ min: 0, max: 6 });
const mappedArb = fc.array(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 30 })), { maxLength: 6 });

/** Stages the same change with the function and the reference, on equal servers and slot maps, and compares all three. */
function expectAsReference(oldEps: ServedEndpoint[], newEps: ServedEndpoint[], slots: number, mapped: [number, number][], distinctIds: boolean): void {
  const names = [...new Set(oldEps.map((e) => e.id))].concat(Array.from({ length: slots }, (_, i) => `_dynamic-pod-${i + 1}`));
  const slotPairs = mapped.filter(([i]) => i <= slots).map(([i, n]): [string, string] => [`_dynamic-pod-${i}`, `ep-${n}`]);
  const a = names.map(server);
  const b = names.map(server);
  // No map at all when no slot is mapped, as a route starts each reload period (SlotHolder).
  const holder = { slotMap: slotPairs.length > 0 ? new Map(slotPairs) : null };
  const mapB = new Map(slotPairs);
  expect(stageEndpointReplace(a, holder, oldEps, newEps, '1', distinctIds)).toEqual(reference(b, mapB, oldEps, newEps, '1'));
  expect(a).toEqual(b);
  expect([...(holder.slotMap ?? [])]).toEqual([...mapB]);
}

/** A list as the router serves it: each ID once, the first of a repeat kept (servedEndpoints). */
function firstOfEachId(list: readonly ServedEndpoint[]): ServedEndpoint[] {
  const seen = new Set<string>();
  return list.filter((e) => !seen.has(e.id) && seen.add(e.id) !== undefined);
}

describe('stageEndpointReplace', () => {
  test.prop([listArb, listArb, slotsArb, mappedArb], { numRuns: 1000 })('stages exactly what the Map-based reference stages', (oldEps, newEps, slots, mapped) =>
    expectAsReference(oldEps, newEps, slots, mapped, false),
  );

  test.prop([listArb, listArb, slotsArb, mappedArb], { numRuns: 500 })(
    'told that no new ID repeats, stages what the reference stages for such a list',
    (oldEps, anyNew, slots, mapped) => expectAsReference(oldEps, firstOfEachId(anyNew), slots, mapped, true),
  );

  // The function keeps scratch lists between calls and empties them by count: a longer staging's entries
  // are still in them when a shorter one follows, and must not be found by it.
  test.prop([fc.array(fc.tuple(listArb, listArb, slotsArb, mappedArb, fc.boolean()), { minLength: 2, maxLength: 6 })], { numRuns: 300 })(
    'stages each of several changes in a row as the reference stages it alone',
    (changes) => {
      for (const [oldEps, anyNew, slots, mapped, distinct] of changes) {
        expectAsReference(oldEps, distinct ? firstOfEachId(anyNew) : anyNew, slots, mapped, distinct);
      }
    },
  );
});

describe('missingFrom', () => {
  // Lists up to 40 long cross the in-place search's limit (16), so both lookups are held to the Set filter.
  test.prop([listArb, listArb], { numRuns: 1000 })('is the Set-based filter, in list order', (list, other) => {
    const ids = new Set(other.map((e) => e.id));
    expect(missingFrom(list, other)).toEqual(list.filter((e) => !ids.has(e.id)));
  });

  // As a served list hands them over: `other` shares some of `list`'s entry objects, beside entries of
  // their own whose IDs may repeat one of `list` (found by ID, not by identity).
  test.prop([listArb, listArb, fc.array(fc.nat(), { maxLength: 12 })], { numRuns: 1000 })('is the same filter when the lists share entries', (list, fresh, picks) => {
    const other = [...fresh];
    for (const p of picks) if (list.length > 0) other.splice(p % (other.length + 1), 0, list[p % list.length]!);
    const ids = new Set(other.map((e) => e.id));
    const missing = missingFrom(list, other);
    expect(missing).toEqual(list.filter((e) => !ids.has(e.id)));
    for (const e of missing) expect(list).toContain(e);
  });
});
