import { dottedQuadValue } from './dotted-quad.ts';
import type { Endpoint } from './endpoint.ts';
import { hasZeroHigh96, ipv6Groups, ipv6Text, isIpv4Mapped, lowIpv4Text } from './ip-literal.ts';
import { SaidOnce } from './said-once.ts';

/**
 * The router's ExtendedValidator keeps every endpoint address that must not be a backend out of HAProxy
 * (extended_validator.go HandleEndpoints, since June 2026, OCPBUGS-87204; whatever the extended route
 * validation setting): unspecified, loopback, link-local unicast, multicast, and the Azure and AWS (IPv6)
 * cloud metadata addresses, also when an IPv6 literal wraps a restricted IPv4 one (`::ffff:127.0.0.1`,
 * `::a9fe:a9fe`). Ready and not-ready addresses alike; a deletion passes untouched.
 *
 * The router then sees the list without them: a change to such addresses alone changes nothing it serves,
 * so it neither reloads nor sends a runtime command for it.
 */
export class EndpointAddressFilter {
  /** The restricted addresses reported, per service key; forgotten when the service's endpoints go. */
  private readonly reported = new SaidOnce();

  constructor(private readonly report: (message: string) => void) {}

  /**
   * The endpoints the router keeps: the same array when every address is allowed (nearly always), else a
   * new one without the restricted ones, each reported once per service while its endpoints stay.
   */
  filter(namespace: string, service: string, endpoints: Endpoint[]): Endpoint[] {
    let i = 0;
    while (i < endpoints.length && (surelyAllowed(endpoints[i]!.ip) || restrictedAddress(endpoints[i]!.ip) === undefined)) i++;
    if (i === endpoints.length) return endpoints;
    const kept = endpoints.slice(0, i);
    for (; i < endpoints.length; i++) {
      const e = endpoints[i]!;
      const why = restrictedAddress(e.ip);
      if (why === undefined) kept.push(e);
      else this.skipped(namespace, service, e.ip, why);
    }
    return kept;
  }

  /** The service's endpoints are deleted: a restricted address it lists again is reported again. */
  forget(namespace: string, service: string): void {
    this.reported.forget(`${namespace}/${service}`);
  }

  private skipped(namespace: string, service: string, ip: string, why: string): void {
    const key = `${namespace}/${service}`;
    if (this.reported.first(key, ip)) this.report(`endpoints ${key}: skipping endpoint address ${ip}: ${why}`);
  }
}

const AZURE_METADATA = dottedQuadValue('168.63.129.16');

/**
 * An IPv4 address whose first octet no rule restricts (pod networks' 10.x, say), found from its first
 * characters: the check runs on every address of every endpoints event, and reading the whole address
 * cost a reload-always replay a few percent.
 */
function surelyAllowed(ip: string): boolean {
  let octet = 0;
  let i = 0;
  for (; i < 3; i++) {
    const d = ip.charCodeAt(i) - 48;
    if (!(d >= 0 && d <= 9)) break;
    octet = octet * 10 + d;
  }
  // Anything but digits and a dot (an IPv6 literal) is checked in full.
  if (i === 0 || ip.charCodeAt(i) !== 46) return false;
  return octet !== 0 && octet !== 127 && octet !== 168 && octet !== 169 && (octet < 224 || octet > 239);
}

/**
 * Why the router skips this endpoint address, in its own words (checkRestrictedIP's error), or undefined
 * when it keeps it. The address as written is checked first, then the IPv4 address an IPv6 literal wraps:
 * an IPv4-mapped one (`::ffff:a.b.c.d`) or an IPv4-compatible one (the first 96 bits zero), as upstream
 * does; the message names the address checked, as Go prints it.
 */
export function restrictedAddress(ip: string): string | undefined {
  const v4 = dottedQuadValue(ip);
  if (v4 >= 0) return restrictedIpv4(v4, ip);
  const groups = ipv6Groups(ip);
  // The reader accepts only IP literals; anything else is "not a valid IP address" upstream.
  if (groups === undefined) return `address "${ip}" is not a valid IP address`;
  const native = restrictedIpv6(groups);
  if (native !== undefined) return `IP address ${ipv6Text(groups)} is ${native}`;
  const mapped = isIpv4Mapped(groups);
  if (mapped || hasZeroHigh96(groups)) {
    const embedded = groups[6]! * 0x10000 + groups[7]!;
    return restrictedIpv4(embedded, lowIpv4Text(groups));
  }
  return undefined;
}

/** Whether the filter keeps this IPv4 address (as dottedQuadValue gives it): a reader vouching for a list asks this. */
export function isAllowedIpv4(v: number): boolean {
  return restrictedIpv4Kind(v) === undefined;
}

function restrictedIpv4(v: number, text: string): string | undefined {
  const why = restrictedIpv4Kind(v);
  return why === undefined ? undefined : `IP address ${text} is ${why}`;
}

/** netip's IsUnspecified, IsLoopback, IsLinkLocalUnicast and IsMulticast of an IPv4 address, then the metadata address. */
function restrictedIpv4Kind(v: number): string | undefined {
  if (v === 0) return 'a restricted unspecified IP';
  const first = Math.floor(v / 0x1000000);
  if (first === 127) return 'a restricted loopback IP';
  if (Math.floor(v / 0x10000) === 0xa9fe) return 'a restricted link-local IP';
  if (first >= 224 && first <= 239) return 'a restricted multicast IP';
  if (v === AZURE_METADATA) return 'a restricted cloud metadata IP';
  return undefined;
}

/**
 * The same of an IPv6 address. netip unmaps an IPv4-mapped address for its loopback, link-local and
 * multicast checks (not for the unspecified one, nor the metadata comparison), so those fire here already,
 * naming the address as written.
 */
function restrictedIpv6(g: readonly number[]): string | undefined {
  if (g.every((x) => x === 0)) return 'a restricted unspecified IP';
  if (isIpv4Mapped(g)) {
    const kind = restrictedIpv4Kind(g[6]! * 0x10000 + g[7]!);
    return kind === 'a restricted unspecified IP' || kind === 'a restricted cloud metadata IP' ? undefined : kind;
  }
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'a restricted loopback IP';
  if ((g[0]! & 0xffc0) === 0xfe80) return 'a restricted link-local IP';
  if (g[0]! >> 8 === 0xff) return 'a restricted multicast IP';
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0 && g[6] === 0 && g[7] === 0x0254) {
    return 'a restricted cloud metadata IP';
  }
  return undefined;
}
