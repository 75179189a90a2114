/**
 * CLI-only file: live mode reads the wall clock and uses real timers, sockets and processes.
 *
 * `routerbench live <scenario-or-eventlog> --haproxy-socket PATH [--haproxy-config PATH] [--speed N]`:
 * the config-manager core against a real HAProxy (sim/cli/live/).
 */
import { lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { renderHtmlReport } from '../../reports/render/html.ts';
import { renderJUnit } from '../../reports/render/junit.ts';
import { renderMarkdownSummary } from '../../reports/render/markdown.ts';
import type { ScenarioOutcome } from '../../reports/render/outcome.ts';
import { renderSummaryTable } from '../../reports/render/terminal.ts';
import { createTimelineProjection } from '../../reports/timeline.ts';
import { loadRunInput } from '../load-input.ts';
import { CompactSink } from '../output/compact-sink.ts';
import { JsonlFileSink, type OutputSink } from '../output/output-sink.ts';
import type { OutputRecord, TraceName } from '../output/records.ts';
import { headerOf } from '../run.ts';
import { EXIT } from './exit-codes.ts';
import { HaproxyStartError, pidOnSocket } from './live/real-haproxy.ts';
import { runLive, type LiveResult } from './live/run-live.ts';
import { collectSet, collectTrace, parseSeed, TRACE_HELP } from './scenario-options.ts';
import { earlierOutputs, removeStale } from './reused-out-dir.ts';
import { makeDirs, writeFileAtomic } from './write-outputs.ts';
import { budgetLines } from '../scenario/budget-lines.ts';
import { shellQuote } from '../scenario/load-scenario.ts';

interface LiveCommandOptions {
  haproxySocket: string;
  haproxyConfig?: string;
  haproxyBin: string;
  speed: number;
  ports?: [number, number, number];
  seed?: number;
  set?: Record<string, string>;
  stop?: boolean;
  out?: string;
  json?: boolean;
  trace?: TraceName[];
}

export function parseSpeed(value: string): number {
  if (value === 'max') return 0;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`the speed is a number >= 0 or 'max' (got '${value}')`);
  return n;
}

function parsePorts(value: string): [number, number, number] {
  const p = value.split(',').map(Number);
  if (p.length !== 3 || p.some((x) => !Number.isInteger(x) || x < 1024 || x > 65535)) {
    throw new InvalidArgumentError(`expected three ports in 1024..65535, http,https,terminated (got '${value}')`);
  }
  // Three frontends cannot bind one port: HAProxy would refuse the cfg with a less direct message.
  if (new Set(p).size !== 3) throw new InvalidArgumentError(`the three ports must differ (got '${value}')`);
  return [p[0]!, p[1]!, p[2]!];
}

/**
 * The socket path and the cfg's directory (the map files) are written into haproxy.cfg unquoted, where
 * HAProxy's parser splits words on blanks, starts a comment at '#' and treats quotes and backslashes as
 * quoting: such a path would give a cfg HAProxy misreads or refuses.
 */
const CFG_UNSAFE = /[\s#'"\\]/;

class LiveUsageError extends Error {}

export function registerLiveCommand(program: Command): Command {
  return program
    .command('live')
    .description(
      'replay a scenario or event log through the config-manager core against a REAL HAProxy over its stats socket, in real time sped up by --speed; reloads write the cfg and restart haproxy with -sf; exit 0 pass, 1 fail (budgets, or the real HAProxy differs from the mock), 2 bad input or an HAProxy that cannot start, 3 internal error, 130 interrupted (Ctrl-C or SIGTERM)',
    )
    .argument('<input>', 'a scenario (.yaml) or an event log (.jsonl)')
    .requiredOption('--haproxy-socket <path>', "HAProxy's admin stats socket (an HAProxy serving it already is taken over at the first reload)")
    .option('--haproxy-config <path>', 'where reloads write haproxy.cfg (map files and haproxy.log go beside it); default: a new temporary directory')
    .option('--haproxy-bin <path>', 'the haproxy binary', 'haproxy')
    .option('--speed <n>', "virtual ms per wall ms: 1 real time, 10 ten times faster, 0 or 'max' as fast as HAProxy answers", parseSpeed, 1)
    .option('--ports <http,https,terminated>', 'loopback ports of the rendered frontends (default: free ones)', parsePorts)
    .option('--seed <n>', 'run seed', parseSeed)
    .option('--set <key=value>', 'override a setting by dotted key, e.g. router.strategy=dcm-slots (repeatable)', collectSet)
    .option('--stop', 'stop the HAProxy this command started when the run ends (default: leave it serving and print its PID)')
    .option('--out <dir>', 'write report.json, output.jsonl, live.json, report.html, summary.md and junit.xml here; a reused directory may hold only an earlier run\'s outputs, as with run')
    .option('--trace <what>', TRACE_HELP, collectTrace)
    .option('--json', 'print {report, live} as JSON instead of the table')
    .action(async (file: string, opts: LiveCommandOptions) => {
      const socketPath = resolve(opts.haproxySocket);
      try {
        checkCfgPath('--haproxy-socket', socketPath);
        if (opts.haproxyConfig !== undefined) checkCfgPath('--haproxy-config', resolve(opts.haproxyConfig));
        // HAProxy replaces whatever is at its socket path: only an old socket is ours to replace.
        const existing = lstatSync(socketPath, { throwIfNoEntry: false });
        if (existing !== undefined && !existing.isSocket()) {
          throw new LiveUsageError(`--haproxy-socket ${socketPath} exists and is not a socket; refusing to replace it`);
        }
      } catch (err) {
        if (!(err instanceof LiveUsageError)) throw err;
        process.stderr.write(`routerbench live: ${err.message}\n`);
        process.exitCode = EXIT.input;
        return;
      }
      const loaded = loadRunInput(file, { ...(opts.seed !== undefined && { seed: opts.seed }), set: opts.set ?? {}, ...(opts.out !== undefined && { outputLog: { trace: opts.trace ?? [] } }) });
      // A reused --out, as run takes it: an earlier run's outputs are replaced (the stale ones removed once
      // these are written), anything else in it refused now, before HAProxy starts.
      const earlier = opts.out === undefined ? undefined : earlierOutputs(opts.out);
      // A failure's reproduce line runs it live again, against the same socket at the same speed.
      const input = { ...loaded, reproduce: liveReproduce(loaded.reproduce, socketPath, opts.speed) };
      const interrupt = new AbortController();
      let interruptedBy: NodeJS.Signals | null = null;
      const onSignal = (sig: NodeJS.Signals): void => {
        interruptedBy = sig;
        interrupt.abort(new Error('interrupted'));
      };
      const signals = ['SIGINT', 'SIGTERM'] as const;
      for (const sig of signals) process.once(sig, onSignal);
      let tempDir: string | undefined;
      // Whether an HAProxy of ours still serves the socket (and reads the cfg's directory) when we exit.
      let leftServing = false;
      let result: LiveResult;
      const timeline = createTimelineProjection();
      try {
        if (opts.haproxyConfig === undefined) tempDir = mkdtempSync(join(tmpdir(), 'routerbench-live-'));
        const cfgPath = tempDir === undefined ? resolve(opts.haproxyConfig!) : join(tempDir, 'haproxy.cfg');
        if (tempDir !== undefined && CFG_UNSAFE.test(cfgPath)) {
          throw new LiveUsageError(`the temporary directory ${tempDir} (TMPDIR) contains a blank, '#', a quote or a backslash, which HAProxy's cfg cannot hold; pass --haproxy-config`);
        }
        // HAProxy binds the socket and reads the cfg where they are named, but makes no directory for them.
        // A directory that cannot be made is the user's path problem: main.ts reports it (exit 2).
        for (const path of [socketPath, cfgPath]) makeDirs(dirname(path));
        if (opts.out !== undefined) makeDirs(opts.out);
        const traced = opts.trace?.includes('runtime') === true;
        const logFile = opts.out === undefined ? undefined : new JsonlFileSink(join(opts.out, 'output.jsonl'), headerOf(input, opts.trace === undefined ? {} : { trace: opts.trace }));
        // The router records every command and input; the compact log counts the successful ones and the
        // endpoint inputs as `run` does.
        const log = logFile === undefined ? undefined : new CompactSink(logFile, traced ? 'traced' : 'counted', opts.trace?.includes('inputs') === true ? 'traced' : 'counted');
        // report.html's timeline folds the records as they are made, as `run` does.
        const sink = log === undefined ? undefined : teeSink(log, timeline);
        result = await runLive(input, {
          socketPath,
          cfgPath,
          speed: opts.speed,
          haproxyBin: opts.haproxyBin,
          ...(opts.ports !== undefined && { ports: opts.ports }),
          stopAtEnd: opts.stop === true,
          ...(sink !== undefined && { sink }),
          signal: interrupt.signal,
        });
        leftServing = result.live.haproxyPid !== null;
        if (opts.out !== undefined) {
          sink!.commit();
          writeFileAtomic(join(opts.out, 'report.json'), JSON.stringify(result.report, null, 2) + '\n');
          writeFileAtomic(join(opts.out, 'live.json'), JSON.stringify(result.live, null, 2) + '\n');
          // The outputs `run` writes, from the same renderers: a CI that reads one reads the other.
          const outcome: ScenarioOutcome = {
            report: result.report,
            file,
            wallMs: result.live.wallMs,
            ...(/\.ya?ml$/.test(file) && { budgetLines: budgetLines(readFileSync(file, 'utf8')) }),
          };
          writeFileAtomic(join(opts.out, 'report.html'), renderHtmlReport(outcome, timeline.result()));
          writeFileAtomic(join(opts.out, 'summary.md'), renderMarkdownSummary([outcome]));
          writeFileAtomic(join(opts.out, 'junit.xml'), renderJUnit([outcome]));
          removeStale(earlier!, new Set(['output.jsonl', 'report.json', 'live.json', 'report.html', 'summary.md', 'junit.xml']));
        }
      } catch (err) {
        if (interrupt.signal.aborted) {
          // runLive left the serving process running unless --stop; it printed its PID then.
          leftServing = opts.stop !== true && (await pidOnSocket(socketPath)) !== null;
          process.stderr.write(`routerbench live: interrupted (${interruptedBy ?? 'signal'})${opts.stop === true ? '; haproxy stopped' : ''}\n`);
          process.exitCode = 130;
          return;
        }
        if (err instanceof HaproxyStartError || err instanceof LiveUsageError) {
          // The environment (binary, socket directory, ports) or the rendered cfg: the message says which.
          process.stderr.write(`routerbench live: ${err.message}\n`);
          process.exitCode = EXIT.input;
          return;
        }
        throw err;
      } finally {
        for (const sig of signals) process.off(sig, onSignal);
        if (!leftServing) await removeLeftovers(tempDir, socketPath);
      }
      if (result.live.reloadRefused !== null) process.stderr.write(`routerbench live: ${result.live.reloadRefused.message}\n`);
      process.stdout.write(opts.json ? JSON.stringify(result, null, 2) + '\n' : renderSummaryTable([result.report]) + renderLiveStats(result));
      process.exitCode = result.report.pass ? EXIT.pass : EXIT.fail;
    });
}

/** `routerbench run <file> …` (the scenario's reproduce line) as the live command that ran it. */
export function liveReproduce(runLine: string, socketPath: string, speed: number): string {
  const rest = runLine.startsWith('routerbench run ') ? runLine.slice('routerbench run '.length) : runLine;
  return `routerbench live ${rest} --haproxy-socket ${shellQuote(socketPath)} --speed ${speed === 0 ? 'max' : String(speed)}`;
}

function checkCfgPath(option: string, path: string): void {
  if (CFG_UNSAFE.test(path)) {
    throw new LiveUsageError(`${option} ${JSON.stringify(path)}: HAProxy's cfg cannot hold a path with a blank, '#', a quote or a backslash; choose another path`);
  }
}

/**
 * Once no HAProxy of ours serves them, the files this command made are litter: the temporary directory
 * (cfg, maps, haproxy.log) and the socket, which HAProxy leaves behind. A socket something else still
 * answers on (an HAProxy found there and never replaced) is not ours to remove.
 */
async function removeLeftovers(tempDir: string | undefined, socketPath: string): Promise<void> {
  if (tempDir !== undefined) rmSync(tempDir, { recursive: true, force: true });
  if (lstatSync(socketPath, { throwIfNoEntry: false })?.isSocket() === true && (await pidOnSocket(socketPath)) === null) rmSync(socketPath, { force: true });
}

export function renderLiveStats({ live }: LiveResult): string {
  const ms = (x: number): string => `${x.toFixed(1)} ms`;
  const reloadMs = live.reloads.map((r) => r.wallMs);
  const lines = [
    '',
    `live: ${live.commands} runtime commands (${live.commandWallMs > 0 ? Math.round((live.commands * 1000) / live.commandWallMs) : 0}/s while waiting on the socket), ` +
      `${live.reloads.length} real reloads (max ${ms(reloadMs.length ? Math.max(...reloadMs) : 0)} until the new process served), ` +
      `wall ${ms(live.wallMs)}, max lag ${ms(live.maxLagMs)}`,
    `mock: ${live.replyMismatches} replies differed, ${live.stateDifferences.length} final state dumps differed`,
    ...live.mismatchExamples.map((d) => `  reply to '${d.request}': real ${JSON.stringify(d.real)} mock ${JSON.stringify(d.mock)}`),
    ...live.stateDifferences.slice(0, 5).map((d) => `  state '${d.request}' differs`),
    ...(live.reloadRefused === null ? [] : [`reload ${live.reloadRefused.reload} refused by HAProxy: the run ended there (see the message on stderr)`]),
    live.haproxyPid === null
      ? 'haproxy: stopped'
      : `haproxy: pid ${live.haproxyPid} still serving ${live.cfgPath} (log ${live.logPath}); stop it with: kill ${live.haproxyPid}`,
  ];
  return lines.join('\n') + '\n';
}

/** A sink that also shows each record to an observer (the timeline report.html draws). */
function teeSink(sink: OutputSink, observer: { add(r: OutputRecord): void }): OutputSink {
  return {
    record: (r) => {
      observer.add(r);
      sink.record(r);
    },
    commit: () => sink.commit(),
    abort: () => sink.abort(),
  };
}
