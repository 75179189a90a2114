import type { RuntimeCommand, RuntimeReply } from './haproxy/commands.ts';
import { encodeCommand, encodeReply } from './haproxy/runtime-codec.ts';
import type { RuntimeProgram, TransportFault, TransportResult } from './runtime-effect.ts';

/**
 * The runtime API client as a generator (modelled on configmanager/haproxy client.go): one connection per
 * command, retried only when the connection was refused or reset, at most 3 attempts with exponential
 * backoff 10 ms, 20 ms (k8s wait.ExponentialBackoff{Duration: 10ms, Factor: 2, Steps: 3} sleeps between
 * attempts only). Errors quote the command and reply as HAProxy saw them (their wire text).
 */

export const MAX_ATTEMPTS = 3;
export const BACKOFF_INITIAL_MS = 10;
export const BACKOFF_FACTOR = 2;

/**
 * Base of every client error: a dynamic change that failed, so the router must reload. These are answers,
 * not faults: the managers catch every one, and under churn they come by the hundred thousand, so they are
 * plain objects without the stack trace an Error would capture.
 */
export class RuntimeApiError {
  name = 'RuntimeApiError';
  constructor(
    readonly message: string,
    readonly command: string,
  ) {}
}

/** The socket could not be used (after retries, for refused and reset). */
export class TransportError extends RuntimeApiError {
  constructor(
    command: string,
    readonly error: TransportFault,
    readonly attempts: number,
  ) {
    super(`${command}: connection ${error} after ${attempts} attempt(s)`, command);
    this.name = 'TransportError';
  }
}

/** HAProxy answered something the router does not accept for that command. */
export class UnexpectedReplyError extends RuntimeApiError {
  constructor(
    command: string,
    readonly reply: string,
  ) {
    super(`unexpected response from haproxy to "${command}": ${reply.trim()}`, command);
    this.name = 'UnexpectedReplyError';
  }
}

/** A backend, server or map the manager expected is not in HAProxy (e.g. a route not loaded yet). */
export class NotFoundError extends RuntimeApiError {
  constructor(
    command: string,
    readonly what: 'backend' | 'server' | 'map',
    readonly id: string,
  ) {
    super(`no ${what} found for id: ${id}`, command);
    this.name = 'NotFoundError';
  }
}

/** Sends one command; resolves with HAProxy's typed reply. Throws TransportError. */
export function* runCommand(command: RuntimeCommand): RuntimeProgram<RuntimeReply> {
  const first = yield command;
  return first !== undefined && first.ok ? first.reply : yield* retryCommand(command, first);
}

/**
 * runCommand after its first attempt, which did not deliver: the retries, or the error. Hot paths send the
 * first attempt themselves and come here only on failure, which spares a generator per command:
 * `const r = yield command; const reply = r?.ok ? r.reply : yield* retryCommand(command, r);`
 */
export function* retryCommand(command: RuntimeCommand, first: TransportResult | undefined): RuntimeProgram<RuntimeReply> {
  let result = first;
  let delayMs = BACKOFF_INITIAL_MS;
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1) result = yield command;
    if (result === undefined) throw new TransportError(encodeCommand(command), 'reset', attempt);
    if (result.ok) return result.reply;
    const retriable = result.error === 'refused' || result.error === 'reset';
    if (!retriable || attempt >= MAX_ATTEMPTS) throw new TransportError(encodeCommand(command), result.error, attempt);
    yield { kind: 'sleep', ms: delayMs };
    delayMs *= BACKOFF_FACTOR;
  }
}

/** The error for a reply the router does not accept for this command, quoting both as on the wire. */
export function unexpectedReply(command: RuntimeCommand, reply: RuntimeReply): UnexpectedReplyError {
  return new UnexpectedReplyError(encodeCommand(command), encodeReply(reply));
}

/** A command whose reply must be the acceptance (`set`, `enable`, `add`, `del`); anything else throws. */
export function* runAccepted(command: RuntimeCommand): RuntimeProgram<void> {
  const reply = yield* runCommand(command);
  if (reply.kind !== 'ok') throw unexpectedReply(command, reply);
}

const SMALL_NUMBER_TEXT: readonly string[] = Array.from({ length: 1024 }, (_, i) => String(i));

/** String(n), from a table for the small integers weights are. */
export function numberText(n: number): string {
  return n >= 0 && n < 1024 && Number.isInteger(n) ? SMALL_NUMBER_TEXT[n]! : String(n);
}

/** Basename of a map path (`/var/lib/haproxy/conf/os_http_be.map` → `os_http_be.map`). */
export function mapBaseName(file: string): string {
  const i = file.lastIndexOf('/');
  return i < 0 ? file : file.slice(i + 1);
}
