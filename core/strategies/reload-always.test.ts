import { describe, expect, it } from 'vitest';
import { FakeHaproxy } from '../testing/fake-haproxy.ts';
import { Harness } from '../testing/harness.ts';
import { createStrategy } from './index.ts';
import { RouterSettingsSchema } from '../../sim/settings.ts';

describe('reload-always', () => {
  it('requests a reload per change, by kind, and renders without slots', () => {
    const fake = new FakeHaproxy();
    const h = new Harness(createStrategy(RouterSettingsSchema.parse({ strategy: 'reload-always' })), fake);
    const r = { namespace: 'n', name: 'a', host: 'a.example.com', service: 'a' };
    h.sync([{ at: 0, type: 'route.upsert', route: r }]);
    h.apply({ at: 0, type: 'endpoints.set', namespace: 'n', service: 'a', endpoints: [{ ip: '10.0.0.1', port: 80 }] });
    h.apply({ at: 0, type: 'endpoints.set', namespace: 'n', service: 'other', endpoints: [{ ip: '10.0.0.2', port: 80 }] });
    h.apply({ at: 0, type: 'route.upsert', route: { ...r, path: '/p' } });
    // 2 requests: the endpoints of a service no route uses change nothing the router renders.
    expect(h.reasons()).toEqual(['endpoints-change', 'route-change']);
    h.settle();
    expect(fake.backends.get('be_http:n:a')!.servers.map((s) => s.name)).toEqual(['ept:a::10.0.0.1:80']);
    expect(fake.commands).toEqual([]);
  });
});
