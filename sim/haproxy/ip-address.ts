/**
 * IP literals as HAProxy reads and prints them: `inet_pton` rules for input (no leading zeros in IPv4
 * octets, exactly four of them) and `inet_ntop` form for output (IPv6 lowercased, zero runs compressed).
 * The runtime API only takes literals in `set server addr`; names there are refused.
 */

import { isDottedQuad } from '../../core/dotted-quad.ts';

/** The printed form of an IP literal, or undefined if `text` is none. */
export function canonicalIp(text: string): string | undefined {
  if (isDottedQuad(text)) return text;
  if (text.includes(':')) return canonicalIpv6(text);
  return undefined;
}

function canonicalIpv6(text: string): string | undefined {
  const groups = parseIpv6(text);
  if (groups === undefined) return undefined;
  // inet_ntop prints an IPv4-mapped address with its IPv4 part dotted.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `::ffff:${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  // inet_ntop compresses the longest run of two or more zero groups, the first one on ties.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) return groups.map((g) => g.toString(16)).join(':');
  const head = groups.slice(0, bestStart).map((g) => g.toString(16)).join(':');
  const tail = groups.slice(bestStart + bestLen).map((g) => g.toString(16)).join(':');
  return `${head}::${tail}`;
}

function parseIpv6(text: string): number[] | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parseHalf = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    const parts = h.split(':');
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k]!;
      if (k === parts.length - 1 && p.includes('.')) {
        if (!isDottedQuad(p)) return undefined;
        const o = p.split('.').map(Number);
        out.push((o[0]! << 8) | o[1]!, (o[2]! << 8) | o[3]!);
        continue;
      }
      if (p.length === 0 || p.length > 4 || !/^[0-9a-fA-F]+$/.test(p)) return undefined;
      out.push(parseInt(p, 16));
    }
    return out;
  };
  const left = parseHalf(halves[0]!);
  const right = halves.length === 2 ? parseHalf(halves[1]!) : [];
  if (left === undefined || right === undefined) return undefined;
  if (halves.length === 1) return left.length === 8 ? left : undefined;
  const missing = 8 - left.length - right.length;
  if (missing < 1) return undefined;
  return [...left, ...new Array<number>(missing).fill(0), ...right];
}
