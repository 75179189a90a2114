import { spawn, type ChildProcess } from 'node:child_process';
import { onChildLines } from './child-lines.ts';

/** A VIP added to or removed from a node's interface, as the kernel reported it. */
export interface AddressEvent {
  /** Wall clock, µs since the epoch. */
  atUs: number;
  node: string;
  address: string;
  added: boolean;
}

const MONITOR_LINE = /^\[(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{6})\]\s+(Deleted\s+)?\d+:\s+\S+\s+inet\s+([\d.]+)\//;

/** One line of `ip -ts -o monitor address` (run with TZ=UTC) → an IPv4 address event, or null. */
export function parseMonitorLine(line: string, node: string): AddressEvent | null {
  const m = MONITOR_LINE.exec(line);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, us, deleted, address] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  return { atUs: ms * 1000 + Number(us), node, address: address!, added: deleted === undefined };
}

/**
 * Watches the addresses of network namespace `ns` (node `node`) with `ip -ts -o monitor address`: kernel
 * events, stamped in UTC to the microsecond when `ip` reads them. `prefix` runs it at real-time priority.
 */
export function watchAddresses(prefix: readonly string[], ns: string, node: string, onEvent: (e: AddressEvent) => void): ChildProcess {
  const [cmd, ...args] = [...prefix, 'ip', 'netns', 'exec', ns, 'ip', '-ts', '-o', 'monitor', 'address'];
  const p = spawn(cmd!, args, {
    env: { ...process.env, TZ: 'UTC' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  onChildLines(p, (line) => {
    const e = parseMonitorLine(line, node);
    if (e) onEvent(e);
  });
  return p;
}
