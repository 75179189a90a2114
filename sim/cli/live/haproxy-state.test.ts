import { describe, expect, it } from 'vitest';
import { diffStates, mapPathsOf, normaliseReply, sameState } from './haproxy-state.ts';

// Rows as HAProxy 2.6.12 printed them in a live run (sim/cli/live/live.test.ts's log).
const HEAD = '1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr srv_agent_port\n';
/** A used `_dynamic-pod-1` slot: op 2, admin 4, checks configured and enabled (srv_check_state 6). */
const slot = (op: number, since: number) => `14 be_edge_http:shop:api 3 _dynamic-pod-1 10.128.0.22 ${op} 4 1 1 ${since} 1 0 2 6 0 0 0 - 8080 - 0 0 - - 0\n`;
/** A server in forced maintenance with paused checks (srv_check_state 14). */
const maint = (op: number) => `14 be_edge_http:shop:api 1 ept:api::10.128.0.20:8080 10.128.0.20 ${op} 1 1 1 0 1 0 0 14 0 0 0 - 8080 - 0 0 - - 0\n`;

describe('what counts as the same HAProxy state', () => {
  it('masks pointers, time since the last change and the check columns', () => {
    expect(normaliseReply('0x55c6e60a20d0 ^a$ be\n')).toBe('0xPTR ^a$ be\n');
    expect(sameState(HEAD + slot(2, 7), HEAD + slot(2, 0))).toBe(true);
  });

  it('lets a running check decide the op state of the real server, and nothing else', () => {
    // Down after failed checks in the real process, running in the mock: the same state.
    expect(sameState(HEAD + slot(0, 12), HEAD + slot(2, 0))).toBe(true);
    // Not when its address differs too.
    expect(sameState(HEAD + slot(0, 12).replace('10.128.0.22 0', '10.128.0.23 0'), HEAD + slot(2, 0))).toBe(false);
    // Paused checks (maintenance) do not set the op state: a difference there is a real one.
    expect(sameState(HEAD + maint(2), HEAD + maint(0))).toBe(false);
    // Only the real row's checks count: the mock never runs any.
    expect(sameState(HEAD + maint(0), HEAD + maint(0))).toBe(true);
  });

  it('reports the requests whose replies differ, and those asked on one side only', () => {
    const real = [
      { request: 'show servers state', reply: HEAD + slot(0, 3) },
      { request: 'show map', reply: '# id (file) description\n0 (/x/os_http_be.map) pattern loaded …\n' },
    ];
    const mock = [
      { request: 'show servers state', reply: HEAD + slot(2, 0) },
      { request: 'show map /x/os_http_be.map', reply: '' },
    ];
    expect(diffStates(real, mock).map((d) => d.request)).toEqual(['show map', 'show map /x/os_http_be.map']);
    expect(mapPathsOf(real[1]!.reply)).toEqual(['/x/os_http_be.map']);
  });
});
