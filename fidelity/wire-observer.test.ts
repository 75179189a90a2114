import { describe, expect, test } from 'vitest';
import { parseWireLine, type WireNodes } from './wire-observer.ts';

// Two nodes as the harness builds them: infra-1 on bridge port p0 with 198.18.0.11, infra-2 on p1 with .12.
const nodes: WireNodes = {
  nodeOfIp: (ip) => ({ '198.18.0.11': 'infra-1', '198.18.0.12': 'infra-2' })[ip],
  nodeOfPort: (port) => ({ '0': 'infra-1', '1': 'infra-2' })[port],
};

describe('parseWireLine: what the observer prints', () => {
  test('an advert: `<time> <source ip> <vrid> <priority>`, told by its source address; time in µs', () => {
    // 1764547200.250000 s = 1,764,547,200,250,000 µs.
    expect(parseWireLine('1764547200.250000 198.18.0.12 51 100\n', nodes)).toEqual({ advert: { atUs: 1_764_547_200_250_000, node: 'infra-2', vrid: 51, priority: 100 } });
  });

  test('a gratuitous ARP: `<time> G <port> <address>`, told by the bridge port (every node claims the same VIP)', () => {
    expect(parseWireLine('1764547200.000001 G 0 198.18.0.100', nodes)).toEqual({ garp: { atUs: 1_764_547_200_000_001, node: 'infra-1', address: '198.18.0.100' } });
  });

  test('a sender of no node, an unknown port or an empty line is nothing', () => {
    expect(parseWireLine('1764547200.0 198.18.0.99 51 100', nodes)).toBeNull();
    expect(parseWireLine('1764547200.0 G 7 198.18.0.100', nodes)).toBeNull();
    expect(parseWireLine('', nodes)).toBeNull();
  });
});
