import { describe, expect, it } from 'vitest';
import type { RuntimeEffect, TransportResult } from './runtime-effect.ts';
import { driveSync } from './runtime-drive.ts';
import {
  checkShowMap,
  isAcceptedAddrReply,
  parsePrepareMap,
  parseServersState,
  parseShowBackend,
  parseShowMap,
  parseShowMapList,
  readServersState,
  runCommand,
  runExpecting,
  runSilent,
  showMapRefs,
  TransportError,
  UnexpectedReplyError,
} from './runtime-client.ts';
import * as cmd from './haproxy/commands.ts';

function scripted(results: TransportResult[]): (line: string) => TransportResult {
  let i = 0;
  return () => results[i++] ?? { ok: true, reply: '\n' };
}

describe('runCommand retries', () => {
  it('retries refused/reset at most 3 attempts, sleeping 10 then 20 ms', () => {
    const trace: RuntimeEffect[] = [];
    const answer = scripted([{ ok: false, error: 'refused' }, { ok: false, error: 'reset' }, { ok: true, reply: 'x\n' }]);
    expect(driveSync(runCommand('show backend'), answer, trace)).toBe('x\n');
    expect(trace).toEqual([
      { kind: 'command', line: 'show backend' },
      { kind: 'sleep', ms: 10 },
      { kind: 'command', line: 'show backend' },
      { kind: 'sleep', ms: 20 },
      { kind: 'command', line: 'show backend' },
    ]);
  });

  it('gives up after the third refused attempt without a trailing sleep', () => {
    const trace: RuntimeEffect[] = [];
    const answer = scripted([{ ok: false, error: 'refused' }, { ok: false, error: 'refused' }, { ok: false, error: 'refused' }]);
    expect(() => driveSync(runCommand('show map'), answer, trace)).toThrow(TransportError);
    expect(trace.filter((e) => e.kind === 'command')).toHaveLength(3);
    expect(trace.filter((e) => e.kind === 'sleep').map((e) => (e.kind === 'sleep' ? e.ms : 0))).toEqual([10, 20]);
  });

  it('does not retry a timeout', () => {
    const trace: RuntimeEffect[] = [];
    try {
      driveSync(runCommand('show map'), scripted([{ ok: false, error: 'timeout' }]), trace);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TransportError);
      expect((e as TransportError).attempts).toBe(1);
    }
    expect(trace).toHaveLength(1);
  });
});

describe('acceptance checks', () => {
  it('accepts the set server addr replies of 2.6 and 3.x', () => {
    expect(isAcceptedAddrReply('IP changed from \'172.4.0.4\' to \'10.0.0.1\', port changed from \'8765\' to \'8080\' by \'stats socket command\'\n')).toBe(true);
    expect(isAcceptedAddrReply('port changed from \'80\' to \'81\' by \'stats socket command\'\n')).toBe(true);
    expect(isAcceptedAddrReply('no need to change the addr, port\n')).toBe(true);
    expect(isAcceptedAddrReply('nothing changed\n')).toBe(true);
    expect(isAcceptedAddrReply('No such server.\n')).toBe(false);
  });

  it('silent commands fail on any text, add/del server need their exact sentence', () => {
    expect(() => driveSync(runSilent('set server a/b state ready'), () => ({ ok: true, reply: '\n' }))).not.toThrow();
    expect(() => driveSync(runSilent('set server a/b state ready'), () => ({ ok: true, reply: 'No such server.\n\n' }))).toThrow(UnexpectedReplyError);
    expect(() => driveSync(runExpecting('add server a/b 1.1.1.1:80', 'New server registered.'), () => ({ ok: true, reply: 'New server registered.\n\n' }))).not.toThrow();
    expect(() => driveSync(runExpecting('del server a/b', 'Server deleted.'), () => ({ ok: true, reply: 'Only a server in maintenance mode can be deleted.\n\n' }))).toThrow(UnexpectedReplyError);
  });
});

describe('parsers', () => {
  it('parses show servers state', () => {
    const reply =
      '1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr srv_agent_port\n' +
      '3 be_http:ns:r 1 pod:a:svc::10.0.0.1:8080 10.0.0.1 2 0 1 1 12 1 0 0 0 0 0 0 - 8080 - 0 0 - - 0\n' +
      '3 be_http:ns:r 2 _dynamic-pod-1 172.4.0.4 0 5 1 1 12 1 0 0 14 0 0 0 - 8765 - 0 0 - - 0\n\n';
    expect(parseServersState(reply)).toEqual([
      { backendId: 3, backendName: 'be_http:ns:r', id: 1, name: 'pod:a:svc::10.0.0.1:8080', address: '10.0.0.1', opState: 2, adminState: 0, weight: 1, initialWeight: 1, port: 8080 },
      { backendId: 3, backendName: 'be_http:ns:r', id: 2, name: '_dynamic-pod-1', address: '172.4.0.4', opState: 0, adminState: 5, weight: 1, initialWeight: 1, port: 8765 },
    ]);
    expect(() => parseServersState("Can't find backend.\n\n")).toThrow(UnexpectedReplyError);
  });

  it('parses show backend, show map list, show map rows and prepare map', () => {
    expect(parseShowBackend('# name\nbe_http:a:b\nbe_tcp:c:d\n\n')).toEqual(['be_http:a:b', 'be_tcp:c:d']);
    expect(
      parseShowMapList(
        "# id (file) description\n1 (/var/lib/haproxy/conf/os_http_be.map) pattern loaded from file '/var/lib/haproxy/conf/os_http_be.map' used by map at file '/var/lib/haproxy/conf/haproxy.config' line 305. curr_ver=0 next_ver=0 entry_cnt=2\n\n",
      ),
    ).toEqual([{ id: '1', file: '/var/lib/haproxy/conf/os_http_be.map' }]);
    expect(parseShowMap('0x55d0c7a0 ^a\\.b\\.?(:[0-9]+)?(/.*)?$ be_http:n:r\n\n')).toEqual([
      { ref: '0x55d0c7a0', key: '^a\\.b\\.?(:[0-9]+)?(/.*)?$', value: 'be_http:n:r' },
    ]);
    expect(() => parseShowMap('Unknown map identifier. Please use #<id> or <file>.\n\n')).toThrow(UnexpectedReplyError);
    expect(parsePrepareMap('New version created: 3\n\n')).toBe(3);
  });

  it('finds map rows by key as parseShowMap would, without its rows', () => {
    const reply = '0x1 ^a$ be_x\n0x2 ^b$ be_y ^a$ tail\n0x3 ^a$ be_z\n0x4  empty\n\n';
    checkShowMap(reply);
    for (const key of ['^a$', '^b$', '', 'be_x', '^a$ be_x', 'nope']) {
      expect(showMapRefs(reply, key)).toEqual(parseShowMap(reply).filter((r) => r.key === key).map((r) => r.ref));
    }
    expect(showMapRefs(reply, '^a$')).toEqual(['0x1', '0x3']);
    expect(() => checkShowMap('Unknown map identifier. Please use #<id> or <file>.\n\n')).toThrow(UnexpectedReplyError);
    expect(() => checkShowMap('0x1 k v\nbroken\n')).toThrow(UnexpectedReplyError);
  });

  it('reads the servers state fields the manager caches, as parseServersState does', () => {
    const reply =
      '1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr srv_agent_port\n' +
      '3 be_http:ns:r 1 pod:a:svc::10.0.0.1:8080 10.0.0.1 2 0 256 1 12 1 0 0 0 0 0 0 - 8080 - 0 0 - - 0\n' +
      '3 be_http:ns:r 2 _dynamic-pod-1 172.4.0.4 0 5 007 1 12 1 0 0 14 0 0 0 - 8765\n\n';
    const rows = readServersState(reply, 'show servers state', (name, address, weight, weightText, port) => ({ name, address, weight, weightText, port }));
    expect(rows).toEqual(
      parseServersState(reply).map((r) => ({ name: r.name, address: r.address, weight: r.weight, weightText: String(r.weight), port: r.port })),
    );
    expect(rows[1]).toEqual({ name: '_dynamic-pod-1', address: '172.4.0.4', weight: 7, weightText: '7', port: 8765 });
    expect(() => readServersState('1\n3 be 1 s 10.0.0.1 2 0 1\n', 'x', () => 0)).toThrow(UnexpectedReplyError);
  });

  it('builds command text', () => {
    expect(cmd.setServerAddr('be', 's', '10.0.0.1', 8080)).toBe('set server be/s addr 10.0.0.1 port 8080');
    expect(cmd.setServerAddr('be', 's', '10.0.0.1')).toBe('set server be/s addr 10.0.0.1');
    expect(cmd.addMap('/m/os_http_be.map', '^a\\.b$', 'be')).toBe('add map /m/os_http_be.map ^a\\\\\\.b$ be');
    expect(cmd.delMapRef('os_tcp_be.map', '0x1')).toBe('del map os_tcp_be.map #0x1');
  });
});
