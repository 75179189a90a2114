/**
 * CLI-only test (LiveLoop reads the wall clock; at speed 0 it never waits on it).
 *
 * LiveRouter is the asynchronous twin of sim/router-process.ts. This test keeps the twins equal: with the
 * same strategy, the same mock behind an asynchronous port, and the same faults on the socket, LiveRouter
 * on the LiveLoop must emit exactly the records RouterProcess emits on the Engine, and report being settled
 * at exactly the same moments (where `run` and `live` check invariants), for every bundled
 * scenario under every strategy. A change to RouterProcess that LiveRouter does not follow fails here, in
 * CI, with no HAProxy needed.
 */
import type { RuntimeCommand } from '../../../core/haproxy/commands.ts';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isChurnEvent } from '../../../core/events.ts';
import type { HaproxyConfig } from '../../../core/haproxy/config-model.ts';
import { createStrategy } from '../../../core/strategies/index.ts';
import { STRATEGY_NAMES, type StrategyName } from '../../../core/strategy.ts';
import { Engine } from '../../engine.ts';
import { createFaultyTransport, type FaultRates } from '../../haproxy/faulty-transport.ts';
import { MockHaproxy } from '../../haproxy/mock-haproxy.ts';
import { loadRunInput } from '../../load-input.ts';
import type { OutputRecord } from '../../output/records.ts';
import { makeStream } from '../../random-streams.ts';
import { RouterProcess } from '../../router-process.ts';
import type { RunInput } from '../../run-input.ts';
import { msToUs } from '../../scheduler.ts';
import { LiveLoop } from './live-loop.ts';
import { LiveRouter } from './live-router.ts';

const SCENARIOS = join(import.meta.dirname, '..', '..', '..', 'scenarios');

function options(input: RunInput) {
  const r = input.settings.router;
  return { reloadIntervalMs: r.reloadIntervalMs, reloadDurationMs: r.reloadDurationMs, commitIntervalMs: r.commitIntervalMs };
}

function simulated(input: RunInput, rates: Partial<FaultRates>): OutputRecord[] {
  const records: OutputRecord[] = [];
  const engine = new Engine();
  const mock = new MockHaproxy({ clockS: () => Math.floor(engine.nowUs / 1e6) });
  const socket = createFaultyTransport(mock, makeStream('twin'), { rates });
  const settled = () => void records.push({ atUs: engine.nowUs, type: 'note', message: 'settled' });
  const router = new RouterProcess(createStrategy(input.settings.router), { load: (c) => mock.load(c), send: (l) => socket.send(l) }, engine, (r) => records.push(r), {
    ...options(input),
    onSettled: settled,
  });
  router.start();
  engine.run(input.events(), (e) => (isChurnEvent(e) ? router.onChurn(e) : undefined), { settleUs: msToUs(input.settings.sim.settleMs) });
  return records;
}

async function live(input: RunInput, rates: Partial<FaultRates>): Promise<OutputRecord[]> {
  const records: OutputRecord[] = [];
  const loop = new LiveLoop(0);
  const mock = new MockHaproxy({ clockS: () => Math.floor(loop.nowUs / 1e6) });
  const socket = createFaultyTransport(mock, makeStream('twin'), { rates });
  let next: HaproxyConfig | null = null;
  const port = {
    beginReload: (c: HaproxyConfig) => void (next = c),
    finishReload: async () => {
      await Promise.resolve();
      mock.load(next!);
    },
    // A reply that really arrives later (a macrotask), as from a socket.
    send: (c: RuntimeCommand) => new Promise<ReturnType<typeof socket.send>>((resolve) => setImmediate(() => resolve(socket.send(c)))),
  };
  const settled = () => void records.push({ atUs: loop.nowUs, type: 'note', message: 'settled' });
  const router = new LiveRouter(createStrategy(input.settings.router), port, loop, (r) => records.push(r), { ...options(input), onSettled: settled });
  router.start();
  await loop.run(input.events(), async (e) => (isChurnEvent(e) ? router.onChurn(e) : undefined), { settleUs: msToUs(input.settings.sim.settleMs) });
  return records;
}

const scenarios = readdirSync(SCENARIOS).filter((f) => f.endsWith('.yaml')).sort();

describe('LiveRouter emits what RouterProcess emits', () => {
  for (const file of scenarios) {
    for (const strategy of STRATEGY_NAMES) {
      it(`${file} under ${strategy}`, { timeout: 60_000 }, async () => {
        const input = loadRunInput(join(SCENARIOS, file), { set: { 'router.strategy': strategy } });
        const expected = simulated(input, {});
        expect(await live(input, {})).toEqual(expected);
      });
    }
  }

  // Refused and reset connections make the client back off (sleep effects) and later changes queue behind.
  for (const strategy of ['dcm-slots', 'dcm-add-del'] as StrategyName[]) {
    it(`churn-with-failover under ${strategy} with a faulty socket (client retries, backlog)`, { timeout: 60_000 }, async () => {
      const input = loadRunInput(join(SCENARIOS, 'churn-with-failover.yaml'), { set: { 'router.strategy': strategy } });
      const rates = { refused: 0.15, reset: 0.15 };
      const expected = simulated(input, rates);
      const outcomes = new Set(expected.flatMap((r) => (r.type === 'runtime.command' ? [r.outcome] : [])));
      expect(outcomes).toEqual(new Set(['ok', 'refused', 'reset']));
      expect(await live(input, rates)).toEqual(expected);
    });
  }
});
