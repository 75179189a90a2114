import { dottedQuadValue } from './dotted-quad.ts';
import type { Endpoint } from './endpoint.ts';

/**
 * The order the router keeps a service's endpoints in. Its informer converts EndpointSlices to subsets
 * (pkg/router/controller/endpointsubset ConvertEndpointSlice) and sorts each subset's ports
 * (DefaultEndpointPortOrderByFuncs: number, protocol, name) and addresses (DefaultEndpointAddressOrderByFuncs:
 * the IP's bytes as net.ParseIP gives them, then the hostname); createRouterEndpoints then lists the
 * endpoints port by port, address by address. So two `endpoints.set` that list the same addresses in
 * another order give the router the same EndpointTable. An `endpoints.set` is one subset here (the model has
 * no EndpointSlices and no protocol or hostname): by port number, port name, then address; equal keys keep
 * their given order.
 */
export function compareEndpoints(a: Endpoint, b: Endpoint): number {
  if (a.port !== b.port) return a.port - b.port;
  const an = a.portName ?? '';
  const bn = b.portName ?? '';
  if (an !== bn) return an < bn ? -1 : 1;
  return compareIp(a.ip, b.ip);
}

/**
 * The list in the router's order: the same array when it already is (no allocation on the hot path).
 * Checking that it is compares each pair of neighbours as compareEndpoints does, but reads each dotted quad
 * once: the right address of one pair is the left of the next. Every endpoints event asks this, and reading
 * each address twice was 2% of a dcm-add-del replay of the churn slice.
 */
export function inRouterOrder(list: Endpoint[]): Endpoint[] {
  /** The left neighbour's address as a dotted quad when known (>= 0), else -1. */
  let left = -1;
  for (let i = 1; i < list.length; i++) {
    const a = list[i - 1]!;
    const b = list[i]!;
    if (a.port !== b.port || (a.portName ?? '') !== (b.portName ?? '')) {
      if (compareEndpoints(a, b) > 0) return [...list].sort(compareEndpoints);
      left = -1;
      continue;
    }
    if (a.ip === b.ip) continue;
    const x = left >= 0 ? left : dottedQuadValue(a.ip);
    const y = dottedQuadValue(b.ip);
    if (x >= 0 && y >= 0 ? x > y : compareIp(a.ip, b.ip) > 0) return [...list].sort(compareEndpoints);
    left = y;
  }
  return list;
}

/** bytes.Compare of net.ParseIP's 16-byte forms: an IPv4 address is ::ffff:a.b.c.d. */
export function compareIp(a: string, b: string): number {
  if (a === b) return 0;
  // Two plain dotted quads, the common case, in one pass each: this runs for every neighbouring pair of
  // every endpoints event, and the check for ':' before reading them cost as much as reading them.
  const x = dottedQuadValue(a);
  if (x >= 0) {
    const y = dottedQuadValue(b);
    if (y >= 0) return x - y;
  }
  const a4 = !a.includes(':');
  const b4 = !b.includes(':');
  if (a4 && b4) return ipv4NumberBySplit(a) - ipv4NumberBySplit(b);
  const p = ip16(a);
  const q = ip16(b);
  for (let i = 0; i < 16; i++) if (p[i] !== q[i]) return p[i]! - q[i]!;
  return 0;
}

function ipv4NumberBySplit(ip: string): number {
  const p = ip.split('.');
  return ((Number(p[0]) * 256 + Number(p[1])) * 256 + Number(p[2])) * 256 + Number(p[3]);
}

function ip16(ip: string): number[] {
  const out = new Array<number>(16).fill(0);
  if (!ip.includes(':')) {
    out[10] = 0xff;
    out[11] = 0xff;
    ip.split('.').forEach((o, i) => (out[12 + i] = Number(o)));
    return out;
  }
  // IPv6, possibly with '::' and a dotted IPv4 tail (written as two groups first).
  let text = ip;
  const last = text.lastIndexOf(':');
  if (text.includes('.', last)) {
    const v4 = text.slice(last + 1).split('.').map(Number);
    text = `${text.slice(0, last + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const cut = text.indexOf('::');
  const head = (cut < 0 ? text : text.slice(0, cut)).split(':').filter((g) => g.length > 0);
  const rest = cut < 0 ? [] : text.slice(cut + 2).split(':').filter((g) => g.length > 0);
  const groups = cut < 0 ? head : [...head, ...new Array<string>(8 - head.length - rest.length).fill('0'), ...rest];
  const words = groups.map((g) => parseInt(g, 16));
  for (let i = 0; i < 8; i++) {
    out[2 * i] = (words[i]! >> 8) & 0xff;
    out[2 * i + 1] = words[i]! & 0xff;
  }
  return out;
}
