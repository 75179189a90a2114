/**
 * IP literals as HAProxy reads and prints them: `inet_pton` rules for input (no leading zeros in IPv4
 * octets, exactly four of them) and glibc's `inet_ntop` form for output (IPv6 lowercased, zero runs
 * compressed, IPv4-mapped and IPv4-compatible addresses with a dotted tail).
 * The runtime API only takes literals in `set server addr`; names there are refused.
 */

import { isDottedQuad } from '../../core/dotted-quad.ts';
import { hasZeroHigh96, ipv6Groups, ipv6Text, lowIpv4Text } from '../../core/ip-literal.ts';

/** The printed form of an IP literal, or undefined if `text` is none. */
export function canonicalIp(text: string): string | undefined {
  if (isDottedQuad(text)) return text;
  if (text.includes(':')) return canonicalIpv6(text);
  return undefined;
}

function canonicalIpv6(text: string): string | undefined {
  const g = ipv6Groups(text);
  if (g === undefined) return undefined;
  // glibc's inet_ntop writes an IPv4-compatible address whose zero run is exactly the first 96 bits with its
  // last 32 bits dotted, where RFC 5952 (and Go) write hex: HAProxy 2.6.12 prints `::1.2.3.4`, yet `::5` for
  // ::0.0.0.5 and `1::102:304` for 1::1.2.3.4 (measured).
  if (hasZeroHigh96(g) && g[6] !== 0) {
    return `::${lowIpv4Text(g)}`;
  }
  return ipv6Text(g);
}
