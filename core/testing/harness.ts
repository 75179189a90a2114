import type { ChurnEvent } from '../events.ts';
import type { RuntimeCommand } from '../haproxy/commands.ts';
import type { HaproxyConfig } from '../haproxy/config-model.ts';
import type { ReloadReason } from '../reload-reason.ts';
import { applyChurn, emptyRouterState, type RouterState } from '../router-state.ts';
import { driveSync } from '../runtime-drive.ts';
import type { TransportResult } from '../runtime-effect.ts';
import type { RouterStrategy, StrategyContext } from '../strategy.ts';

/** What a strategy drives: a whole config on reload, one command otherwise. */
export interface HaproxyPort {
  load(config: HaproxyConfig): void;
  send(command: RuntimeCommand): TransportResult;
}

/**
 * A synchronous router for tests: applies churn, runs the strategy's program to completion against the
 * HAProxy port (sleeps skipped), and records reload requests. Reloads happen only when `reload()` is called,
 * so a test decides when the rate limiter would have run one.
 */
export class Harness {
  readonly state: RouterState = emptyRouterState();
  readonly requests: { reason: ReloadReason; detail?: string }[] = [];
  readonly notes: string[] = [];
  readonly runtimeErrors: string[] = [];
  commitArms = 0;
  reloads = 0;
  reloadInProgress = false;
  readonly ctx: StrategyContext;

  constructor(
    readonly strategy: RouterStrategy,
    readonly haproxy: HaproxyPort,
  ) {
    const self = this;
    this.ctx = {
      get reloadInProgress() {
        return self.reloadInProgress;
      },
      requestReload: (reason, detail) => void this.requests.push(detail === undefined ? { reason } : { reason, detail }),
      armCommitTimer: () => void this.commitArms++,
      note: (m) => void this.notes.push(m),
      runtimeError: (d) => void this.runtimeErrors.push(d),
    };
  }

  /** Initial sync: events fill the state, then the first reload writes it. */
  sync(events: ChurnEvent[]): void {
    for (const e of events) applyChurn(this.state, e);
    this.reload();
  }

  apply(e: ChurnEvent): void {
    const change = applyChurn(this.state, e);
    if (change === null) return;
    const program = this.strategy.onChange(change, this.state, this.ctx);
    if (program) driveSync(program, (command) => this.haproxy.send(command));
  }

  /** Runs a reload now and clears the pending requests. */
  reload(): void {
    this.haproxy.load(this.strategy.render(this.state));
    this.strategy.onReloaded(this.state);
    this.reloads++;
    this.requests.length = 0;
  }

  /**
   * A reload in two halves, as the router runs it: the config is rendered when it starts, changes applied
   * meanwhile are refused by the config managers, and HAProxy runs the rendered config when it ends.
   */
  beginReload(): () => void {
    const config = this.strategy.render(this.state);
    this.requests.length = 0;
    this.reloadInProgress = true;
    return () => {
      this.haproxy.load(config);
      this.reloadInProgress = false;
      this.strategy.onReloaded(this.state);
      this.reloads++;
    };
  }

  /** Reloads if any request is pending (what the rate limiter eventually does). */
  settle(): boolean {
    if (this.requests.length === 0) return false;
    this.reload();
    return true;
  }

  reasons(): ReloadReason[] {
    return this.requests.map((r) => r.reason);
  }
}
