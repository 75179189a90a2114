import { fc, test as propTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import * as cmd from './commands.ts';
import { decodeReply, encodeCommand, encodeReply, hasCut, reachesCliVerbatim, SERVERS_STATE_HEADER } from './runtime-codec.ts';

describe('encodeCommand', () => {
  it('writes the lines the config managers send', () => {
    expect(encodeCommand(cmd.setServerAddr('be', 's', '10.0.0.1', 8080))).toBe('set server be/s addr 10.0.0.1 port 8080');
    expect(encodeCommand(cmd.setServerAddr('be', 's', '10.0.0.1'))).toBe('set server be/s addr 10.0.0.1');
    // The key escaped as the 2018 manager escapes it: `\` doubled, `.` prefixed.
    expect(encodeCommand(cmd.addMap('/m/os_http_be.map', '^a\\.b$', 'be'))).toBe('add map /m/os_http_be.map ^a\\\\\\.b$ be');
    expect(encodeCommand(cmd.delMapRef('os_tcp_be.map', '0x1'))).toBe('del map os_tcp_be.map #0x1');
    expect(encodeCommand(cmd.showMapList())).toBe('show map');
    expect(encodeCommand(cmd.addServer('be', 'ep', '10.0.0.1', 8080, ['weight', '1', 'check', 'inter', '5000ms']))).toBe(
      'add server be/ep 10.0.0.1:8080 weight 1 check inter 5000ms',
    );
  });
});

describe('decodeReply', () => {
  const SERVERS =
    SERVERS_STATE_HEADER +
    '3 be_http:ns:r 1 pod:a:svc::10.0.0.1:8080 10.0.0.1 2 0 1 1 12 1 0 0 0 0 0 0 - 8080 - 0 0 - - 0\n' +
    '3 be_http:ns:r 2 _dynamic-pod-1 172.4.0.4 0 5 1 1 12 1 0 0 14 0 0 0 - 8765 - 0 0 - - 0\n\n';

  it('reads show servers state rows, every column', () => {
    const r = decodeReply(cmd.showServersState('be_http:ns:r'), SERVERS);
    expect(r.kind === 'servers' && r.rows.map((s) => [s.name, s.address, s.opState, s.adminState, s.weight, s.timeSinceLastChange, s.checkState, s.port])).toEqual([
      ['pod:a:svc::10.0.0.1:8080', '10.0.0.1', 2, 0, 1, 12, 0, 8080],
      ['_dynamic-pod-1', '172.4.0.4', 0, 5, 1, 12, 14, 8765],
    ]);
    expect(encodeReply(r)).toBe(SERVERS);
    expect(decodeReply(cmd.showServersState('x'), "Can't find backend.\n\n")).toEqual({ kind: 'refused', text: "Can't find backend.\n\n" });
    // A row short of srv_port is no listing.
    expect(decodeReply(cmd.showServersState('x'), '1\n3 be 1 s 10.0.0.1 2 0 1\n').kind).toBe('refused');
  });

  it('reads show backend, the map list and a map', () => {
    expect(decodeReply(cmd.showBackend(), '# name\nbe_http:a:b\nbe_tcp:c:d\n\n')).toEqual({ kind: 'backends', names: ['be_http:a:b', 'be_tcp:c:d'] });
    const list =
      "# id (file) description\n1 (/var/lib/haproxy/conf/os_http_be.map) pattern loaded from file '/var/lib/haproxy/conf/os_http_be.map' used by map at file '/var/lib/haproxy/conf/haproxy.config' line 305. curr_ver=0 next_ver=0 entry_cnt=2\n\n";
    const maps = decodeReply(cmd.showMapList(), list);
    expect(maps.kind === 'maps' && maps.maps.map((m) => [m.id, m.file])).toEqual([[1, '/var/lib/haproxy/conf/os_http_be.map']]);
    expect(encodeReply(maps)).toBe(list);
    expect(decodeReply(cmd.showMap('m'), '0x55d0c7a0 ^a\\.b\\.?(:[0-9]+)?(/.*)?$ be_http:n:r\n\n')).toEqual({
      kind: 'entries',
      entries: [{ ref: '0x55d0c7a0', key: '^a\\.b\\.?(:[0-9]+)?(/.*)?$', value: 'be_http:n:r' }],
    });
    expect(decodeReply(cmd.showMap('m'), '\n')).toEqual({ kind: 'entries', entries: [] });
    expect(decodeReply(cmd.showMap('m'), 'Unknown map identifier. Please use #<id> or <file>.\n\n').kind).toBe('refused');
    expect(decodeReply(cmd.showMap('m'), '0x1 k v\nbroken\n').kind).toBe('refused');
  });

  it('accepts what the managers accept', () => {
    const addr = cmd.setServerAddr('be', 's', '10.0.0.1', 8080);
    expect(decodeReply(addr, "IP changed from '172.4.0.4' to '10.0.0.1', port changed from '8765' to '8080' by 'stats socket command'\n").kind).toBe('ok');
    expect(decodeReply(addr, "port changed from '80' to '81' by 'stats socket command'\n").kind).toBe('ok');
    expect(decodeReply(addr, 'no need to change the addr, port\n').kind).toBe('ok');
    // HAProxy 3.x's wording.
    expect(decodeReply(addr, 'nothing changed\n').kind).toBe('ok');
    expect(decodeReply(addr, 'No such server.\n').kind).toBe('refused');
    expect(decodeReply(cmd.enableHealth('a', 'b'), '\n')).toEqual({ kind: 'ok', text: '\n' });
    expect(decodeReply(cmd.enableHealth('a', 'b'), 'No such server.\n\n').kind).toBe('refused');
    expect(decodeReply(cmd.addServer('a', 'b', '10.0.0.1', 80, ['weight', '1']), 'New server registered.\n\n').kind).toBe('ok');
    expect(decodeReply(cmd.delServer('a', 'b'), 'Only servers in maintenance mode can be deleted.\n').kind).toBe('refused');
  });
});

describe('hasCut', () => {
  // The rule, character by character: blank, tab, line ends and `;` end a word or a command; a backslash
  // escapes (unless the word was escaped for the CLI already); a final `<` opens a payload.
  const byCharacter = (s: string, escaped: boolean): boolean =>
    [...s].some((c) => ' \t\n\r;'.includes(c) || (c === '\\' && !escaped)) || s.endsWith('<');
  propTest.prop([fc.string({ unit: fc.constantFrom('a', ':', ' ', '\t', '\n', '\r', ';', '\\', '<', '/', 'é', '\u2028') }), fc.boolean()])(
    'finds what the character rule finds',
    (s, escaped) => {
      expect(hasCut(s, escaped)).toBe(byCharacter(s, escaped));
    },
  );
});

describe('reachesCliVerbatim', () => {
  // First in this file, so that no backend or server has been found plain yet: an empty name must never
  // pass for the last one remembered (the CLI answers `del server /s` with "Require 'backend/server'.").
  it('never takes an empty backend or server for plain', () => {
    expect(reachesCliVerbatim(cmd.delServer('', 'ep-2'))).toBe(false);
    expect(reachesCliVerbatim(cmd.delServer('be', ''))).toBe(false);
    expect(reachesCliVerbatim(cmd.delServer('be', 's'))).toBe(true);
    expect(reachesCliVerbatim(cmd.delServer('', 's'))).toBe(false);
  });

  it('holds for the words the router sends and not for what the CLI would cut or unescape', () => {
    expect(reachesCliVerbatim(cmd.setServerState('be_http:ns:r', '_dynamic-pod-1', 'maint'))).toBe(true);
    expect(reachesCliVerbatim(cmd.addMap('/m/os_http_be.map', '^a\\.b(/.*)?$', 'be_http:ns:r'))).toBe(true);
    expect(reachesCliVerbatim(cmd.addMap('/m/os_http_be.map', '^a/b;c$', 'be'))).toBe(false);
    expect(reachesCliVerbatim(cmd.setServerState('a/b', 'c', 'ready'))).toBe(false);
    expect(reachesCliVerbatim(cmd.showMap('@1'))).toBe(false);
    expect(reachesCliVerbatim(cmd.addServer('be', 's', 'fd00::1', 80, ['weight', '1']))).toBe(false);
    expect(reachesCliVerbatim(cmd.setServerWeight('be', 's', ''))).toBe(false);
  });

  it('checks every keyword list it has not found plain as that same frozen list', () => {
    const frozen = Object.freeze(['weight', '1', 'check']);
    expect(reachesCliVerbatim(cmd.addServer('be', 's', '10.0.0.1', 80, frozen))).toBe(true);
    expect(reachesCliVerbatim(cmd.addServer('be', 's', '10.0.0.1', 80, frozen))).toBe(true);
    // Another list with the same first words but a cut one is checked on its own.
    expect(reachesCliVerbatim(cmd.addServer('be', 's', '10.0.0.1', 80, ['weight', '1', 'check;']))).toBe(false);
    // A list that is not frozen can change between two commands: it is checked each time.
    const open = ['weight', '1'];
    expect(reachesCliVerbatim(cmd.addServer('be', 's', '10.0.0.1', 80, open))).toBe(true);
    open.push('a b');
    expect(reachesCliVerbatim(cmd.addServer('be', 's', '10.0.0.1', 80, open))).toBe(false);
  });
});
