/**
 * IP literals as HAProxy reads and prints them: `inet_pton` rules for input (no leading zeros in IPv4
 * octets, exactly four of them) and `inet_ntop` form for output (IPv6 lowercased, zero runs compressed).
 * The runtime API only takes literals in `set server addr`; names there are refused.
 */

import { isDottedQuad } from '../../core/dotted-quad.ts';
import { ipv6Groups, ipv6Text } from '../../core/ip-literal.ts';

/** The printed form of an IP literal, or undefined if `text` is none. */
export function canonicalIp(text: string): string | undefined {
  if (isDottedQuad(text)) return text;
  if (text.includes(':')) return canonicalIpv6(text);
  return undefined;
}

function canonicalIpv6(text: string): string | undefined {
  const groups = ipv6Groups(text);
  return groups === undefined ? undefined : ipv6Text(groups);
}
