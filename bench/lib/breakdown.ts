import type { InputEvent } from '../../core/events.ts';
import type { RuntimeCommand } from '../../core/haproxy/commands.ts';
import { MockHaproxy } from '../../sim/haproxy/mock-haproxy.ts';
import type { OutputSink } from '../../sim/output/output-sink.ts';
import { RouterProcess } from '../../sim/router-process.ts';
import type { RunInput } from '../../sim/run-input.ts';

// Any method, called with the arguments and receiver it was given.
type Method = (this: any, ...args: any[]) => unknown;

/**
 * Where a replay's time goes, by what the simulation was doing rather than by function: reading the log,
 * each input event type (the router and its config manager), each runtime command kind (the mocked
 * HAProxy), reloads (render, load), the output log. A CPU profile spreads one command over a dozen
 * functions, and generators resumed by the router's loop hide which change sent it; this table answers
 * "is it the route events or the endpoint events, and is it the manager or the mock".
 *
 * Each place is timed as self time: a command's time is taken out of the event that sent it. Timing costs
 * about 0.1 µs per call (three or four calls per event), so the total is slower than an untimed replay; compare shares, not totals.
 */
export class Breakdown {
  private readonly rows = new Map<string, { calls: number; ns: number }>();
  /** Child time of the frames open now, innermost last. */
  private readonly children: number[] = [];
  private readonly restore: (() => void)[] = [];

  /** Labels by event type and command kind, made once: a string per call would be most of the timing's cost. */
  private readonly labels = { event: new Map<string, string>(), command: new Map<string, string>() };

  /** `clock` gives nanoseconds (a double: a BigInt per reading cost more); a test passes its own. */
  constructor(private readonly clock: () => number = () => performance.now() * 1e6) {}

  /** Times `fn` as `label`, its callees' timed parts excepted. */
  time<T>(label: string, fn: () => T): T {
    this.children.push(0);
    const t0 = this.clock();
    try {
      return fn();
    } finally {
      const total = this.clock() - t0;
      const inner = this.children.pop()!;
      if (this.children.length > 0) this.children[this.children.length - 1]! += total;
      const row = this.rows.get(label);
      if (row === undefined) this.rows.set(label, { calls: 1, ns: total - inner });
      else {
        row.calls++;
        row.ns += total - inner;
      }
    }
  }

  /** Instruments the router, the mock and the reloads for the rest of the process, until `uninstall`. */
  install(): void {
    const self = this;
    this.wrap(RouterProcess.prototype, 'onChurn', (orig) =>
      function (this: unknown, e: InputEvent) {
        return self.time(self.label('event', e.type), () => orig.call(this, e));
      },
    );
    this.wrap(MockHaproxy.prototype, 'send', (orig) =>
      function (this: unknown, c: RuntimeCommand) {
        return self.time(self.label('command', c.kind), () => orig.call(this, c));
      },
    );
    this.wrap(MockHaproxy.prototype, 'load', (orig) =>
      function (this: unknown, ...args: unknown[]) {
        return self.time('reload: HAProxy loads the config', () => orig.apply(this, args));
      },
    );
    // Private methods, reached at run time: the render is done at a reload's start, the manager's reset at its end.
    const router = RouterProcess.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
    this.wrap(router, 'startReload', (orig) =>
      function (this: unknown, ...args: unknown[]) {
        return self.time('reload: render the config', () => orig.apply(this, args));
      },
    );
    this.wrap(router, 'reloadEnded', (orig) =>
      function (this: unknown, ...args: unknown[]) {
        return self.time('reload: end (manager reset)', () => orig.apply(this, args));
      },
    );
  }

  private label(what: 'event' | 'command', kind: string): string {
    const labels = this.labels[what];
    let label = labels.get(kind);
    if (label === undefined) labels.set(kind, (label = `${what} ${kind}`));
    return label;
  }

  uninstall(): void {
    for (const undo of this.restore.splice(0)) undo();
  }

  /** The input's events, each read timed. */
  reading(input: RunInput): RunInput {
    const self = this;
    return {
      ...input,
      *events() {
        const it = input.events()[Symbol.iterator]();
        try {
          for (;;) {
            const r = self.time('read the event log', () => it.next());
            if (r.done === true) return;
            yield r.value;
          }
        } finally {
          it.return?.();
        }
      },
    };
  }

  /** The sink, each record timed. */
  writing(sink: OutputSink): OutputSink {
    return {
      record: (r) => this.time('write the output log', () => sink.record(r)),
      commit: () => sink.commit(),
      abort: () => sink.abort(),
    };
  }

  /** Rows by time, largest first, with what `totalNs` leaves unaccounted as `other`. */
  table(totalNs: number): { label: string; calls: number; ms: number; usPerCall: number; share: number }[] {
    const rows = [...this.rows].map(([label, r]) => ({ label, calls: r.calls, ns: r.ns }));
    const timed = rows.reduce((a, r) => a + r.ns, 0);
    rows.push({ label: 'other (engine, timers, invariants, start-up)', calls: 0, ns: Math.max(0, totalNs - timed) });
    return rows
      .sort((a, b) => b.ns - a.ns)
      .map((r) => ({
        label: r.label,
        calls: r.calls,
        ms: Math.round(r.ns / 1e6),
        usPerCall: r.calls === 0 ? 0 : Math.round(r.ns / r.calls / 100) / 10,
        share: Math.round((1000 * r.ns) / totalNs) / 10,
      }));
  }

  private wrap<O extends object, K extends keyof O & string>(
    owner: O,
    key: K,
    make: (orig: Method) => Method,
  ): void {
    const orig = owner[key] as Method;
    if (typeof orig !== 'function') throw new Error(`breakdown: ${key} is not a method to time`);
    owner[key] = make(orig) as O[K];
    this.restore.push(() => {
      owner[key] = orig as O[K];
    });
  }
}
