import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import * as cmd from '../../core/haproxy/commands.ts';
import type { RuntimeCommand } from '../../core/haproxy/commands.ts';
import type { HaproxyConfig } from '../../core/haproxy/config-model.ts';
import { commandVerb, decodeReply, encodeCommand, encodeReply } from '../../core/haproxy/runtime-codec.ts';
import { commandVerb as lineVerb } from '../output/command-tally.ts';
import { DEFAULT_RENDER_OPTIONS } from './haproxy-cfg.ts';
import { PointerSource } from './map-state.ts';
import { MockHaproxy } from './mock-haproxy.ts';

/**
 * The mock's two entry points agree: a typed command run from its fields (`run`, the simulation's path)
 * answers exactly what its encoded line answers through the text entry point (`execute`, the socket's and
 * the conformance suite's path) once decoded, the reply re-encodes to those very bytes (what the output
 * log records, in full or cut short), and both leave HAProxy in the same state. Sequences mix the commands the config managers
 * send with unknown backends, servers and maps, bad states, weights and addresses, and fields the CLI
 * would cut or unescape.
 */

const MAP_DIR = DEFAULT_RENDER_OPTIONS.mapDir;
const HTTP_MAP = `${MAP_DIR}/os_http_be.map`;
const TCP_MAP = `${MAP_DIR}/os_tcp_be.map`;

function config(): HaproxyConfig {
  return {
    backends: [
      {
        name: 'be_http:ns:web',
        mode: 'http',
        balance: 'roundrobin',
        cookieName: 'ck',
        dynamicCookieKey: 'key-0',
        servers: [
          { name: 'pod-1', address: '10.0.0.1', port: 8080, weight: 1, disabled: false, check: false },
          { name: '_dynamic-pod-1', address: '172.4.0.4', port: 8765, weight: 1, disabled: true, check: true },
          { name: '_dynamic-pod-2', address: '172.4.0.4', port: 8765, weight: 1, disabled: true, check: true },
        ],
      },
      {
        name: 'be_tcp:ns:pass',
        mode: 'tcp',
        balance: 'source',
        servers: [{ name: 'pod-2', address: '10.0.0.2', port: 443, weight: 256, disabled: false, check: true }],
      },
      { name: 'be_edge_http:ns:empty', mode: 'http', balance: 'leastconn', servers: [] },
    ],
    maps: {
      'os_http_be.map': [{ key: '^web\\.example\\.com(/.*)?$', value: 'be_http:ns:web' }],
      'os_tcp_be.map': [{ key: '^pass\\.example\\.com$', value: 'be_tcp:ns:pass' }],
    },
  };
}

/** Fields the CLI would cut or unescape (blanks, `;`, backslashes, `/`, `#`, `@`, a trailing `<`): `run` must answer them as their text is answered. */
const awkward = fc.string({ unit: fc.constantFrom('a', 'b', '1', '.', ':', '/', '#', '@', ' ', ';', '\\', '<', '-'), maxLength: 6 });
const oneOf = <T>(...xs: T[]) => fc.constantFrom(...xs);
const backend = fc.oneof({ weight: 6, arbitrary: oneOf('be_http:ns:web', 'be_tcp:ns:pass', 'be_edge_http:ns:empty', 'be_missing', '#5', '#99') }, { weight: 1, arbitrary: awkward });
const server = fc.oneof({ weight: 6, arbitrary: oneOf('pod-1', 'pod-2', '_dynamic-pod-1', '_dynamic-pod-2', 'ep-1', 'ep-2', 'nope', '#1', 'bad name') }, { weight: 1, arbitrary: awkward });
const ip = fc.oneof({ weight: 6, arbitrary: oneOf('10.0.0.9', '10.0.0.1', '172.4.0.4', 'fd00::1', '[10.0.0.3]', 'not-an-ip', '010.0.0.1', '*') }, { weight: 1, arbitrary: awkward });
const port = oneOf(undefined, 0, 80, 8080, 8765, 65535, 70000, -1);
const state = oneOf<cmd.ServerAdminState>('ready', 'drain', 'maint', 'bogus' as cmd.ServerAdminState);
const weight = oneOf('0', '1', '7', '100%', '50%', '256', '257', '-1', 'x', '1x', '');
const mapFile = fc.oneof({ weight: 6, arbitrary: oneOf(HTTP_MAP, TCP_MAP, `${MAP_DIR}/os_missing.map`, '#0', '@1') }, { weight: 1, arbitrary: awkward });
const key = oneOf('^a\\.example\\.com(/.*)?$', '^b$', '^web\\.example\\.com(/.*)?$', '^a($', '^x;y$', '^sp ace$', 'k', '');
const value = oneOf('be_http:ns:web', 'be_x', '1', '', 'a b');
/** The first pointers a fresh mock hands out: the configured entries' and a few runtime additions'. */
const POINTERS = (() => {
  const p = new PointerSource();
  return Array.from({ length: 12 }, () => p.next());
})();
const ref = fc.oneof(oneOf(...POINTERS), oneOf('0x0', 'zz', ''));
const keywords = oneOf<readonly string[]>(
  ['weight', '1'],
  ['weight', '1', 'check', 'inter', '5000ms'],
  ['weight', '1', 'check', 'inter', '5000ms', 'maxconn', '10'],
  ['weight', '1', 'ssl', 'alpn', 'h2,http/1.1', 'verify', 'none', 'check-ssl', 'check', 'inter', '5000ms'],
  ['weight', '1', 'ssl', 'verify', 'required', 'check'],
  ['weight', '300'],
  ['weight', '1', 'bogus'],
  ['weight', '1', 'enabled'],
  ['weight', '1', 'track', 'pod-2'],
  [],
);

const command: fc.Arbitrary<RuntimeCommand> = fc.oneof(
  fc.constant(cmd.showBackend()),
  backend.map(cmd.showServersState),
  fc.tuple(backend, server, ip, port).map(([b, s, i, p]) => cmd.setServerAddr(b, s, i, p)),
  fc.tuple(backend, server, state).map(([b, s, st]) => cmd.setServerState(b, s, st)),
  fc.tuple(backend, server, weight).map(([b, s, w]) => cmd.setServerWeight(b, s, w)),
  fc.tuple(backend, oneOf('k1', 'key-2', '')).map(([b, k]) => cmd.setDynamicCookieKey(b, k)),
  backend.map(cmd.enableDynamicCookie),
  fc.constant(cmd.showMapList()),
  mapFile.map(cmd.showMap),
  fc.tuple(mapFile, key, value).map(([f, k, v]) => cmd.addMap(f, k, v)),
  fc.tuple(mapFile, ref).map(([f, r]) => cmd.delMapRef(f, r)),
  fc.tuple(backend, server, ip, port.filter((p) => p !== undefined), keywords).map(([b, s, i, p, k]) => cmd.addServer(b, s, i, p!, k)),
  fc.tuple(backend, server).map(([b, s]) => cmd.delServer(b, s)),
  fc.tuple(backend, server).map(([b, s]) => cmd.enableHealth(b, s)),
  fc.tuple(backend, server).map(([b, s]) => cmd.disableHealth(b, s)),
);

/** What a client can see of a mock: every server's row, cookies, the map list and every version of every entry. */
function observed(m: MockHaproxy): unknown {
  return {
    servers: m.execute('show servers state'),
    cookies: m.backendList.map((b) => [b.name, b.dynamicCookieKey, b.dynamicCookieEnabled]),
    maps: m.execute('show map'),
    entries: [HTTP_MAP, TCP_MAP].map((p) => m.map(p)!.entries.map((e) => [e.ref, e.key, e.value, e.version])),
  };
}

function loaded(): MockHaproxy {
  const m = new MockHaproxy();
  m.load(config());
  return m;
}

describe('MockHaproxy: typed and text entry points', () => {
  test.prop([fc.array(command, { minLength: 1, maxLength: 40 })], { numRuns: 400 })('answer alike and leave the same state', (commands) => {
    const typed = loaded();
    const text = loaded();
    for (const c of commands) {
      // The output log counts a command by its line's verb, which the typed command knows without its line.
      expect(commandVerb(c)).toBe(lineVerb(encodeCommand(c)));
      const reply = typed.run(c);
      const bytes = text.execute(encodeCommand(c));
      expect(decodeReply(c, bytes)).toEqual(reply);
      expect(encodeReply(reply)).toBe(bytes);
      // The output log keeps a reply's first 200 characters, encoded no further than that.
      expect(encodeReply(reply, 200).slice(0, 200)).toBe(bytes.slice(0, 200));
    }
    expect(observed(typed)).toEqual(observed(text));
  });
});
