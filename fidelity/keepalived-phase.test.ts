import { describe, expect, test } from 'vitest';
import { FIDELITY_ADVERT_MS, basePriority, simulateIncident, type MeasuredIncident } from './keepalived-fidelity.ts';

describe('simulateIncident, an advert racing the fault', () => {
  // Measured in a fresh-clone run under load (partition #0, .101): the old master infra-2's advert entered the
  // bridge 32.9 ms after the fault was stamped, yet crossed (the `bridge` command had not acted yet), so the
  // cut-off infra-1 (priority 50) counted its down timer from it: 32.9 + 3·A + Skew = 32.9 + 3000 + 805 ms.
  const skewMs = ((256 - basePriority('infra-1', '198.18.0.101')) / 256) * FIDELITY_ADVERT_MS;
  const crossed = 32.935 + 3 * FIDELITY_ADVERT_MS + skewMs;
  const incident = (latencyMs: number): MeasuredIncident => ({
    kind: 'partition',
    index: 0,
    vip: '198.18.0.101',
    oldMaster: 'infra-2',
    newMaster: 'infra-1',
    latencyMs,
    sinceAcquiredMs: 0,
    sinceAdvertMs: -32.935,
    altSinceAdvertMs: 967.612,
    zeroAdvertMs: null,
    resignMs: null,
  });

  test('both orders are simulated: the advert crossed (its down timer) or was dropped (the one before)', () => {
    // Crossed: the simulated fault lands 1 µs after that advert, so the latency is Master_Down less ~0 ms.
    expect(Math.abs(simulateIncident(incident(crossed)).latencyMs! - (3 * FIDELITY_ADVERT_MS + skewMs))).toBeLessThan(5);
    // Dropped: the last advert heard is the one 967.6 ms before the fault.
    const dropped = 3 * FIDELITY_ADVERT_MS + skewMs - 967.612;
    expect(Math.abs(simulateIncident(incident(dropped)).latencyMs! - dropped)).toBeLessThan(5);
  });
});
