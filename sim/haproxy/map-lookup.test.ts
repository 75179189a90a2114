import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { routeRegexp, sniRegexp } from '../../core/haproxy/route-regexp.ts';
import { MapLookup, pristineLookupOf } from './map-lookup.ts';
import { MockMapEntry, type MockMap } from './map-state.ts';
import { firstMatch } from './route-resolver.ts';

const hosts = ['a.example.com', 'ab.example.com', 'b.apps.io', 'x.b.apps.io', 'A.example.com'];
const paths = [undefined, '/', '/api', '/api/v1', '/static'];

const keyArb = fc.oneof(
  fc.record({ host: fc.constantFrom(...hosts), path: fc.constantFrom(...paths), wildcard: fc.boolean() }).map(({ host, path, wildcard }) => routeRegexp(host, path, wildcard)),
  fc.constantFrom(...hosts).map((h) => sniRegexp(h, false)),
  // Keys without a literal prefix and keys that are not anchored take the slow path in every group.
  fc.constantFrom('.*', '^[^.]*\\.apps\\.io', 'example'),
);

const mapArb = fc.record({
  match: fc.constantFrom<'reg' | 'str'>('reg', 'str'),
  entries: fc.array(fc.record({ key: keyArb, value: fc.constantFrom('1', 'be1', 'be2'), version: fc.constantFrom(0, 0, 1) }), { maxLength: 30 }),
});

const inputArb = fc.record({ host: fc.constantFrom(...hosts, 'c.example.com'), path: fc.constantFrom('/', '/api', '/api/v1/x', '/static/a', '') }).map(({ host, path }) => `${host.toLowerCase()}${path}`);

const positionIn = (list: readonly object[], e: object | undefined): number => (e === undefined ? -1 : list.indexOf(e));

describe('MapLookup', () => {
  test.prop([mapArb, fc.array(inputArb, { minLength: 1, maxLength: 10 })], { numRuns: 500 })(
    'finds the same first entry as walking the map in order',
    ({ match, entries }, inputs) => {
      const map: MockMap = {
        id: 1, path: '/m.map', file: 'm.map', match, values: 'str', cfgFile: 'h.cfg', line: 1, alsoAt: [], kinds: [{ match, values: 'str' }], currVer: 0, nextVer: 0, takenOut: [], entryCountSkew: 0, rev: 0, shape: 0, appends: 0, versioned: false,
        entries: entries.map((e, i) => new MockMapEntry(`0x${i}`, e.key, e.value, e.version)),
      };
      const lookup = new MapLookup(map.entries, map.match, map.currVer);
      // The same entries as a config hands them over (no pointer, no version) must give the same answers.
      const pristine = pristineLookupOf(entries, match);
      for (const input of [...inputs, ...entries.map((e) => e.key)]) {
        const walked = firstMatch(map, input);
        expect(lookup.first(input)).toBe(walked);
        const fromConfig = pristine.first(input);
        expect(positionIn(entries, fromConfig)).toBe(positionIn(map.entries, walked));
      }
    },
  );
});
