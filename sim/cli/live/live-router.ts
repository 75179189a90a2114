/**
 * CLI-only file: its HAProxy port talks to a real socket and a real process (allowed under sim/cli/ only).
 *
 * The router process of sim/router-process.ts with an asynchronous HAProxy: the same strategy
 * (core/strategies), the same runtime-API client (the strategies' generators in core/runtime-client.ts),
 * the same reload rate limiter (core/reload-limiter.ts), the same commit timer, the same handling of one
 * change at a time with a backlog while client backoff waits, and the same output records. The only
 * difference is that a command's reply and a reload's completion are awaited. RouterProcess cannot be
 * reused as it stands because its `HaproxyPort.send` returns the reply synchronously; sim/cli/live/README.md
 * proposes the small change that would let one class serve both. Until then live-router.test.ts keeps the
 * twins equal record for record.
 */
import type { ChurnEvent } from '../../../core/events.ts';
import type { RuntimeCommand } from '../../../core/haproxy/commands.ts';
import type { HaproxyConfig } from '../../../core/haproxy/config-model.ts';
import { encodeCommand, encodeReply } from '../../../core/haproxy/runtime-codec.ts';
import type { ReloadReason } from '../../../core/reload-reason.ts';
import {
  initialLimiterState,
  limiterFinished,
  limiterRequest,
  limiterTimer,
  type LimiterAction,
  type LimiterState,
} from '../../../core/reload-limiter.ts';
import { RouteAdmission } from '../../../core/route-admission.ts';
import { applyChurn, emptyRouterState, type RouterState } from '../../../core/router-state.ts';
import type { RuntimeProgram, TransportResult } from '../../../core/runtime-effect.ts';
import type { RouterStrategy, StrategyContext } from '../../../core/strategy.ts';
import type { OutputRecord } from '../../output/records.ts';
import { msToUs, type TimerHandle } from '../../scheduler.ts';
import type { LiveScheduler } from './live-loop.ts';

/** A real HAProxy: reloaded with a whole config, or changed one command at a time, both awaited. */
export interface AsyncHaproxyPort {
  /** Begins a reload onto `config` (the cfg is written now, as the router writes it when a reload starts). */
  beginReload(config: HaproxyConfig): void;
  /** Resolves once the new HAProxy serves the config begun last; rejects if it could not start. */
  finishReload(): Promise<void>;
  send(command: RuntimeCommand): Promise<TransportResult>;
}

export interface LiveRouterOptions {
  reloadIntervalMs: number;
  reloadDurationMs: number;
  commitIntervalMs: number;
  /** ROUTER_ALLOW_WILDCARD_ROUTES: otherwise wildcard (`Subdomain`) routes are not admitted. */
  allowWildcardRoutes?: boolean;
  /** Called when the router is settled (no reload running or pending, no runtime work in flight). */
  onSettled?: (state: RouterState) => void;
}

const REPLY_KEEP_CHARS = 200;

export class LiveRouter {
  readonly state: RouterState = emptyRouterState();
  private limiter: LimiterState = initialLimiterState;
  private synced = false;
  private reloading = false;
  private reloadCount = 0;
  private busy = false;
  private readonly backlog: ChurnEvent[] = [];
  private readonly admission: RouteAdmission;
  private commitTimer: TimerHandle | null = null;
  private readonly intervalUs: number;
  private readonly ctx: StrategyContext;

  constructor(
    private readonly strategy: RouterStrategy,
    private readonly haproxy: AsyncHaproxyPort,
    private readonly scheduler: LiveScheduler,
    private readonly emit: (r: OutputRecord) => void,
    private readonly opts: LiveRouterOptions,
  ) {
    this.intervalUs = msToUs(opts.reloadIntervalMs);
    this.admission = new RouteAdmission(opts.allowWildcardRoutes === true, (message) => this.emit({ atUs: this.scheduler.nowUs, type: 'warning', message }));
    const self = this;
    this.ctx = {
      get reloadInProgress() {
        return self.reloading;
      },
      requestReload: (reason, detail) => this.requestReload(reason, detail),
      armCommitTimer: () => this.armCommitTimer(),
      note: (message) => this.emit({ atUs: this.scheduler.nowUs, type: 'note', message }),
      runtimeError: (detail) => this.emit({ atUs: this.scheduler.nowUs, type: 'runtime.error', detail }),
    };
  }

  start(): void {
    this.scheduler.at(0, () => {
      this.synced = true;
      this.requestReload('initial');
    });
  }

  async onChurn(e: ChurnEvent): Promise<void> {
    if (this.busy) {
      this.backlog.push(e);
      return;
    }
    await this.handle(e);
    this.settleCheck();
  }

  get settled(): boolean {
    return this.synced && !this.reloading && !this.limiter.pending && !this.busy;
  }

  private settleCheck(): void {
    if (this.opts.onSettled && this.settled) this.opts.onSettled(this.state);
  }

  private async handle(e: ChurnEvent): Promise<void> {
    const change = applyChurn(this.state, this.admission.admit(e));
    if (change === null || !this.synced) return;
    const program = this.strategy.onChange(change, this.state, this.ctx);
    if (program) await this.drive(program, undefined);
  }

  private async drive(program: RuntimeProgram, input: TransportResult | undefined): Promise<void> {
    for (;;) {
      const step = program.next(input);
      if (step.done) {
        if (this.busy) {
          this.busy = false;
          await this.drainBacklog();
        }
        return;
      }
      const effect = step.value;
      if (effect.kind === 'command') {
        input = await this.haproxy.send(effect.command);
        this.recordCommand(effect.command, input);
      } else {
        this.busy = true;
        this.scheduler.after(msToUs(effect.ms), () => this.drive(program, undefined));
        return;
      }
    }
  }

  private async drainBacklog(): Promise<void> {
    while (!this.busy && this.backlog.length > 0) await this.handle(this.backlog.shift()!);
    this.settleCheck();
  }

  private recordCommand(command: RuntimeCommand, result: TransportResult): void {
    const atUs = this.scheduler.nowUs;
    const line = encodeCommand(command);
    if (!result.ok) {
      this.emit({ atUs, type: 'runtime.command', line, outcome: result.error });
      return;
    }
    const reply = encodeReply(result.reply);
    if (reply === '\n' || reply === '') this.emit({ atUs, type: 'runtime.command', line, outcome: 'ok' });
    else this.emit({ atUs, type: 'runtime.command', line, outcome: 'ok', reply: reply.length > REPLY_KEEP_CHARS ? reply.slice(0, REPLY_KEEP_CHARS) : reply });
  }

  private requestReload(reason: ReloadReason, detail?: string): void {
    const atUs = this.scheduler.nowUs;
    this.emit(detail === undefined ? { atUs, type: 'reload.request', reason } : { atUs, type: 'reload.request', reason, detail });
    this.act(limiterRequest(this.limiter, atUs, this.intervalUs));
  }

  private act([next, action]: [LimiterState, LimiterAction]): void {
    this.limiter = next;
    if (action.kind === 'arm') {
      this.scheduler.at(action.atUs, () => this.act(limiterTimer(this.limiter, this.scheduler.nowUs, this.intervalUs)));
    } else if (action.kind === 'start') {
      this.startReload();
    }
  }

  private startReload(): void {
    const n = ++this.reloadCount;
    this.reloading = true;
    this.emit({ atUs: this.scheduler.nowUs, type: 'reload.start', n });
    // The template is written when the reload starts; later changes wait for the next one. The real
    // process starts now; the step at the end of the reload's duration waits until it serves.
    this.haproxy.beginReload(this.strategy.render(this.state));
    this.scheduler.after(msToUs(this.opts.reloadDurationMs), async () => {
      await this.haproxy.finishReload();
      this.reloading = false;
      // Everything applied at runtime is now in the config file: the pending commit has nothing left to write.
      if (this.commitTimer !== null) {
        this.scheduler.cancel(this.commitTimer);
        this.commitTimer = null;
      }
      this.strategy.onReloaded(this.state);
      this.emit({ atUs: this.scheduler.nowUs, type: 'reload.end', n });
      this.act(limiterFinished(this.limiter, this.scheduler.nowUs, this.intervalUs));
      this.settleCheck();
    });
  }

  private armCommitTimer(): void {
    if (this.commitTimer !== null) return;
    this.commitTimer = this.scheduler.after(msToUs(this.opts.commitIntervalMs), () => {
      this.commitTimer = null;
      this.requestReload('commit-interval');
    });
  }
}
