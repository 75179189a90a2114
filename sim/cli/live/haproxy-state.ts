/**
 * CLI-only file (used by live mode, whose transport is a real socket); itself pure: it only builds requests
 * and compares replies.
 *
 * What "the same HAProxy state" means between a real process and the mock: the replies to
 * `show servers state`, `show map` and `show map <file>` for every map, after normalising only what is
 * inherently variable (the same rules as sim/haproxy/conformance.test.ts): entry pointers in map dumps,
 * and in server rows the time since the last change and the five health-check columns (the real process
 * runs checks, the mock does not); and, for servers whose checks run, the op state they set (`sameState`).
 */

export interface StateDump {
  request: string;
  reply: string;
}

/** The requests whose replies make up HAProxy's runtime-visible state. */
export function stateRequests(mapPaths: readonly string[]): string[] {
  return ['show backend', 'show servers state', 'show map', ...mapPaths.map((p) => `show map ${p}`)];
}

/** Map paths as `show map` lists them (`<id> (<path>) …`), in its order. */
export function mapPathsOf(showMapReply: string): string[] {
  const out: string[] = [];
  for (const line of showMapReply.split('\n')) {
    const m = /^-?[0-9]+ \(([^)]*)\)/.exec(line);
    if (m !== null) out.push(m[1]!);
  }
  return out;
}

const POINTER = /^0x[0-9a-f]+ /gm;

export function normaliseReply(reply: string): string {
  return reply
    .replace(POINTER, '0xPTR ')
    .split('\n')
    .map((line) => {
      const f = line.split(' ');
      if (f.length !== 25 || !/^[0-9]+$/.test(f[0]!)) return line;
      for (const i of [9, 10, 11, 12, 13, 14]) f[i] = '*';
      return f.join(' ');
    })
    .join('\n');
}

/** srv_check_state bits (HAProxy 2.6 CHK_ST_*): configured 0x02, enabled 0x04, paused 0x08. */
const CHECK_RUNNING_MASK = 0x0e;
const CHECK_RUNNING = 0x06;

/**
 * Whether a real reply and the mock's describe the same state. Beyond `normaliseReply`, one more column is
 * a health-check result in a real process: a server whose checks are configured, enabled and not paused
 * (srv_check_state & 0x0e == 0x06 in the real row) has the op state its checks gave it (the bench's
 * endpoints are not reachable, so after `fall` failed checks a real server goes down; the mock runs no
 * checks). For such rows srv_op_state is not compared; admin state, address, weights and the rest are.
 */
export function sameState(real: string, mock: string): boolean {
  const a = normaliseReply(real);
  const b = normaliseReply(mock);
  if (a === b) return true;
  const realLines = real.split('\n');
  const mockLines = mock.split('\n');
  if (realLines.length !== mockLines.length) return false;
  return realLines.every((line, i) => {
    const other = mockLines[i]!;
    if (normaliseReply(line) === normaliseReply(other)) return true;
    const r = line.split(' ');
    const m = other.split(' ');
    if (r.length !== 25 || m.length !== 25 || !/^[0-9]+$/.test(r[0]!)) return false;
    if ((Number(r[13]) & CHECK_RUNNING_MASK) !== CHECK_RUNNING) return false;
    r[5] = m[5]!;
    return normaliseReply(r.join(' ')) === normaliseReply(m.join(' '));
  });
}

export interface StateDifference {
  request: string;
  real: string;
  mock: string;
}

/** The requests whose normalised replies differ. */
export function diffStates(real: readonly StateDump[], mock: readonly StateDump[]): StateDifference[] {
  const mockBy = new Map(mock.map((d) => [d.request, d.reply]));
  const out: StateDifference[] = [];
  for (const d of real) {
    const m = mockBy.get(d.request);
    if (m === undefined || !sameState(d.reply, m)) out.push({ request: d.request, real: d.reply, mock: m ?? '(not asked)' });
  }
  for (const d of mock) if (!real.some((r) => r.request === d.request)) out.push({ request: d.request, real: '(not asked)', mock: d.reply });
  return out;
}

/** Asks `ask` for every state request, map paths taken from its own `show map`. */
export async function dumpState(ask: (line: string) => Promise<string> | string): Promise<StateDump[]> {
  const maps = await ask('show map');
  const out: StateDump[] = [];
  for (const request of stateRequests(mapPathsOf(maps))) out.push({ request, reply: await ask(request) });
  return out;
}
