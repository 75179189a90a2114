import type { ChurnEvent } from '../core/events.ts';
import type { HaproxyConfig } from '../core/haproxy/config-model.ts';
import type { ReloadReason } from '../core/reload-reason.ts';
import {
  initialLimiterState,
  limiterAbsorbs,
  limiterFinished,
  limiterRequest,
  limiterTimer,
  type LimiterAction,
  type LimiterState,
} from '../core/reload-limiter.ts';
import { RouteAdmission } from '../core/route-admission.ts';
import { applyChurn, emptyRouterState, type RouterState } from '../core/router-state.ts';
import type { RuntimeCommand } from '../core/haproxy/commands.ts';
import { commandVerb, encodeCommand, encodeReply } from '../core/haproxy/runtime-codec.ts';
import { isSleep, type RuntimeProgram, type TransportResult } from '../core/runtime-effect.ts';
import type { RouterStrategy, StrategyContext } from '../core/strategy.ts';
import type { CompactTally } from './output/command-tally.ts';
import type { OutputRecord } from './output/records.ts';
import { msToUs, type Scheduler, type Step, type TimerHandle } from './scheduler.ts';

/**
 * The HAProxy a router drives: reloaded with a whole config, or changed one command at a time. The mock
 * answers at once; a real HAProxy answers later (a promise), and the router then waits for it, taking no
 * other step meanwhile (the engine's `runAsync` awaits the step).
 */
export interface HaproxyPort {
  /** A reload starts with this config: a real HAProxy's new process starts on it now. */
  beginReload?(config: HaproxyConfig): void;
  /** The reload ends: HAProxy runs `config` from now on (once the new process serves, for a real one). */
  load(config: HaproxyConfig): Step;
  send(command: RuntimeCommand): TransportResult | Promise<TransportResult>;
}

export interface RouterProcessOptions {
  reloadIntervalMs: number;
  reloadDurationMs: number;
  commitIntervalMs: number;
  /** ROUTER_ALLOW_WILDCARD_ROUTES: otherwise wildcard (`Subdomain`) routes are not admitted. */
  allowWildcardRoutes?: boolean;
  /** ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK: routes of any namespace may share a host (on other paths). */
  disableNamespaceOwnershipCheck?: boolean;
  /** ROUTER_DENIED_DOMAINS and ROUTER_ALLOWED_DOMAINS (core/route-admission.ts). */
  deniedDomains?: readonly string[];
  allowedDomains?: readonly string[];
  /** The ExtendedValidator's endpoint address check (core/endpoint-address-filter.ts); on unless false. */
  validateEndpointAddresses?: boolean;
  /** Called when the router is settled (no reload running or pending, no runtime work in flight). */
  onSettled?: (state: RouterState) => void;
  /**
   * Where successful commands and folded reload requests are counted (the compact log); without one every
   * command and request is a record (`--trace runtime`; the sink may still fold the requests).
   */
  tally?: CompactTally;
}

const REPLY_KEEP_CHARS = 200;

/**
 * One router replica: the desired state, a strategy, the reload rate limiter and an HAProxy. Like the real
 * router it handles one change at a time; changes that arrive while runtime work waits (client backoff)
 * queue behind it. Events at time 0 are the initial sync: they fill the state, then the first reload
 * (reason `initial`) writes them all.
 */
export class RouterProcess {
  readonly state: RouterState = emptyRouterState();
  private limiter: LimiterState = initialLimiterState;
  private synced = false;
  private reloading = false;
  private reloadCount = 0;
  private busy = false;
  private readonly backlog: ChurnEvent[] = [];
  private readonly admission: RouteAdmission;
  /** The changes admission made of the input being handled, and the next to run. */
  private admitted: readonly ChurnEvent[] = [];
  private nextAdmitted = 0;
  private commitTimer: TimerHandle | null = null;
  /** A change is being handled (its runtime program included, while it waits). */
  private inEvent = false;
  /** The change being handled asked for a reload: the rate limiter hears of it once the change is done. */
  private reloadAsked = false;
  /**
   * The rate limiter started a reload while a change was being handled (its runtime program waiting on a
   * retry's backoff): commitAndReload takes the router's lock, which the change holds for its whole walk, so
   * the reload starts when the change is done.
   */
  private startWhenDone = false;
  private readonly intervalUs: number;
  private readonly ctx: StrategyContext;
  /** The strategy's RouterStrategy.keepsAlikeEndpoints. */
  private readonly keepAlike: boolean;

  constructor(
    private readonly strategy: RouterStrategy,
    private readonly haproxy: HaproxyPort,
    private readonly scheduler: Scheduler,
    private readonly emit: (r: OutputRecord) => void,
    private readonly opts: RouterProcessOptions,
  ) {
    this.intervalUs = msToUs(opts.reloadIntervalMs);
    this.keepAlike = strategy.keepsAlikeEndpoints === true;
    this.admission = new RouteAdmission((message) => this.emit({ atUs: this.scheduler.nowUs, type: 'warning', message }), {
      allowWildcardRoutes: opts.allowWildcardRoutes === true,
      deniedDomains: opts.deniedDomains ?? [],
      allowedDomains: opts.allowedDomains ?? [],
      blueprintPlugin: strategy.blueprintPlugin === true,
      activation: opts.disableNamespaceOwnershipCheck === true ? 'oldest-first' : 'same-namespace',
      validateEndpointAddresses: opts.validateEndpointAddresses !== false,
    });
    const self = this;
    this.ctx = {
      get reloadInProgress() {
        return self.reloading;
      },
      requestReload: (reason, detail) => this.requestReload(reason, detail, this.inEvent),
      armCommitTimer: () => this.armCommitTimer(),
      note: (message) => this.emit({ atUs: this.scheduler.nowUs, type: 'note', message }),
      runtimeError: (detail) => this.emit({ atUs: this.scheduler.nowUs, type: 'runtime.error', detail }),
    };
  }

  /** Boots the router at time 0; the initial sync completes after every input event at time 0. */
  start(): void {
    this.scheduler.at(0, () => {
      this.synced = true;
      this.requestReload('initial');
    });
  }

  /** A change, handled now; a promise when it waits on a real HAProxy's reply. */
  onChurn(e: ChurnEvent): Step {
    if (this.busy) {
      this.backlog.push(e);
      return;
    }
    const waiting = this.handle(e);
    if (waiting !== undefined) return waiting.then(() => this.settleCheck());
    this.settleCheck();
  }

  /**
   * One input, handled as RouterController.HandleRoute/HandleEndpoints does: the plugins process the changes
   * admission makes of it (usually one; a route that frees or takes a host adds or deletes others), each by
   * its dynamic changes or a note that the state changed, then Commit() registers one reload with the rate
   * limiter, whose goroutine starts it. A reload asked for while the input is handled therefore starts after
   * it, never in its middle: its own dynamic calls are not refused by it, and one input never makes two
   * reloads.
   */
  private handle(e: ChurnEvent): Step {
    this.admitted = this.admission.admit(e);
    this.nextAdmitted = 0;
    return this.restOfInput();
  }

  /** The input's admitted changes from where they stand, then Commit() if any reached the strategy. */
  private restOfInput(): Step {
    const admitted = this.admitted;
    while (this.nextAdmitted < admitted.length) {
      const change = applyChurn(this.state, admitted[this.nextAdmitted++]!, this.keepAlike);
      if (change === null || !this.synced) continue;
      this.inEvent = true;
      const program = this.strategy.onChange(change, this.state, this.ctx);
      if (!program) continue;
      const waiting = this.drive(program, undefined);
      if (waiting instanceof Promise) return waiting.then(() => (this.busy ? undefined : this.restOfInput()));
      // Parked on a retry's backoff: the program's end comes back here (drive).
      if (this.busy) return;
    }
    if (this.inEvent) this.endEvent();
  }

  /** The change is handled: Commit(). */
  private endEvent(): void {
    this.inEvent = false;
    if (this.reloadAsked) {
      this.reloadAsked = false;
      this.registerChange();
    }
    // Commit() runs on the goroutine that just let the lock go, before the reload waiting for it; the reload
    // the limiter already started then finds this change's request and runs one more after it.
    if (this.startWhenDone) {
      this.startWhenDone = false;
      this.startReload();
    }
  }

  /**
   * Runs a runtime program until it finishes or waits; a backoff wait parks later changes in the backlog.
   * A reply that comes later continues the program when it comes (the returned promise); a reply given at
   * once (the simulation's) keeps it all synchronous, without a promise.
   */
  private drive(program: RuntimeProgram<unknown>, input: TransportResult | undefined): Step {
    for (;;) {
      const step = program.next(input);
      if (step.done) {
        if (this.busy) {
          this.busy = false;
          const rest = this.restOfInput();
          if (rest instanceof Promise) return rest.then(() => (this.busy ? undefined : this.drainBacklog()));
          return this.busy ? undefined : this.drainBacklog();
        }
        return;
      }
      const effect = step.value;
      if (isSleep(effect)) {
        this.busy = true;
        this.scheduler.after(msToUs(effect.ms), () => this.drive(program, undefined));
        return;
      }
      const sent = this.haproxy.send(effect);
      if (sent instanceof Promise) {
        return sent.then((result) => {
          this.recordCommand(effect, result);
          return this.drive(program, result);
        });
      }
      input = sent;
      this.recordCommand(effect, sent);
    }
  }

  private drainBacklog(): Step {
    while (!this.busy && this.backlog.length > 0) {
      const waiting = this.handle(this.backlog.shift()!);
      if (waiting !== undefined) return waiting.then(() => this.drainBacklog());
    }
    this.settleCheck();
  }

  /** The output log's record of one command attempt: its line and reply as they would cross the wire. */
  private recordCommand(command: RuntimeCommand, result: TransportResult): void {
    const atUs = this.scheduler.nowUs;
    // A refusal is recorded in full like a failed attempt: what HAProxy said is what a reader needs.
    if (result.ok && result.reply.kind !== 'refused' && this.opts.tally !== undefined) {
      this.opts.tally.count(atUs, commandVerb(command));
      return;
    }
    const line = encodeCommand(command);
    if (!result.ok) {
      this.emit({ atUs, type: 'runtime.command', line, outcome: result.error });
      return;
    }
    const reply = encodeReply(result.reply, REPLY_KEEP_CHARS);
    if (reply === '\n' || reply === '') this.emit({ atUs, type: 'runtime.command', line, outcome: 'ok' });
    else this.emit({ atUs, type: 'runtime.command', line, outcome: 'ok', reply: reply.length > REPLY_KEEP_CHARS ? reply.slice(0, REPLY_KEEP_CHARS) : reply });
  }

  /** A reload request is recorded when made; one made while a change is handled reaches the limiter after it. */
  private requestReload(reason: ReloadReason, detail?: string, deferred = false): void {
    const atUs = this.scheduler.nowUs;
    const tally = this.opts.tally;
    if (detail !== undefined) this.emit({ atUs, type: 'reload.request', reason, detail });
    else if (tally === undefined || !tally.foldRequest(atUs, reason)) this.emit({ atUs, type: 'reload.request', reason });
    if (deferred) this.reloadAsked = true;
    else this.registerChange();
  }

  private registerChange(): void {
    const atUs = this.scheduler.nowUs;
    if (!limiterAbsorbs(this.limiter, atUs, this.intervalUs)) this.act(limiterRequest(this.limiter, atUs, this.intervalUs));
  }

  private act([next, action]: [LimiterState, LimiterAction]): void {
    this.limiter = next;
    if (action.kind === 'arm') {
      this.scheduler.at(action.atUs, () => this.act(limiterTimer(this.limiter, this.scheduler.nowUs, this.intervalUs)));
    } else if (action.kind === 'start') {
      if (this.inEvent) this.startWhenDone = true;
      else this.startReload();
    }
  }

  private startReload(): void {
    const n = ++this.reloadCount;
    this.reloading = true;
    this.emit({ atUs: this.scheduler.nowUs, type: 'reload.start', n });
    // The template is written when the reload starts; later changes wait for the next one. A real HAProxy
    // starts its new process now; the step at the end of the reload's duration waits until it serves.
    const config = this.strategy.render(this.state);
    this.haproxy.beginReload?.(config);
    this.scheduler.after(msToUs(this.opts.reloadDurationMs), () => {
      const loading = this.haproxy.load(config);
      if (loading instanceof Promise) return loading.then(() => this.reloadEnded(n));
      this.reloadEnded(n);
    });
  }

  /** HAProxy runs the reload's config. */
  private reloadEnded(n: number): void {
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
  }

  private armCommitTimer(): void {
    if (this.commitTimer !== null) return;
    this.commitTimer = this.scheduler.after(msToUs(this.opts.commitIntervalMs), () => {
      this.commitTimer = null;
      this.requestReload('commit-interval');
    });
  }

  get settled(): boolean {
    return this.synced && !this.reloading && !this.limiter.pending && !this.busy;
  }

  private settleCheck(): void {
    if (this.opts.onSettled && this.settled) this.opts.onSettled(this.state);
  }
}
