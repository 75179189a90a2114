/**
 * CLI-only file: drives a real HAProxy over real sockets on the wall clock (allowed under sim/cli/ only).
 *
 * One live run: the same input (scenario or event log, same settings resolution), the same strategy, the
 * same output records and report projection as sim/run.ts, but the HAProxy is a real process reached over
 * its stats socket (real-haproxy.ts) and the schedule is paced against the wall clock (pacer.ts).
 *
 * A shadow MockHaproxy receives every command and every reload the real one does. Each reply is compared
 * with the mock's (normalised as in the conformance suite), and at the end the real state dumps are
 * compared with the mock's; both results go into the report as the invariant `real-equals-mock`, so a live
 * run is also a fidelity check of the mock on the user's own churn.
 */
import { isChurnEvent, eventSubject, type InputEvent } from '../../../core/events.ts';
import { showMap } from '../../../core/haproxy/commands.ts';
import { decodeReply, encodeCommand } from '../../../core/haproxy/runtime-codec.ts';
import type { RouterState } from '../../../core/router-state.ts';
import { createStrategy } from '../../../core/strategies/index.ts';
import { parseBudget } from '../../../reports/budgets.ts';
import { createReportProjection } from '../../../reports/project-report.ts';
import type { Report } from '../../../reports/report.ts';
import { renderHaproxyCfg } from '../../haproxy/haproxy-cfg.ts';
import { MockHaproxy } from '../../haproxy/mock-haproxy.ts';
import { checkInvariants } from '../../invariants.ts';
import { nullSink, type OutputSink } from '../../output/output-sink.ts';
import type { OutputRecord } from '../../output/records.ts';
import type { RunInput } from '../../run-input.ts';
import { headerOf, judge, withSkippedBudgets } from '../../run.ts';
import { Engine, type EngineRunResult } from '../../engine.ts';
import { RouterProcess, type HaproxyPort } from '../../router-process.ts';
import { msToUs, type Step } from '../../scheduler.ts';
import { diffStates, dumpState, sameState, type StateDifference } from './haproxy-state.ts';
import { Pacer } from './pacer.ts';
import { freeLoopbackPorts, HaproxyReloadRefusedError, RealHaproxy, type ReloadTiming } from './real-haproxy.ts';

export interface LiveOptions {
  socketPath: string;
  cfgPath: string;
  /** Virtual ms per wall ms; 0 = as fast as HAProxy answers. */
  speed: number;
  haproxyBin?: string;
  /** Loopback ports for the frontends; free ones are picked when absent. */
  ports?: readonly [number, number, number];
  /** Stop the HAProxy this run started when it ends (default: leave it serving, print its PID). */
  stopAtEnd?: boolean;
  sink?: OutputSink;
  /** Ctrl-C: the run stops between two steps and rejects; HAProxy is left serving (or stopped with stopAtEnd). */
  signal?: AbortSignal;
}

export interface LiveStats {
  wallMs: number;
  maxLagMs: number;
  commands: number;
  /** Wall time spent waiting for command replies. */
  commandWallMs: number;
  reloads: ReloadTiming[];
  /** Replies of the real HAProxy that differ from the shadow mock's (normalised), first few kept. */
  replyMismatches: number;
  mismatchExamples: StateDifference[];
  /** Final state dumps that differ between the real HAProxy and the shadow mock. */
  stateDifferences: StateDifference[];
  /** The HAProxy serving the socket at the end (null if it was stopped). */
  haproxyPid: number | null;
  /** Where the cfg, map files and haproxy.log are. */
  cfgPath: string;
  logPath: string;
  ports: readonly [number, number, number];
  /** A reload the real HAProxy refused: the run ended there, the previous process still serving. */
  reloadRefused: { reload: number; message: string } | null;
}

export interface LiveResult {
  report: Report;
  live: LiveStats;
}

const MISMATCH_EXAMPLES = 5;

export async function runLive(input: RunInput, opts: LiveOptions): Promise<LiveResult> {
  const sink = opts.sink ?? nullSink;
  const header = headerOf(input);
  const projection = createReportProjection(header);
  const emit = (r: OutputRecord): void => {
    projection.add(r);
    sink.record(r);
  };
  const ports = opts.ports ?? (await freeLoopbackPorts());
  const real = new RealHaproxy({ bin: opts.haproxyBin ?? 'haproxy', cfgPath: opts.cfgPath, socketPath: opts.socketPath, ports });
  const engine = new Engine();
  const pacer = new Pacer(opts.speed, opts.signal);
  const shadow = new MockHaproxy({
    layout: (c) => renderHaproxyCfg(c, real.renderOptions).layout,
    clockS: () => Math.floor(engine.nowUs / 1_000_000),
  });
  // Run warnings also go to stderr: they explain why a live run's numbers may differ from `run`'s.
  const warn = (message: string): void => {
    emit({ atUs: 0, type: 'warning', message });
    process.stderr.write(`routerbench live: warning: ${message}\n`);
  };
  const stats = { commands: 0, commandWallMs: 0, replyMismatches: 0, mismatchExamples: [] as StateDifference[] };
  // Map entries are addressed by pointer (`del map <file> #<ref>`), taken from a `show map <file>` reply:
  // the real process's pointers are translated to the mock's, row by row of the same dump.
  const refs = new Map<string, string>();
  const toMockRefs = (line: string): string => line.replace(/#(0x[0-9a-f]+)/g, (m, ref: string) => (refs.has(ref) ? `#${refs.get(ref)}` : m));
  const learnRefs = (line: string, realReply: string, mockReply: string): void => {
    if (!line.startsWith('show map ')) return;
    const command = showMap(line.slice('show map '.length));
    const a = decodeReply(command, realReply);
    const b = decodeReply(command, mockReply);
    // An error reply is no map dump: nothing to learn.
    if (a.kind === 'entries' && b.kind === 'entries' && a.entries.length === b.entries.length) a.entries.forEach((row, i) => refs.set(row.ref, b.entries[i]!.ref));
  };
  const port: HaproxyPort = {
    beginReload(config) {
      real.beginReload(config);
    },
    async load(config) {
      await real.finishReload();
      shadow.load(config);
      refs.clear();
    },
    async send(command) {
      const line = encodeCommand(command);
      const t0 = performance.now();
      const r = await real.send(line);
      stats.commandWallMs += performance.now() - t0;
      stats.commands++;
      // A refused or reset connection may or may not have run the command in HAProxy: the shadow does not
      // guess (the client retries, and the final state comparison catches a change applied unseen).
      if (!r.ok) return r;
      const mockReply = shadow.execute(toMockRefs(line));
      learnRefs(line, r.reply, mockReply);
      if (!sameState(r.reply, mockReply)) {
        stats.replyMismatches++;
        if (stats.mismatchExamples.length < MISMATCH_EXAMPLES) stats.mismatchExamples.push({ request: line, real: r.reply, mock: mockReply });
      }
      return { ok: true, reply: decodeReply(command, r.reply) };
    },
  };

  try {
    const { settings } = input;
    if (input.cluster !== undefined) warn('live mode drives HAProxy only: the keepalived cluster and its events are not run');
    const faults = settings.haproxy;
    const faultRates = (['refusedRate', 'resetRate', 'restartRate', 'slowRate'] as const).filter((k) => faults[k] !== 0);
    if (faultRates.length > 0) {
      warn(
        `${faultRates.map((k) => `haproxy.${k}=${faults[k]}`).join(', ')} ignored: live mode does not inject simulated socket faults ` +
          '(the real socket has only its own), so reloads and runtime errors may differ from `routerbench run`',
      );
    }
    // Failover metrics stay zero without the cluster: judged, they would pass on nothing.
    const isFailover = (b: string): boolean => /^failover(\.|$)/.test(parseBudget(b).path);
    const unjudged = input.budgets.filter(isFailover);
    if (unjudged.length > 0) warn(`budgets ${unjudged.map((b) => `'${b}'`).join(', ')} not judged in live mode: the keepalived cluster is not run`);
    const budgets = input.budgets.filter((b) => !isFailover(b));
    await real.attach();
    // The desired-state invariants of `routerbench run`, checked on the shadow mock: while its replies equal
    // the real ones (checked on every command, reported below) its state is the real HAProxy's.
    const check = (state: RouterState): void => {
      emit({ atUs: engine.nowUs, type: 'invariant', name: 'haproxy-view', violations: checkInvariants(state, shadow, { allowWildcardRoutes: settings.router.allowWildcardRoutes }) });
    };
    const router = new RouterProcess(createStrategy(settings.router), port, engine, emit, {
      reloadIntervalMs: settings.router.reloadIntervalMs,
      reloadDurationMs: settings.router.reloadDurationMs,
      commitIntervalMs: settings.router.commitIntervalMs,
      allowWildcardRoutes: settings.router.allowWildcardRoutes,
      deniedDomains: settings.router.deniedDomains,
      allowedDomains: settings.router.allowedDomains,
      disableNamespaceOwnershipCheck: settings.router.disableNamespaceOwnershipCheck,
      validateEndpointAddresses: settings.router.validateEndpointAddresses,
      ...(settings.sim.invariants === 'settled' && { onSettled: check }),
    });
    router.start();
    const onInput = (e: InputEvent): Step => {
      emit({ atUs: engine.nowUs, type: 'input', event: e.type, subject: eventSubject(e) });
      if (isChurnEvent(e)) return router.onChurn(e);
    };
    // A refused reload ends the run as a verdict: the mock loads any config, so the real process and the
    // shadow part ways there, and the router (mid-reload for ever) has no later step worth comparing.
    let refused: HaproxyReloadRefusedError | null = null;
    let run: EngineRunResult;
    pacer.start();
    try {
      run = await engine.runAsync(input.events(), onInput, {
        settleUs: msToUs(settings.sim.settleMs),
        ...(settings.sim.durationMs !== undefined && { durationUs: msToUs(settings.sim.durationMs) }),
        pace: pacer.pace,
      });
    } catch (err) {
      if (!(err instanceof HaproxyReloadRefusedError)) throw err;
      refused = err;
      run = engine.progress();
    }
    const wallMs = pacer.wallMs;
    if (refused === null) {
      // A reload still running at the end: let the real process finish starting, as the mock would not
      // have loaded it either (the run ended before its end step). Keep the shadow at its last load.
      try {
        await real.finishReload();
      } catch (err) {
        if (!(err instanceof HaproxyReloadRefusedError)) throw err;
        refused = err;
      }
    }

    let stateDifferences: StateDifference[] = [];
    if (refused === null) {
      const realDump = await dumpState(async (line) => {
        const r = await real.send(line);
        if (!r.ok) throw new Error(`${line}: the real HAProxy did not answer (${r.error})`);
        return r.reply;
      });
      const mockDump = await dumpState((line) => shadow.execute(line));
      if (settings.sim.invariants !== 'off' && router.settled) check(router.state);
      if (router.settled) stateDifferences = diffStates(realDump, mockDump);
      else emit({ atUs: run.endUs, type: 'warning', message: 'the router had not settled when the run ended; the final state comparison was skipped' });
    }
    const violations = [
      ...(refused !== null ? [`reload ${refused.reload}: the real HAProxy refused the config the mock loaded; it said: ${refused.output.split('\n').slice(-3).join(' | ')}`] : []),
      ...(stats.replyMismatches > 0 ? [`${stats.replyMismatches} replies of the real HAProxy differ from the mock's (first: ${stats.mismatchExamples[0]!.request})`] : []),
      ...stateDifferences.map((d) => `final state: '${d.request}' differs between the real HAProxy and the mock`),
    ];
    emit({ atUs: run.endUs, type: 'invariant', name: 'real-equals-mock', violations });
    emit({ atUs: run.endUs, type: 'run.end', events: run.events, simulatedMs: run.endUs / 1000 });
    if (opts.stopAtEnd) await real.stop();
    else real.release();
    const report = withSkippedBudgets(judge(projection.result(), budgets), unjudged, 'live mode runs no keepalived cluster');
    return {
      report,
      live: {
        wallMs,
        maxLagMs: pacer.maxLagMs,
        ...stats,
        reloads: real.reloadTimings,
        stateDifferences,
        haproxyPid: real.pid,
        cfgPath: opts.cfgPath,
        logPath: real.logPath,
        ports,
        reloadRefused: refused === null ? null : { reload: refused.reload, message: refused.message },
      },
    };
  } catch (err) {
    sink.abort();
    // Interrupted: the HAProxy serving now is the user's to keep unless they asked to stop it; a failed
    // start leaves only processes of ours that must not outlive the run.
    if (opts.signal?.aborted && !opts.stopAtEnd) {
      await real.finishReload().catch(() => undefined);
      real.release();
      if (real.pid !== null) process.stderr.write(`routerbench live: interrupted; haproxy pid ${real.pid} still serving ${opts.socketPath}\n`);
    } else {
      await real.stop();
    }
    throw err;
  }
}
