import { isDottedQuad } from './dotted-quad.ts';

/**
 * IPv6 literals as eight 16-bit groups, read as `inet_pton` and Go's netip.ParseAddr read them: groups of
 * one to four hex digits, at most one `::`, an IPv4 dotted quad allowed as the last 32 bits. No zone: the
 * event log's addresses have none (zod's IPv6 check refuses `%eth0`), nor does HAProxy's runtime API take one.
 */
export function ipv6Groups(text: string): number[] | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const left = groupsOf(halves[0]!);
  const right = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (left === undefined || right === undefined) return undefined;
  if (halves.length === 1) return left.length === 8 ? left : undefined;
  const missing = 8 - left.length - right.length;
  if (missing < 1) return undefined;
  return [...left, ...new Array<number>(missing).fill(0), ...right];
}

function groupsOf(half: string): number[] | undefined {
  if (half === '') return [];
  const out: number[] = [];
  const parts = half.split(':');
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
}

/** Whether the first 96 bits are zero: an IPv4-compatible address (`::a.b.c.d`, RFC 4291's deprecated form), or `::`/`::1`. */
export function hasZeroHigh96(groups: readonly number[]): boolean {
  return groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0;
}

/** Whether the groups are an IPv4-mapped address, `::ffff:a.b.c.d` (RFC 4291, ::ffff:0:0/96). */
export function isIpv4Mapped(groups: readonly number[]): boolean {
  return groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff;
}

/** The last 32 bits as a dotted quad: the IPv4 address an IPv4-mapped or IPv4-compatible address wraps. */
export function lowIpv4Text(groups: readonly number[]): string {
  return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
}

/**
 * The groups written as Go's netip and `inet_ntop` write them (RFC 5952): lowercase, no leading zeros, the
 * longest run of two or more zero groups (the first of equal ones) as `::`, an IPv4-mapped address with its
 * last 32 bits as a dotted quad.
 */
export function ipv6Text(groups: readonly number[]): string {
  if (isIpv4Mapped(groups)) return `::ffff:${lowIpv4Text(groups)}`;
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
