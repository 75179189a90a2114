import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../../core/events.ts';
import { InputEventSchema } from '../eventlog/event-schema.ts';
import { simplerForms } from './simpler-forms.ts';

const route = {
  namespace: 'shop',
  name: 'r1',
  host: 'r1.apps.example.com',
  path: '/cart',
  service: 's1',
  targetPort: 'http',
  tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'Redirect', certificate: 'C', key: 'K' },
  annotations: { 'haproxy.router.openshift.io/timeout': '5s', 'haproxy.router.openshift.io/balance': 'roundrobin' },
} as const;

describe('simplerForms', () => {
  it('drops each optional part of a route once, whole parts before their pieces, and names nothing new', () => {
    const e: InputEvent = { at: 5, type: 'route.upsert', route: { ...route, tls: { ...route.tls }, annotations: { ...route.annotations } } };
    const forms = simplerForms(e);
    const dropped = forms.map((f) => {
      if (f.type !== 'route.upsert') throw new Error(f.type);
      const gone: string[] = [];
      for (const k of Object.keys(route)) if (!(k in f.route)) gone.push(k);
      for (const k of Object.keys(route.annotations)) if (f.route.annotations !== undefined && !(k in f.route.annotations)) gone.push(`annotations.${k}`);
      for (const k of Object.keys(route.tls)) if (f.route.tls !== undefined && !(k in f.route.tls)) gone.push(`tls.${k}`);
      return gone.join();
    });
    // The route has 4 of the 5 optional fields (no wildcardPolicy), 2 annotations (by name) and 3 optional TLS
    // fields (termination is required): 9 forms.
    expect(dropped).toEqual([
      'tls',
      'annotations',
      'path',
      'targetPort',
      'annotations.haproxy.router.openshift.io/balance',
      'annotations.haproxy.router.openshift.io/timeout',
      'tls.insecureEdgeTerminationPolicy',
      'tls.certificate',
      'tls.key',
    ]);
    for (const f of forms) expect(InputEventSchema.safeParse(f).success).toBe(true);
    // The input is left as it was.
    expect(e.type === 'route.upsert' && e.route.tls?.certificate).toBe('C');
  });

  it('a partition loses one node at a time, never its last, and one-way', () => {
    const e: InputEvent = { at: 0, type: 'network.partition', groups: [['a'], ['b', 'c']], oneWay: true };
    expect(simplerForms(e)).toEqual([
      { at: 0, type: 'network.partition', groups: [['a'], ['b', 'c']] },
      { at: 0, type: 'network.partition', groups: [['b', 'c']], oneWay: true },
      { at: 0, type: 'network.partition', groups: [['a'], ['c']], oneWay: true },
      { at: 0, type: 'network.partition', groups: [['a'], ['b']], oneWay: true },
    ]);
    expect(simplerForms({ at: 0, type: 'network.partition', groups: [['a']] })).toEqual([]);
  });

  it("a join loses its own keepalived settings one by one; a stall halves; other kinds have nothing to lose", () => {
    expect(simplerForms({ at: 0, type: 'node.join', node: 'n4', ip: '10.0.0.4', priority: 50, preempt: false })).toEqual([
      { at: 0, type: 'node.join', node: 'n4', ip: '10.0.0.4', preempt: false },
      { at: 0, type: 'node.join', node: 'n4', ip: '10.0.0.4', priority: 50 },
    ]);
    expect(simplerForms({ at: 0, type: 'node.stall', node: 'n1', durationMs: 7 })).toEqual([{ at: 0, type: 'node.stall', node: 'n1', durationMs: 3 }]);
    expect(simplerForms({ at: 0, type: 'node.stall', node: 'n1', durationMs: 1 })).toEqual([]);
    expect(simplerForms({ at: 0, type: 'node.fail', node: 'n1' })).toEqual([]);
    expect(simplerForms({ at: 0, type: 'endpoints.set', namespace: 'shop', service: 's1', endpoints: [{ ip: '10.0.0.1', port: 80 }] })).toEqual([]);
  });
});
