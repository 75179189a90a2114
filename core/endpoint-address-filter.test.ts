import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { Endpoint } from './endpoint.ts';
import { EndpointAddressFilter, restrictedAddress } from './endpoint-address-filter.ts';

describe('restrictedAddress: the ExtendedValidator endpoint check (extended_validator.go checkRestrictedIP)', () => {
  // Each reason is Go's netip predicate named in the comment, applied to the address as written, then to the
  // IPv4 address an IPv6 literal wraps; the message names the address that failed, as netip prints it.
  it.each([
    ['0.0.0.0', 'IP address 0.0.0.0 is a restricted unspecified IP'], // IsUnspecified
    ['::', 'IP address :: is a restricted unspecified IP'],
    ['127.0.0.1', 'IP address 127.0.0.1 is a restricted loopback IP'], // IsLoopback: 127/8
    ['127.127.127.222', 'IP address 127.127.127.222 is a restricted loopback IP'],
    ['::1', 'IP address ::1 is a restricted loopback IP'],
    ['169.254.169.254', 'IP address 169.254.169.254 is a restricted link-local IP'], // IsLinkLocalUnicast: 169.254/16
    ['169.254.1.1', 'IP address 169.254.1.1 is a restricted link-local IP'],
    ['fe80::1', 'IP address fe80::1 is a restricted link-local IP'], // fe80::/10
    ['febf:ffff::1', 'IP address febf:ffff::1 is a restricted link-local IP'],
    ['224.0.0.1', 'IP address 224.0.0.1 is a restricted multicast IP'], // IsMulticast: 224/4
    ['239.255.255.250', 'IP address 239.255.255.250 is a restricted multicast IP'],
    ['ff02::1', 'IP address ff02::1 is a restricted multicast IP'], // ff00::/8
    ['168.63.129.16', 'IP address 168.63.129.16 is a restricted cloud metadata IP'],
    ['FD00:EC2::254', 'IP address fd00:ec2::254 is a restricted cloud metadata IP'],
    // IPv4-mapped: netip unmaps for loopback, link-local and multicast, so the first pass names the mapped form.
    ['::ffff:127.0.0.1', 'IP address ::ffff:127.0.0.1 is a restricted loopback IP'],
    ['::FFFF:A9FE:A9FE', 'IP address ::ffff:169.254.169.254 is a restricted link-local IP'],
    // Not for unspecified or the metadata comparison: the second pass, on the unmapped address, names that.
    ['::ffff:0.0.0.0', 'IP address 0.0.0.0 is a restricted unspecified IP'],
    ['::ffff:168.63.129.16', 'IP address 168.63.129.16 is a restricted cloud metadata IP'],
    // IPv4-compatible (the first 96 bits zero): only the second pass sees the IPv4 address.
    ['::127.0.0.1', 'IP address 127.0.0.1 is a restricted loopback IP'],
    ['::a9fe:a9fe', 'IP address 169.254.169.254 is a restricted link-local IP'],
  ])('%s is skipped: %s', (ip, why) => {
    expect(restrictedAddress(ip)).toBe(why);
  });

  it.each(['10.128.0.7', '1.2.3.4', '0.1.2.3', '126.255.255.255', '128.0.0.1', '169.253.255.255', '169.255.0.1', '223.255.255.255', '240.0.0.1', '168.63.129.17', '2001:db8::1', 'fec0::1', 'fe7f::1', 'fd00:ec2::253', '::2', '::ffff:10.0.0.1', '::10.0.0.1'])(
    '%s is kept',
    (ip) => {
      // 0.1.2.3 is not the unspecified address; 240/4 is not multicast; fec0::/10 is past fe80::/10's end;
      // ::2 wraps 0.0.0.2, which nothing restricts.
      expect(restrictedAddress(ip)).toBeUndefined();
    },
  );
});

describe('EndpointAddressFilter', () => {
  const ep = (ip: string, extra: Partial<Endpoint> = {}): Endpoint => ({ ip, port: 8080, ...extra });

  it('hands back the same list when every address is allowed', () => {
    const f = new EndpointAddressFilter(() => {});
    const list = [ep('10.0.0.1'), ep('10.0.0.2')];
    expect(f.filter('ns', 'svc', list)).toBe(list);
  });

  it('drops restricted addresses, ready or not, in order, and says so once per service and address', () => {
    const said: string[] = [];
    const f = new EndpointAddressFilter((m) => said.push(m));
    const list = [ep('10.0.0.1'), ep('127.0.0.1'), ep('10.0.0.2', { ready: false }), ep('169.254.169.254', { ready: false })];
    expect(f.filter('ns', 'svc', list)).toEqual([ep('10.0.0.1'), ep('10.0.0.2', { ready: false })]);
    f.filter('ns', 'svc', list);
    expect(said).toEqual([
      'endpoints ns/svc: skipping endpoint address 127.0.0.1: IP address 127.0.0.1 is a restricted loopback IP',
      'endpoints ns/svc: skipping endpoint address 169.254.169.254: IP address 169.254.169.254 is a restricted link-local IP',
    ]);
    // Another service with the same address is reported apart; after its endpoints are deleted, a service's
    // restricted address is reported again.
    f.filter('ns', 'other', [ep('127.0.0.1')]);
    f.forget('ns', 'svc');
    f.filter('ns', 'svc', [ep('127.0.0.1')]);
    expect(said).toHaveLength(4);
  });
});

describe('EndpointAddressFilter against the full check', () => {
  // The filter skips the full check for addresses whose first octet nothing restricts; over any addresses,
  // restricted first octets made likely, it keeps exactly those the full check keeps.
  const octet = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0, 127, 168, 169, 224, 239, 240));
  const v4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
  const address = fc.oneof(v4, fc.ipV6(), v4.map((a) => `::ffff:${a}`), v4.map((a) => `::${a}`));
  test.prop([fc.array(address, { maxLength: 8 })])('keeps what restrictedAddress allows, in order', (ips) => {
    const list = ips.map((ip) => ({ ip, port: 80 }));
    const kept = new EndpointAddressFilter(() => {}).filter('ns', 'svc', list);
    expect(kept.map((e) => e.ip)).toEqual(ips.filter((ip) => restrictedAddress(ip) === undefined));
  });
});
