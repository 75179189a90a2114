import type { OutputRecord } from '../../sim/output/records.ts';
import { sampleReport } from '../report-fixture.ts';
import type { Report } from '../report.ts';

/** Output records of a small run with churn, two reloads, a node failure and a VIP changing master. */
export function sampleRecords(): OutputRecord[] {
  const s = (ms: number) => ms * 1000;
  return [
    { atUs: 0, type: 'reload.request', reason: 'initial' },
    { atUs: 0, type: 'reload.start', n: 1 },
    { atUs: 0, type: 'vrrp.state', node: 'infra-1', vrid: 51, vip: '198.18.0.100', from: 'BACKUP', to: 'MASTER', priority: 255 },
    { atUs: s(1000), type: 'reload.end', n: 1 },
    { atUs: s(2000), type: 'input', event: 'route.upsert', subject: 'shop/front' },
    { atUs: s(2500), type: 'input', event: 'endpoints.set', subject: 'shop/web' },
    { atUs: s(7000), type: 'reload.start', n: 2 },
    { atUs: s(8000), type: 'reload.end', n: 2 },
    { atUs: s(10_000), type: 'input', event: 'node.fail', subject: 'infra-1' },
    { atUs: s(10_000), type: 'vrrp.state', node: 'infra-1', vrid: 51, vip: '198.18.0.100', from: 'MASTER', to: 'FAULT', priority: 0 },
    { atUs: s(13_100), type: 'vrrp.state', node: 'infra-2', vrid: 51, vip: '198.18.0.100', from: 'BACKUP', to: 'MASTER', priority: 100 },
    { atUs: s(30_000), type: 'input', event: 'node.recover', subject: 'infra-1' },
    { atUs: s(60_000), type: 'run.end', events: 4, simulatedMs: 60_000 },
  ];
}

export function hostileReport(): Report {
  const r = sampleReport({ scenario: '<img src=x onerror="window.__pwned=1">', strategy: 'reload-always</title><script>window.__pwned=2</script>' });
  r.reloads.requests['</td><script>window.__pwned=3</script>'] = 1;
  r.budgets = [{ name: 'reloads.total', limit: '<= 2', actual: 3, pass: false }];
  return r;
}
