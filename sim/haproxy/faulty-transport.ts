import type { RuntimeCommand } from '../../core/haproxy/commands.ts';
import type { TransportResult } from '../../core/runtime-effect.ts';
import type { MockHaproxy } from './mock-haproxy.ts';

/**
 * The stats socket between the config manager and the mocked HAProxy, with faults drawn from a seeded
 * stream. Every send draws exactly two numbers, whatever happens, so changing one rate never shifts the
 * draws of later sends (the run stays comparable across settings).
 *
 * Faults, per send, chosen by the first draw against cumulative rates:
 * - refused: the socket is not accepting (HAProxy busy restarting its listener); nothing executed;
 * - reset: the connection drops; with `resetAfterApplyShare` of them the command had already run, so a
 *   change can be applied without the client knowing (the second draw decides);
 * - restart: HAProxy restarts on its last config before the command (runtime changes lost), and this
 *   connection is refused;
 * - slow: the reply arrives after `slowLatencyUs`; if the client gives up first (`clientTimeoutUs`) it sees
 *   a timeout though the command ran.
 */
export interface FaultRates {
  refused: number;
  reset: number;
  restart: number;
  slow: number;
}

export interface FaultyTransportOptions {
  /** Probability per send of each fault; they are exclusive, so their sum must not exceed 1. */
  rates?: Partial<FaultRates>;
  /** Share of resets that happen after the command ran. Default 0.5. */
  resetAfterApplyShare?: number;
  /** Latency of a normal reply. Default 200 µs (a local unix socket round trip with a small reply). */
  latencyUs?: number;
  /** Latency of a slow reply. Default 2 s. */
  slowLatencyUs?: number;
  /** The client's read timeout; undefined means it waits for every reply. */
  clientTimeoutUs?: number;
  /** Called after each injected restart (e.g. to log it). */
  onRestart?: () => void;
}

export interface UniformStream {
  /** A number in [0, 1). */
  next(): number;
}

export type FaultyResult = TransportResult & { latencyUs: number };

export interface FaultCounts {
  sent: number;
  refused: number;
  reset: number;
  resetAfterApply: number;
  restarts: number;
  slow: number;
  timeouts: number;
}

export interface FaultyTransport {
  send(command: RuntimeCommand): FaultyResult;
  /** Restart HAProxy now (an operator action or a scenario step), independent of the rates. */
  restart(): void;
  readonly counts: Readonly<FaultCounts>;
}

const DEFAULT_LATENCY_US = 200;
const DEFAULT_SLOW_LATENCY_US = 2_000_000;

export function createFaultyTransport(haproxy: MockHaproxy, stream: UniformStream, options: FaultyTransportOptions = {}): FaultyTransport {
  const rates: FaultRates = { refused: 0, reset: 0, restart: 0, slow: 0, ...options.rates };
  for (const [name, p] of Object.entries(rates)) {
    if (!(p >= 0 && p <= 1)) throw new Error(`fault rate ${name} must be in [0, 1], got ${p}`);
  }
  const total = rates.refused + rates.reset + rates.restart + rates.slow;
  if (total > 1 + 1e-12) throw new Error(`fault rates sum to ${total}, more than 1`);
  const afterApply = options.resetAfterApplyShare ?? 0.5;
  if (!(afterApply >= 0 && afterApply <= 1)) throw new Error(`resetAfterApplyShare must be in [0, 1], got ${afterApply}`);
  const latencyUs = options.latencyUs ?? DEFAULT_LATENCY_US;
  const slowLatencyUs = options.slowLatencyUs ?? DEFAULT_SLOW_LATENCY_US;
  const timeoutUs = options.clientTimeoutUs;

  // Cumulative thresholds, fixed at construction.
  const refusedBelow = rates.refused;
  const resetBelow = refusedBelow + rates.reset;
  const restartBelow = resetBelow + rates.restart;
  const slowBelow = restartBelow + rates.slow;

  const counts: FaultCounts = { sent: 0, refused: 0, reset: 0, resetAfterApply: 0, restarts: 0, slow: 0, timeouts: 0 };

  const restart = (): void => {
    haproxy.restart();
    counts.restarts++;
    options.onRestart?.();
  };

  return {
    counts,
    restart,
    send(command: RuntimeCommand): FaultyResult {
      counts.sent++;
      const u = stream.next();
      const v = stream.next();
      if (u < refusedBelow) {
        counts.refused++;
        return { ok: false, error: 'refused', latencyUs };
      }
      if (u < resetBelow) {
        counts.reset++;
        if (v < afterApply) {
          counts.resetAfterApply++;
          haproxy.run(command);
        }
        return { ok: false, error: 'reset', latencyUs };
      }
      if (u < restartBelow) {
        restart();
        return { ok: false, error: 'refused', latencyUs };
      }
      if (u < slowBelow) {
        counts.slow++;
        const reply = haproxy.run(command);
        if (timeoutUs !== undefined && slowLatencyUs > timeoutUs) {
          counts.timeouts++;
          return { ok: false, error: 'timeout', latencyUs: timeoutUs };
        }
        return { ok: true, reply, latencyUs: slowLatencyUs };
      }
      return { ok: true, reply: haproxy.run(command), latencyUs };
    },
  };
}
