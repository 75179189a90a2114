import { describe, expect, it } from 'vitest';
import type { Endpoint } from './endpoint.ts';
import { RouteAdmission } from './route-admission.ts';
import { applyChurn, emptyRouterState } from './router-state.ts';
import { VouchedEndpointsSet } from './vouched-endpoints-set.ts';

/**
 * Only the event log reader makes a VouchedEndpointsSet, from a list it compared and classified while
 * reading it (sim/eventlog/endpoints-line.test.ts holds it to that). These show that its consumers take
 * its word, and check a plain event with the same list, which is why the reader must never vouch wrongly.
 */
describe('VouchedEndpointsSet', () => {
  const unsorted: Endpoint[] = [
    { ip: '10.0.0.2', port: 80 },
    { ip: '10.0.0.1', port: 80 },
  ];

  it('the state update keeps its list as it is; a plain event with the same list is sorted', () => {
    const vouched = applyChurn(emptyRouterState(), new VouchedEndpointsSet(0, 'ns', 's', unsorted));
    expect(vouched?.kind === 'endpoints.changed' && vouched.after).toBe(unsorted);
    const plain = applyChurn(emptyRouterState(), { at: 0, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints: unsorted });
    expect(plain?.kind === 'endpoints.changed' && plain.after.map((e) => e.ip)).toEqual(['10.0.0.1', '10.0.0.2']);
  });

  it('admission passes its list on unfiltered; a plain event loses its loopback address, with a warning', () => {
    const withLoopback: Endpoint[] = [
      { ip: '10.0.0.1', port: 80 },
      { ip: '127.0.0.1', port: 80 },
    ];
    const said: string[] = [];
    const admission = new RouteAdmission((m) => said.push(m));
    const vouched = new VouchedEndpointsSet(0, 'ns', 's', withLoopback);
    expect(admission.admit(vouched)).toEqual([vouched]);
    expect(said).toEqual([]);
    const [plain] = admission.admit({ at: 0, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints: withLoopback });
    expect(plain?.type === 'endpoints.set' && plain.endpoints.map((e) => e.ip)).toEqual(['10.0.0.1']);
    expect(said).toHaveLength(1);
  });

  it('prints as the event line it was read from', () => {
    expect(JSON.stringify(new VouchedEndpointsSet(3, 'ns', 's', [{ ip: '10.0.0.1', port: 80 }]))).toBe(
      '{"at":3,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[{"ip":"10.0.0.1","port":80}]}',
    );
  });
});
