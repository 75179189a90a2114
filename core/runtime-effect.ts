import type { RuntimeCommand, RuntimeReply } from './haproxy/commands.ts';

/**
 * The config manager never touches a socket or a clock. Its work is a generator that yields effects and is
 * resumed with their results: the simulation answers from the mocked HAProxy on the virtual clock, live
 * mode from a real stats socket. The same core code runs in both. Commands and replies are typed
 * (haproxy/commands.ts); their text exists only on a wire (haproxy/runtime-codec.ts).
 */
export type TransportResult = { ok: true; reply: RuntimeReply } | { ok: false; error: TransportFault };

/**
 * Why a command was not delivered: the connection was refused (a socket file nobody listens on) or reset,
 * no reply came in time, the socket could not be opened at all (no such file, permission denied), or the
 * command could not be written because HAProxy had already closed its end (a broken pipe). The router's
 * client retries only the first two (client.go isRetriable matches the error texts ending in
 * "connection refused" and "connection reset by peer"; Go says "broken pipe" for the last).
 */
export type TransportFault = 'refused' | 'reset' | 'timeout' | 'unavailable' | 'broken-pipe';

/** Wait (client backoff between retries). Resumed with undefined. */
export interface Sleep {
  readonly kind: 'sleep';
  readonly ms: number;
}

/**
 * A command is its own effect: send it (one connection, reply read to EOF), resumed with a TransportResult.
 * No command kind is `sleep`, so the two tell apart by `kind`, and a command costs no wrapper object (a
 * dcm-slots replay of a busy day sends about three per event).
 */
export type RuntimeEffect = RuntimeCommand | Sleep;

/** Whether the effect is a wait rather than a command. */
export function isSleep(effect: RuntimeEffect): effect is Sleep {
  return effect.kind === 'sleep';
}

/** A unit of config-manager work: yields effects, returns its value when done. */
export type RuntimeProgram<T = void> = Generator<RuntimeEffect, T, TransportResult | undefined>;
