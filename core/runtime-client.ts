import type { RuntimeProgram, TransportResult } from './runtime-effect.ts';

/**
 * The runtime API client as a generator (modelled on configmanager/haproxy client.go): one connection per
 * command, retried only when the connection was refused or reset, at most 3 attempts with exponential
 * backoff 10 ms, 20 ms (k8s wait.ExponentialBackoff{Duration: 10ms, Factor: 2, Steps: 3} sleeps between
 * attempts only). Reply parsers for the `show` commands and acceptance checks for the `set` commands.
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

/** The socket could not be used (after retries, for refused/reset). */
export class TransportError extends RuntimeApiError {
  constructor(
    command: string,
    readonly error: 'refused' | 'reset' | 'timeout',
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

/** Sends one command line; resolves with the raw reply (read to EOF). Throws TransportError. */
export function* runCommand(line: string): RuntimeProgram<string> {
  const first = yield { kind: 'command', line };
  return first !== undefined && first.ok ? first.reply : yield* retryCommand(line, first);
}

/**
 * runCommand after its first attempt, which did not deliver: the retries, or the error. Hot paths send the
 * first attempt themselves and come here only on failure, which spares a generator per command:
 * `const r = yield { kind: 'command', line }; const reply = r?.ok ? r.reply : yield* retryCommand(line, r);`
 */
export function* retryCommand(line: string, first: TransportResult | undefined): RuntimeProgram<string> {
  let result = first;
  let delayMs = BACKOFF_INITIAL_MS;
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1) result = yield { kind: 'command', line };
    if (result === undefined) throw new TransportError(line, 'reset', attempt);
    if (result.ok) return result.reply;
    const retriable = result.error === 'refused' || result.error === 'reset';
    if (!retriable || attempt >= MAX_ATTEMPTS) throw new TransportError(line, result.error, attempt);
    yield { kind: 'sleep', ms: delayMs };
    delayMs *= BACKOFF_FACTOR;
  }
}

/** A `set`/`enable` command whose success is silent: any non-blank reply is an error. */
export function* runSilent(line: string): RuntimeProgram<void> {
  const reply = yield* runCommand(line);
  if (!isBlank(reply)) throw new UnexpectedReplyError(line, reply);
}

/** `set server … addr`: accepted replies (HAProxy 2.x wording, plus 3.x's "nothing changed"). */
export function isAcceptedAddrReply(reply: string): boolean {
  const r = reply.trim();
  return (
    r.length === 0 ||
    r === 'nothing changed' ||
    r.startsWith('IP changed from') ||
    r.startsWith('port changed from') ||
    r.startsWith('no need to change')
  );
}

export function* runSetServerAddr(line: string): RuntimeProgram<void> {
  const reply = yield* runCommand(line);
  if (!isAcceptedAddrReply(reply)) throw new UnexpectedReplyError(line, reply);
}

/** A command whose only accepted (trimmed) reply is `expected` (`add server`, `del server`). */
export function* runExpecting(line: string, expected: string): RuntimeProgram<void> {
  const reply = yield* runCommand(line);
  if (reply.trim() !== expected) throw new UnexpectedReplyError(line, reply);
}

function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 10 && c !== 13 && c !== 32 && c !== 9) return false;
  }
  return true;
}

// ---- reply parsers -------------------------------------------------------------------------------

/** One row of `show servers state` (the fields the manager reads). */
export interface ServerStateRow {
  backendId: number;
  backendName: string;
  id: number;
  name: string;
  address: string;
  /** 0 stopped, 1 starting, 2 running, 3 stopping. */
  opState: number;
  /** Bits: 0x01 forced maint, 0x02 inherited maint, 0x04 config maint, 0x08 forced drain, 0x10 inherited drain, 0x20 resolution maint. */
  adminState: number;
  /** srv_uweight: the user-visible weight the manager compares with. */
  weight: number;
  initialWeight: number;
  port: number;
}

/**
 * `show servers state [<be>]`: a version line (`1`), a `#` header, then one space-separated row per server.
 * An unknown backend makes HAProxy answer with an error text instead; callers see it as UnexpectedReplyError.
 */
export function parseServersState(reply: string, command = 'show servers state'): ServerStateRow[] {
  const rows: ServerStateRow[] = [];
  scanServersState(reply, command, () => {
    rows.push({
      backendId: numberAt(reply, 0),
      backendName: fieldAt(reply, 1),
      id: numberAt(reply, 2),
      name: fieldAt(reply, 3),
      address: fieldAt(reply, 4),
      opState: numberAt(reply, 5),
      adminState: numberAt(reply, 6),
      weight: numberAt(reply, 7),
      initialWeight: numberAt(reply, 8),
      port: numberAt(reply, 18),
    });
  });
  return rows;
}

/**
 * The fields of `show servers state` the 2018 manager caches per server, each row handed to `make`
 * (`weightText` is the weight as the manager prints it back, String(weight)). The same reading as
 * parseServersState, without the row objects: the manager reads a backend's servers on every endpoint change.
 */
export function readServersState<T>(
  reply: string,
  command: string,
  make: (name: string, address: string, weight: number, weightText: string, port: number) => T,
): T[] {
  const out: T[] = [];
  scanServersState(reply, command, () => {
    const weight = numberAt(reply, 7);
    out.push(make(fieldAt(reply, 3), fieldAt(reply, 4), weight, numberText(weight), numberAt(reply, 18)));
  });
  return out;
}

/** Start and end of fields 0..18 of the row being read; shared, since rows are read one at a time. */
const FIELD_BOUNDS = new Int32Array(38);

/**
 * Walks the rows by index (no line or field substrings): each row's field bounds are in FIELD_BOUNDS when
 * `row` runs. Fields are single-space separated, so two spaces make an empty field (Number('') is 0).
 * A row needs at least 19 fields; more are ignored.
 */
function scanServersState(reply: string, command: string, row: () => void): void {
  const n = reply.length;
  let start = 0;
  let sawVersion = false;
  while (start < n) {
    let end = reply.indexOf('\n', start);
    if (end < 0) end = n;
    const lineStart = start;
    start = end + 1;
    if (end === lineStart || reply.charCodeAt(lineStart) === 35 /* # */) continue;
    if (!sawVersion) {
      sawVersion = true;
      if (reply.slice(lineStart, end).trim() === '1') continue;
      throw new UnexpectedReplyError(command, reply);
    }
    // indexOf finds the blanks natively; the bound is the line's end, so a row that is short on fields
    // does not borrow the next line's.
    let from = lineStart;
    for (let k = 0; k <= 18; k++) {
      let sp = reply.indexOf(' ', from);
      if (sp < 0 || sp > end) sp = -1;
      FIELD_BOUNDS[2 * k] = from;
      FIELD_BOUNDS[2 * k + 1] = sp < 0 ? end : sp;
      if (sp < 0) {
        if (k < 18) throw new UnexpectedReplyError(command, reply);
        break;
      }
      from = sp + 1;
    }
    row();
  }
  if (!sawVersion) throw new UnexpectedReplyError(command, reply);
}

function fieldAt(reply: string, k: number): string {
  return reply.slice(FIELD_BOUNDS[2 * k]!, FIELD_BOUNDS[2 * k + 1]!);
}

/** Number(field), read from the digits in place when the field is plain decimal (it always is from HAProxy). */
function numberAt(reply: string, k: number): number {
  const from = FIELD_BOUNDS[2 * k]!;
  const to = FIELD_BOUNDS[2 * k + 1]!;
  if (to === from || to - from > 15) return Number(reply.slice(from, to));
  let v = 0;
  for (let i = from; i < to; i++) {
    const d = reply.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number(reply.slice(from, to));
    v = v * 10 + d;
  }
  return v;
}

const SMALL_NUMBER_TEXT: readonly string[] = Array.from({ length: 1024 }, (_, i) => String(i));

/** String(n), from a table for the small integers weights are. */
export function numberText(n: number): string {
  return n >= 0 && n < 1024 && Number.isInteger(n) ? SMALL_NUMBER_TEXT[n]! : String(n);
}

/** `show backend`: a `# name` header then one backend name per line. */
export function parseShowBackend(reply: string): string[] {
  return rowsUnderHeader(reply, 'show backend').map((line) => line.trim());
}

/** The non-empty lines of a `show` reply that are not `#` headers; a reply without a header is no listing. */
function rowsUnderHeader(reply: string, command: string): string[] {
  const rows: string[] = [];
  let sawHeader = false;
  for (const line of reply.split('\n')) {
    if (line.length === 0) continue;
    if (line.charCodeAt(0) === 35) sawHeader = true;
    else rows.push(line);
  }
  if (!sawHeader) throw new UnexpectedReplyError(command, reply);
  return rows;
}

/** One map in `show map`: its id and file path as HAProxy shows it (the router compares basenames). */
export interface MapListRow {
  id: string;
  file: string;
}

const MAP_LIST_ROW = /^-?([0-9]+) \(([^)]*)\)/;

/** `show map`: `# id (file) description` then rows `<id> (<file>) <description>`. */
export function parseShowMapList(reply: string): MapListRow[] {
  return rowsUnderHeader(reply, 'show map').map((line) => {
    const m = MAP_LIST_ROW.exec(line);
    if (m === null) throw new UnexpectedReplyError('show map', reply);
    return { id: m[1]!, file: m[2]! };
  });
}

export interface MapRow {
  /** The entry's reference (`0x…` pointer), usable as `#<ref>` in `del map`. */
  ref: string;
  key: string;
  value: string;
}

/** `show map <file>`: rows `<pointer> <key> <value>`, no header. Unknown maps answer with an error text. */
export function parseShowMap(reply: string, command = 'show map'): MapRow[] {
  const out: MapRow[] = [];
  let start = 0;
  while (start < reply.length) {
    let end = reply.indexOf('\n', start);
    if (end < 0) end = reply.length;
    const line = reply.slice(start, end);
    start = end + 1;
    if (line.length === 0) continue;
    const a = line.indexOf(' ');
    const b = a < 0 ? -1 : line.indexOf(' ', a + 1);
    if (a <= 0 || b < 0 || !line.startsWith('0x')) throw new UnexpectedReplyError(command, reply);
    out.push({ ref: line.slice(0, a), key: line.slice(a + 1, b), value: line.slice(b + 1) });
  }
  return out;
}

/**
 * Checks a `show map <file>` reply as parseShowMap reads it (throws the same UnexpectedReplyError) without
 * building its rows: the 2018 manager reads a whole map to find one key, and maps hold a row per route.
 */
export function checkShowMap(reply: string, command = 'show map'): void {
  let start = 0;
  while (start < reply.length) {
    let end = reply.indexOf('\n', start);
    if (end < 0) end = reply.length;
    if (end > start) {
      const a = reply.indexOf(' ', start);
      const b = a < 0 || a >= end ? -1 : reply.indexOf(' ', a + 1);
      if (a <= start || a >= end || b < 0 || b >= end || !reply.startsWith('0x', start)) throw new UnexpectedReplyError(command, reply);
    }
    start = end + 1;
  }
}

/** The refs of the rows of a checked `show map <file>` reply whose key is `key`, in reply order. */
export function showMapRefs(reply: string, key: string): string[] {
  const refs: string[] = [];
  // A key field never holds a blank or a newline, so such a key is in no row.
  if (key.includes(' ') || key.includes('\n')) return refs;
  const needle = ` ${key} `;
  for (let p = reply.indexOf(needle); p >= 0; p = reply.indexOf(needle, p + 1)) {
    // A row's key sits between its first two blanks; the same text later in a row (its value) is no match.
    const lineStart = reply.lastIndexOf('\n', p) + 1;
    if (reply.indexOf(' ', lineStart) !== p) continue;
    refs.push(reply.slice(lineStart, p));
  }
  return refs;
}

/** `prepare map <file>` → `New version created: N`. */
export function parsePrepareMap(reply: string, command = 'prepare map'): number {
  const r = reply.trim();
  const prefix = 'New version created: ';
  const v = r.startsWith(prefix) ? Number(r.slice(prefix.length)) : 0;
  if (!Number.isInteger(v) || v <= 0) throw new UnexpectedReplyError(command, reply);
  return v;
}

/** Basename of a map path (`/var/lib/haproxy/conf/os_http_be.map` → `os_http_be.map`). */
export function mapBaseName(file: string): string {
  const i = file.lastIndexOf('/');
  return i < 0 ? file : file.slice(i + 1);
}
