import type { RuntimeCommand, RuntimeReply } from './haproxy/commands.ts';

/**
 * The config manager never touches a socket or a clock. Its work is a generator that yields effects and is
 * resumed with their results: the simulation answers from the mocked HAProxy on the virtual clock, live
 * mode from a real stats socket. The same core code runs in both. Commands and replies are typed
 * (haproxy/commands.ts); their text exists only on a wire (haproxy/runtime-codec.ts).
 */
export type TransportResult =
  | { ok: true; reply: RuntimeReply }
  | { ok: false; error: 'refused' | 'reset' | 'timeout' };

export type RuntimeEffect =
  /** Send one command (one connection, reply read to EOF). Resumed with a TransportResult. */
  | { kind: 'command'; command: RuntimeCommand }
  /** Wait (client backoff between retries). Resumed with undefined. */
  | { kind: 'sleep'; ms: number };

/** A unit of config-manager work: yields effects, returns its value when done. */
export type RuntimeProgram<T = void> = Generator<RuntimeEffect, T, TransportResult | undefined>;
