import { describe, expect, test } from 'vitest';
import { parseMonitorLine } from './address-monitor.ts';

describe('parseMonitorLine: `ip -ts -o monitor address` under TZ=UTC', () => {
  test('an address added and deleted, stamped to the microsecond', () => {
    // 2026-12-01T14:30:05 UTC = 1,796,135,405 s since the epoch: 2026-12-01 is day 20,788 (56 years from 1970
    // with 14 leap days: 56·365 + 14 = 20,454 days to 2026-01-01, then 334 days to 1 December), 20,788 · 86,400
    // = 1,796,083,200, plus 14·3600 + 30·60 + 5 = 52,205; then 123,456 µs.
    const added = '[2026-12-01T14:30:05.123456] 2: eth0    inet 198.18.0.100/32 scope global eth0\\       valid_lft forever preferred_lft forever';
    expect(parseMonitorLine(added, 'infra-1')).toEqual({ atUs: 1_796_135_405_123_456, node: 'infra-1', address: '198.18.0.100', added: true });
    const deleted = '[2026-12-01T14:30:06.000001] Deleted 2: eth0    inet 198.18.0.100/32 scope global eth0';
    expect(parseMonitorLine(deleted, 'infra-1')).toEqual({ atUs: 1_796_135_406_000_001, node: 'infra-1', address: '198.18.0.100', added: false });
  });

  test('IPv6 and other lines are not address events', () => {
    expect(parseMonitorLine('[2026-12-01T14:30:05.123456] 2: eth0    inet6 fe80::1/64 scope link', 'infra-1')).toBeNull();
    expect(parseMonitorLine('Deleted something else', 'infra-1')).toBeNull();
  });
});
