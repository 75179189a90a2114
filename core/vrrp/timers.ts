/**
 * VRRP timers in integer microseconds, as keepalived computes them (vrrp.h: VRRP_TIMER_SKEW, VRRP_MS_DOWN_TIMER).
 *
 * - v2 (RFC 3768): the advert interval travels in whole seconds; Skew = (256 − priority)/256 s, whatever the interval.
 * - v3 (RFC 5798): the interval travels in centiseconds; Skew = (256 − priority) · Master_Adver_Interval / 256.
 * - Master_Down_Interval = downTimerAdverts · Master_Adver_Interval + Skew (RFC: 3 · interval + Skew).
 */
export type VrrpVersion = 2 | 3;

export const US_PER_S = 1_000_000;
export const US_PER_CS = 10_000;
/** v3's interval field has 12 bits of centiseconds. */
export const V3_MAX_INTERVAL_CS = 4095;

/** Skew time in µs for an instance advertising `priority` (its effective priority). */
export function skewUs(version: VrrpVersion, priority: number, masterAdverIntervalUs: number): number {
  const p = 256 - priority;
  if (version === 2) return Math.floor((p * US_PER_S) / 256);
  // keepalived: ((256 − prio) · (interval / TIMER_CENTI_HZ) · 625) / 16, i.e. (256 − prio) · interval / 256 in µs.
  return Math.floor((p * Math.floor(masterAdverIntervalUs / US_PER_CS) * 625) / 16);
}

/** Master_Down_Interval in µs. */
export function masterDownUs(
  version: VrrpVersion,
  priority: number,
  masterAdverIntervalUs: number,
  downTimerAdverts: number,
): number {
  return downTimerAdverts * masterAdverIntervalUs + skewUs(version, priority, masterAdverIntervalUs);
}

/**
 * The interval an instance really uses for a configured one, as keepalived's vrrp_complete_instance makes
 * it: v2 carries whole seconds (a fractional advert_int is rounded to the nearest, half up, never below
 * 1 s nor above 255 s); v3 carries centiseconds (1..4095).
 */
/** VRRPv2's advert interval field is 8 bits of seconds. */
const V2_MAX_INTERVAL_S = 255;

export function effectiveAdvertIntervalUs(version: VrrpVersion, configuredMs: number): number {
  if (version === 2) return Math.min(V2_MAX_INTERVAL_S, Math.max(1, Math.floor((configuredMs + 500) / 1000))) * US_PER_S;
  const cs = Math.min(V3_MAX_INTERVAL_CS, Math.max(1, Math.round(configuredMs / 10)));
  return cs * US_PER_CS;
}
