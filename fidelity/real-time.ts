import { spawnSync } from 'node:child_process';

/** Wall clock in µs since the epoch, on the same clock as `ip -ts` (CLOCK_REALTIME). */
export function wallUs(): number {
  return Date.now() * 1000;
}

/**
 * Real-time scheduling (SCHED_RR 50, `chrt`) for keepalived, the address monitors and the advert observer, so
 * that the measurement is keepalived's and not the test machine's load: under the full test suite on 2 cores,
 * without it, takeovers were observed up to 190 ms late. Production keepalived is often run so too
 * (`vrrp_rt_priority`); the rendered config is left as the simulator's. Empty when chrt is missing.
 */
export function realtimePrefix(): string[] {
  return spawnSync('chrt', ['-r', '50', 'true'], { timeout: 5000 }).status === 0 ? ['chrt', '-r', '50'] : [];
}
