import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { onChildLines } from './child-lines.ts';

/** A gratuitous ARP for `address` seen entering the bridge from a node's port. */
export interface GarpEvent {
  atUs: number;
  node: string;
  address: string;
}

/** A VRRP advert seen entering the bridge from a node (the observer in the bridge namespace). */
export interface AdvertEvent {
  /** Wall clock, µs since the epoch, when the observer read it. */
  atUs: number;
  node: string;
  vrid: number;
  priority: number;
}

/**
 * The observer: an AF_PACKET socket in the bridge namespace that prints every IP protocol 112 packet (a VRRP
 * advert: `<time> <source ip> <vrid> <priority>`) and every gratuitous ARP (`<time> G <port index>
 * <address>`) entering a bridge port (not the copies the bridge forwards out of the others). Python 3
 * because Node has no packet sockets; optional (nothing is observed without python3).
 */
const OBSERVER_PY = [
  'import socket, time',
  // ETH_P_ALL: only the all-protocol taps see frames on a bridge port before the bridge takes them.
  's = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(3))',
  'while True:',
  '    d, a = s.recvfrom(4096)',
  '    if a[2] == socket.PACKET_OUTGOING or not a[0].startswith("p"): continue',
  // A gratuitous ARP: sender and target address the same (keepalived sends requests), told by the port.
  '    if a[1] == 0x0806 and len(d) >= 28 and d[14:18] == d[24:28]:',
  '        print("%.6f G %s %s" % (time.time(), a[0][1:], socket.inet_ntoa(d[14:18])), flush=True)',
  '        continue',
  '    if a[1] != 0x0800 or len(d) < 24 or d[9] != 112: continue',
  '    h = (d[0] & 15) * 4',
  '    print("%.6f %s %d %d" % (time.time(), socket.inet_ntoa(d[12:16]), d[h + 1], d[h + 2]), flush=True)',
].join('\n');

export function python3Path(): string | null {
  for (const p of ['/usr/bin/python3', 'python3']) if (!spawnSync(p, ['-c', 'import socket'], { timeout: 5000 }).error) return p;
  return null;
}

/** Who sent what the observer saw: adverts carry their source address, GARPs only their bridge port. */
export interface WireNodes {
  nodeOfIp(ip: string): string | undefined;
  nodeOfPort(portIndex: string): string | undefined;
}

/** One line the observer printed → an advert or a GARP of a known node, or null. */
export function parseWireLine(line: string, nodes: WireNodes): { advert: AdvertEvent } | { garp: GarpEvent } | null {
  const [t, src, vrid, prio] = line.trim().split(' ');
  if (t === undefined) return null;
  const atUs = Math.round(Number(t) * 1e6);
  if (src === 'G') {
    // The port tells the sender, as every node claims the same VIP.
    const node = nodes.nodeOfPort(vrid ?? '');
    return node === undefined || prio === undefined ? null : { garp: { atUs, node, address: prio } };
  }
  const node = nodes.nodeOfIp(src ?? '');
  return node === undefined ? null : { advert: { atUs, node, vrid: Number(vrid), priority: Number(prio) } };
}

/**
 * Starts the observer in the bridge namespace `bridgeNs` (at real-time priority with `prefix`); null without
 * python3.
 */
export function watchWire(
  prefix: readonly string[],
  bridgeNs: string,
  nodes: WireNodes,
  on: { advert(e: AdvertEvent): void; garp(e: GarpEvent): void },
): ChildProcess | null {
  const py = python3Path();
  if (py === null) return null;
  const [cmd, ...args] = [...prefix, 'ip', 'netns', 'exec', bridgeNs, py, '-u', '-c', OBSERVER_PY];
  const p = spawn(cmd!, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  onChildLines(p, (line) => {
    const e = parseWireLine(line, nodes);
    if (e === null) return;
    if ('advert' in e) on.advert(e.advert);
    else on.garp(e.garp);
  });
  return p;
}
