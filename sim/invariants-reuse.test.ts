import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { ChurnEvent } from '../core/events.ts';
import type { Route } from '../core/route.ts';
import { createStrategy } from '../core/strategies/index.ts';
import { Harness } from '../core/testing/harness.ts';
import { MockHaproxy } from './haproxy/mock-haproxy.ts';
import { checkInvariants } from './invariants.ts';
import { RouterSettingsSchema } from './settings.ts';

/**
 * The checker keeps the probes that passed until something they read moves (sim/invariants.ts). Whatever
 * runtime commands do to HAProxy between two checks, the second check must say what a check from scratch
 * says: here random commands (servers to maintenance, re-addressed, re-weighted, deleted, added; map
 * entries deleted, set, added, cleared) sabotage a consistent router between checks.
 */
const NAMES = ['a', 'b', 'c', 'd'];
const TLS: Array<Route['tls']> = [undefined, { termination: 'edge', insecureEdgeTerminationPolicy: 'Redirect' }, { termination: 'edge', insecureEdgeTerminationPolicy: 'Allow' }, { termination: 'passthrough' }];

const routeArb = fc.record({ name: fc.constantFrom(...NAMES), tls: fc.constantFrom(...TLS.keys()), pods: fc.integer({ min: 0, max: 3 }) });

/** A command template; `pick` chooses the backend, server, map and entry among what the mock has. */
const sabotageArb = fc.record({
  kind: fc.constantFrom('maint', 'ready', 'addr', 'weight0', 'del-server', 'add-server', 'del-map', 'del-map-ref', 'set-map', 'set-map-ref', 'add-map', 'clear-map', 'new-version', 'redirect', 'get-weight'),
  pick: fc.nat(),
  pick2: fc.nat(),
});

function commandFor(mock: MockHaproxy, s: { kind: string; pick: number; pick2: number }): string {
  const backends = mock.backendNames();
  const be = backends[s.pick % backends.length]!;
  const servers = mock.backend(be)!.servers;
  const srv = servers.length === 0 ? 'none' : servers[s.pick2 % servers.length]!.name;
  const maps = mock.mapListing();
  const map = maps[s.pick % maps.length]!;
  const entries = mock.mapByFile(map.path.split('/').pop()!)?.entries ?? [];
  const entry = entries.length === 0 ? undefined : entries[s.pick2 % entries.length]!;
  const key = entry === undefined ? 'nothing' : entry.key.replace(/\\/g, '\\\\');
  const ref = entry === undefined ? '#0' : `#${entry.ref}`;
  switch (s.kind) {
    case 'maint':
      return `set server ${be}/${srv} state maint`;
    case 'ready':
      return `set server ${be}/${srv} state ready`;
    case 'addr':
      return `set server ${be}/${srv} addr 10.9.9.${s.pick2 % 4}`;
    case 'weight0':
      return `set weight ${be}/${srv} 0`;
    case 'del-server':
      return `set server ${be}/${srv} state maint; del server ${be}/${srv}`;
    case 'add-server':
      return `add server ${be}/extra${s.pick2 % 3} 10.1.0.${s.pick2 % 4}:8080`;
    case 'del-map':
      return `del map ${map.path} ${key}`;
    case 'set-map':
      return `set map ${map.path} ${key} ${backends[s.pick2 % backends.length]}`;
    case 'add-map':
      return `add map ${map.path} ${key} ${backends[s.pick2 % backends.length]}`;
    case 'del-map-ref':
      return `del map ${map.path} ${ref}`;
    case 'set-map-ref':
      return `set map ${map.path} ${ref} ${backends[s.pick2 % backends.length]}`;
    case 'clear-map':
      return `clear map ${map.path}`;
    case 'redirect': {
      // A route's own http key into the redirect map: its plain http now redirects (a miss there became a hit).
      const http = mock.mapByFile('os_http_be.map')?.entries ?? [];
      const k = http.length === 0 ? 'nothing' : http[s.pick2 % http.length]!.key.replace(/\\/g, '\\\\');
      return `add map ${maps.find((l) => l.path.endsWith('/os_route_http_redirect.map'))?.path ?? map.path} ${k} 1`;
    }
    case 'new-version':
      // A new version with one entry of the current map's, committed: every older entry goes.
      return `prepare map ${map.path}; add map @${map.nextVer + 1} ${map.path} ${key} ${backends[s.pick2 % backends.length]}; commit map @${map.nextVer + 1} ${map.path}`;
    default:
      return `get weight ${be}/${srv}`;
  }
}

describe('checkInvariants, reusing passed probes', () => {
  test.prop([fc.constantFrom('reload-always', 'dcm-slots', 'dcm-add-del'), fc.array(routeArb, { minLength: 1, maxLength: 6 }), fc.array(sabotageArb, { maxLength: 6 })], { numRuns: 300 })(
    'agrees with a check from scratch after any runtime commands',
    (strategy, routes, sabotage) => {
      const mock = new MockHaproxy();
      const h = new Harness(createStrategy(RouterSettingsSchema.parse({ strategy })), {
        load: (c) => mock.load(c),
        send: (command) => mock.send(command),
      });
      const events: ChurnEvent[] = [];
      for (const r of routes) {
        const route: Route = { namespace: 'ns', name: r.name, host: `${r.name}.example.com`, service: r.name, ...(TLS[r.tls] !== undefined && { tls: TLS[r.tls] }) };
        events.push({ at: 0, type: 'route.upsert', route });
        const endpoints = Array.from({ length: r.pods }, (_, i) => ({ ip: `10.1.0.${i}`, port: 8080, name: `${r.name}-${i}` }));
        events.push({ at: 0, type: 'endpoints.set', namespace: 'ns', service: r.name, endpoints });
      }
      h.sync(events);
      h.settle();
      // The first check passes and remembers every probe; each command may break some of them.
      expect(checkInvariants(h.state, mock)).toEqual(checkInvariants(h.state, mock, { reuse: false }));
      for (const s of sabotage) {
        mock.execute(commandFor(mock, s));
        expect(checkInvariants(h.state, mock)).toEqual(checkInvariants(h.state, mock, { reuse: false }));
      }
    },
  );
});
