/**
 * CLI-only test (its port answers on a later macrotask, as a socket does).
 *
 * Live mode is the simulation with a port that answers later: one RouterProcess on one engine loop, run
 * synchronously against the mock or awaited (`runAsync`) against a port whose replies and reload ends come
 * later. Both must emit the same records and be settled at the same moments (where `run` and `live` check
 * invariants), including under socket faults (client backoff, changes queued behind it).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isChurnEvent } from '../../../core/events.ts';
import type { RuntimeCommand } from '../../../core/haproxy/commands.ts';
import type { HaproxyConfig } from '../../../core/haproxy/config-model.ts';
import { createStrategy } from '../../../core/strategies/index.ts';
import { STRATEGY_NAMES } from '../../../core/strategy.ts';
import { Engine } from '../../engine.ts';
import { createFaultyTransport, type FaultRates, type FaultyResult } from '../../haproxy/faulty-transport.ts';
import { MockHaproxy } from '../../haproxy/mock-haproxy.ts';
import { loadRunInput } from '../../load-input.ts';
import type { OutputRecord } from '../../output/records.ts';
import { makeStream } from '../../random-streams.ts';
import { RouterProcess, type HaproxyPort } from '../../router-process.ts';
import type { RunInput } from '../../run-input.ts';
import { msToUs } from '../../scheduler.ts';

const SCENARIOS = join(import.meta.dirname, '..', '..', '..', 'scenarios');

const later = <T>(f: () => T): Promise<T> => new Promise((resolve) => setImmediate(() => resolve(f())));

async function records(input: RunInput, rates: Partial<FaultRates>, answerLater: boolean): Promise<OutputRecord[]> {
  const out: OutputRecord[] = [];
  const engine = new Engine();
  const mock = new MockHaproxy({ clockS: () => Math.floor(engine.nowUs / 1e6) });
  const socket = createFaultyTransport(mock, makeStream('later'), { rates });
  const port: HaproxyPort = answerLater
    ? { load: (c: HaproxyConfig) => later(() => mock.load(c)), send: (c: RuntimeCommand): Promise<FaultyResult> => later(() => socket.send(c)) }
    : { load: (c) => mock.load(c), send: (c) => socket.send(c) };
  const r = input.settings.router;
  const router = new RouterProcess(createStrategy(r), port, engine, (rec) => out.push(rec), {
    reloadIntervalMs: r.reloadIntervalMs,
    reloadDurationMs: r.reloadDurationMs,
    commitIntervalMs: r.commitIntervalMs,
    onSettled: () => void out.push({ atUs: engine.nowUs, type: 'note', message: 'settled' }),
  });
  router.start();
  const opts = { settleUs: msToUs(input.settings.sim.settleMs) };
  if (answerLater) await engine.runAsync(input.events(), (e) => (isChurnEvent(e) ? router.onChurn(e) : undefined), opts);
  else engine.run(input.events(), (e) => (isChurnEvent(e) ? router.onChurn(e) : undefined), opts);
  return out;
}

describe('RouterProcess over a port that answers later emits what it emits over the mock', () => {
  for (const file of ['route-burst.yaml', 'dcm-scale-storm.yaml', 'dcm-multi-port-routes.yaml']) {
    for (const strategy of STRATEGY_NAMES) {
      it(`${file} under ${strategy}`, { timeout: 60_000 }, async () => {
        const input = loadRunInput(join(SCENARIOS, file), { set: { 'router.strategy': strategy } });
        expect(await records(input, {}, true)).toEqual(await records(input, {}, false));
      });
    }
  }

  // Refused and reset connections make the client back off (sleep effects) and later changes queue behind.
  for (const strategy of ['dcm-slots', 'dcm-add-del'] as const) {
    it(`churn-with-failover under ${strategy} with a faulty socket (client retries, backlog)`, { timeout: 60_000 }, async () => {
      const input = loadRunInput(join(SCENARIOS, 'churn-with-failover.yaml'), { set: { 'router.strategy': strategy } });
      const rates = { refused: 0.15, reset: 0.15 };
      const expected = await records(input, rates, false);
      const outcomes = new Set(expected.flatMap((r) => (r.type === 'runtime.command' ? [r.outcome] : [])));
      expect(outcomes).toEqual(new Set(['ok', 'refused', 'reset']));
      expect(await records(input, rates, true)).toEqual(expected);
    });
  }
});
