import { describe, expect, it } from 'vitest';
import * as cmd from './haproxy/commands.ts';
import { OK, refused, type RuntimeReply } from './haproxy/commands.ts';
import { driveSync } from './runtime-drive.ts';
import type { RuntimeEffect, TransportResult } from './runtime-effect.ts';
import { runAccepted, runCommand, TransportError, UnexpectedReplyError } from './runtime-client.ts';

function scripted(results: TransportResult[]): () => TransportResult {
  let i = 0;
  return () => results[i++] ?? { ok: true, reply: OK };
}

const BACKENDS: RuntimeReply = { kind: 'backends', names: ['be'] };

describe('runCommand retries', () => {
  it('retries refused/reset at most 3 attempts, sleeping 10 then 20 ms', () => {
    const trace: RuntimeEffect[] = [];
    const answer = scripted([{ ok: false, error: 'refused' }, { ok: false, error: 'reset' }, { ok: true, reply: BACKENDS }]);
    expect(driveSync(runCommand(cmd.showBackend()), answer, trace)).toBe(BACKENDS);
    const command = { kind: 'show backend' };
    expect(trace).toEqual([command, { kind: 'sleep', ms: 10 }, command, { kind: 'sleep', ms: 20 }, command]);
  });

  it('gives up after the third refused attempt without a trailing sleep, quoting the command line', () => {
    const trace: RuntimeEffect[] = [];
    const answer = scripted([{ ok: false, error: 'refused' }, { ok: false, error: 'refused' }, { ok: false, error: 'refused' }]);
    expect(() => driveSync(runCommand(cmd.showMapList()), answer, trace)).toThrow('show map: connection refused after 3 attempt(s)');
    expect(trace.filter((e) => e.kind !== 'sleep')).toHaveLength(3);
    expect(trace.filter((e) => e.kind === 'sleep').map((e) => (e.kind === 'sleep' ? e.ms : 0))).toEqual([10, 20]);
  });

  // isRetriable matches only errors ending in "connection refused" or "connection reset by peer": an i/o
  // timeout, and a dial that says "no such file or directory" or "permission denied", fail at once.
  it.each(['timeout', 'unavailable', 'broken-pipe'] as const)('does not retry %s', (fault) => {
    const trace: RuntimeEffect[] = [];
    try {
      driveSync(runCommand(cmd.showMapList()), scripted([{ ok: false, error: fault }]), trace);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TransportError);
      expect((e as TransportError).attempts).toBe(1);
      expect((e as TransportError).message).toBe(`show map: connection ${fault} after 1 attempt(s)`);
    }
    expect(trace).toHaveLength(1);
  });
});

describe('runAccepted', () => {
  it('passes the acceptance and throws on a refusal, quoting command and reply as on the wire', () => {
    const command = cmd.setServerState('a', 'b', 'ready');
    expect(() => driveSync(runAccepted(command), () => ({ ok: true, reply: OK }))).not.toThrow();
    const run = () => driveSync(runAccepted(command), () => ({ ok: true, reply: refused('No such server.\n\n') }));
    expect(run).toThrow(UnexpectedReplyError);
    expect(run).toThrow('unexpected response from haproxy to "set server a/b state ready": No such server.');
  });
});
