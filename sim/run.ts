import { isChurnEvent, eventSubject, type InputEvent } from '../core/events.ts';
import type { RouterState } from '../core/router-state.ts';
import type { RuntimeCommand } from '../core/haproxy/commands.ts';
import type { RouterStrategy } from '../core/strategy.ts';
import type { TransportResult } from '../core/runtime-effect.ts';
import { createStrategy } from '../core/strategies/index.ts';
import { evaluateBudgets } from '../reports/budgets.ts';
import { createReportProjection } from '../reports/project-report.ts';
import type { Report } from '../reports/report.ts';
import { ClusterConfigError } from '../core/vrrp/instance-spec.ts';
import { ClusterSim } from './cluster/cluster-sim.ts';
import { InputError } from './eventlog/input-error.ts';
import { Engine } from './engine.ts';
import { createFaultyTransport } from './haproxy/faulty-transport.ts';
import { MockHaproxy } from './haproxy/mock-haproxy.ts';
import { checkInvariants } from './invariants.ts';
import { CompactTally } from './output/command-tally.ts';
import { nullSink, type OutputSink } from './output/output-sink.ts';
import { OUTPUT_LOG_VERSION, type CountedInputType, type OutputHeader, type OutputRecord, type TraceName } from './output/records.ts';
import { RandomStreams } from './random-streams.ts';
import { RouterProcess } from './router-process.ts';
import type { RunInput } from './run-input.ts';
import { msToUs } from './scheduler.ts';

/** Anything that folds records as the run makes them (the timeline for report.html, progress, tests). */
export interface RecordObserver {
  /** Called once before the first record, with what is run (progress reads how long the input is). */
  begin?(input: RunInput): void;
  add(r: OutputRecord): void;
}

export interface RunResult {
  header: OutputHeader;
  report: Report;
}

export interface RunOptions {
  /**
   * What to record in full (`runtime`: every runtime command and its reply; `inputs`: every endpoint event);
   * by default successful commands and endpoint events are counted.
   */
  trace?: readonly TraceName[];
  /**
   * The router generation, in place of the one `settings.router.strategy` names: tests give a strategy with a
   * planted bug (sim/explore/testing) to show that `explore` finds it. No command line reaches this.
   */
  createStrategy?: (settings: RunInput['settings']['router']) => RouterStrategy;
}

export function headerOf(input: RunInput, options: RunOptions = {}): OutputHeader {
  return {
    routerbench: 'outputlog',
    version: OUTPUT_LOG_VERSION,
    scenario: input.name,
    seed: input.settings.seed,
    strategy: input.settings.router.strategy,
    settings: input.settings as unknown as Record<string, unknown>,
    ...(input.settingSources !== undefined && { settingSources: input.settingSources }),
    budgets: input.budgets,
    reproduce: input.reproduce,
    ...(input.cluster !== undefined && { cluster: input.cluster }),
    ...(options.trace !== undefined && options.trace.length > 0 && { trace: [...options.trace] }),
  } as OutputHeader;
}

/**
 * One deterministic run: scenario → event log → engine → router core → mocked HAProxy (and the keepalived
 * cluster) → output log → report. Every record goes to the sink and to the report projection as it is
 * made, so nothing but the current state is held in memory however long the log.
 */
export function runOne(input: RunInput, sink: OutputSink = nullSink, observers: ReadonlyArray<RecordObserver> = [], options: RunOptions = {}): RunResult {
  for (const o of observers) o.begin?.(input);
  const header = headerOf(input, options);
  const projection = createReportProjection(header);
  const write =
    observers.length === 0
      ? (r: OutputRecord): void => {
          projection.add(r);
          sink.record(r);
        }
      : (r: OutputRecord): void => {
          projection.add(r);
          sink.record(r);
          for (const o of observers) o.add(r);
        };
  // The compact log: reload requests folded into a pending reload counted per second, and successful
  // runtime commands and endpoint inputs too unless they are traced one by one.
  const tally = new CompactTally(write, options.trace?.includes('inputs') === true ? 'traced' : 'counted');
  const traced = options.trace?.includes('runtime') === true;
  const emit = (r: OutputRecord): void => {
    if (!tally.pass(r)) write(r);
  };
  // A churn input moves nothing in the report (the failover projection reads the cluster's inputs only):
  // when only the report and the sink see the records, it goes to the sink by its fields, without a record
  // and the type dispatches of the tally, the projection and the sink (reload-always replays of the bench
  // logs 4-5% faster in alternating runs, 2 Dec 2026; docs/performance.md).
  const churnInputsDirect = observers.length === 0 && sink.recordInput !== undefined;
  try {
    const { settings } = input;
    const engine = new Engine();
    for (const message of input.warnings ?? []) emit({ atUs: 0, type: 'warning', message });
    const streams = new RandomStreams(settings.seed);
    const haproxy = new MockHaproxy({ clockS: () => Math.floor(engine.nowUs / 1_000_000) });
    const check = (state: RouterState): void => {
      emit({ atUs: engine.nowUs, type: 'invariant', name: 'haproxy-view', violations: checkInvariants(state, haproxy, { allowWildcardRoutes: settings.router.allowWildcardRoutes }) });
    };
    const router = new RouterProcess(
      (options.createStrategy ?? createStrategy)(settings.router),
      { load: (c) => haproxy.load(c, undefined, { trusted: true }), send: socketTo(haproxy, settings, streams) },
      engine,
      emit,
      {
        reloadIntervalMs: settings.router.reloadIntervalMs,
        reloadDurationMs: settings.router.reloadDurationMs,
        commitIntervalMs: settings.router.commitIntervalMs,
        allowWildcardRoutes: settings.router.allowWildcardRoutes,
        deniedDomains: settings.router.deniedDomains,
        allowedDomains: settings.router.allowedDomains,
        disableNamespaceOwnershipCheck: settings.router.disableNamespaceOwnershipCheck,
        validateEndpointAddresses: settings.router.validateEndpointAddresses,
        ...(!traced && { tally }),
        ...(settings.sim.invariants === 'settled' && { onSettled: check }),
      },
    );
    const cluster = input.cluster ? createCluster(input, engine, streams, emit) : undefined;
    router.start();
    cluster?.start();
    const onInput = (e: InputEvent): void => {
      const churn = isChurnEvent(e);
      // A counted endpoint event is seen by no one one by one (observers too get the second's input.counts):
      // nothing but the tally's counter.
      if (churn && tally.counts(e.type)) tally.countInput(engine.nowUs, e.type as CountedInputType);
      else {
        // An endpoints event's subject is its service key: the router's state keeps one string per service,
        // where eventSubject would build and flatten a new one for each of the log's many endpoint events.
        const subject = e.type === 'endpoints.set' || e.type === 'endpoints.delete' ? router.state.endpoints.keyOf(e.namespace, e.service) : eventSubject(e);
        if (churn && churnInputsDirect) {
          tally.passInput(engine.nowUs);
          sink.recordInput!(engine.nowUs, e.type, subject);
        } else emit({ atUs: engine.nowUs, type: 'input', event: e.type, subject });
      }
      if (churn) router.onChurn(e);
      else if (cluster !== undefined) cluster.onEvent(e);
      // An event log replayed without a cluster: its node events have nothing to act on, and a user who meant
      // them should hear so (a scenario's own inline ones are refused when it is loaded).
      else if (e.type !== 'network.heal') emit({ atUs: engine.nowUs, type: 'warning', message: `${e.type}: this run has no keepalived cluster; ignored` });
    };
    const { endUs, events } = engine.run(input.events(), onInput, {
      settleUs: msToUs(settings.sim.settleMs),
      ...(settings.sim.durationMs !== undefined && { durationUs: msToUs(settings.sim.durationMs) }),
    });
    cluster?.finish();
    if (settings.sim.invariants !== 'off') {
      if (router.settled) check(router.state);
      else emit({ atUs: endUs, type: 'warning', message: 'the router had not settled when the run ended; the final invariant check was skipped' });
    }
    emit({ atUs: endUs, type: 'run.end', events, simulatedMs: endUs / 1000 });
    // The caller commits the sink once every output of the command is ready (nothing half-written).
    return { header, report: judge(projection.result(), input.budgets) };
  } catch (err) {
    sink.abort();
    throw err;
  }
}

/** Verdicts as data: budgets evaluated over the finished report; rendering and exit codes come later. */
export function judge(report: Report, budgets: readonly string[]): Report {
  const results = evaluateBudgets(report, budgets);
  return { ...report, budgets: results, pass: results.every((b) => b.pass) };
}

/**
 * Budgets a run could not judge (live mode runs no keepalived cluster, so failover metrics stay zero):
 * listed after the judged ones as skipped, with the reason. They do not fail the run, and every output
 * shows them as not judged, never as passed.
 */
export function withSkippedBudgets(report: Report, budgets: readonly string[], reason: string): Report {
  if (budgets.length === 0) return report;
  const builtIn = evaluateBudgets(report, []).length;
  const skipped = evaluateBudgets(report, budgets)
    .slice(builtIn)
    .map((b) => ({ ...b, actual: null, pass: true, skipped: reason }));
  return { ...report, budgets: [...report.budgets, ...skipped] };
}

/**
 * Some cluster mistakes show only once the seeded parts are drawn (an ipfailover priority out of 1..255):
 * they are still the user's input errors, named by their key.
 */
function createCluster(input: RunInput, engine: Engine, streams: RandomStreams, emit: (r: OutputRecord) => void): ClusterSim {
  try {
    return new ClusterSim(input.cluster!, engine, streams, emit);
  } catch (err) {
    if (err instanceof ClusterConfigError) {
      throw new InputError(input.source, err.message.slice(err.key.length + 2), undefined, `cluster.${err.key.replace(/^cluster\./, '')}`);
    }
    throw err;
  }
}

/** The stats socket: a direct line to the mock, or one with seeded faults when the settings ask for them. */
function socketTo(haproxy: MockHaproxy, settings: RunInput['settings'], streams: RandomStreams): (command: RuntimeCommand) => TransportResult {
  const f = settings.haproxy;
  if (f.refusedRate + f.resetRate + f.restartRate + f.slowRate === 0) return (command) => haproxy.send(command);
  const faulty = createFaultyTransport(haproxy, streams.get('haproxy/faults'), {
    rates: { refused: f.refusedRate, reset: f.resetRate, restart: f.restartRate, slow: f.slowRate },
  });
  return (command) => {
    const r = faulty.send(command);
    return r.ok ? { ok: true, reply: r.reply } : { ok: false, error: r.error };
  };
}
