import { AT_BOUND, atTooLateMessage, MAX_AT_MS } from '../eventlog/event-time.ts';
import type { GenerateSpec } from '../generate/spec.ts';

export interface TimeIssue {
  path: Array<string | number>;
  message: string;
}

/**
 * The first time in the `generate` section that becomes an event's `at` and lies past what the µs clock
 * holds exactly (MAX_AT_MS, the event log's own bound): scheduled faults and the `at` lists of the churn
 * generators, and the end of the window generators start things in. Generated events skip the event
 * schema, so this is where their times are bounded. `simDurationMs` stands in for a missing
 * generate.durationMs, as the loader resolves it.
 */
export function firstGeneratedTimeIssue(g: GenerateSpec, simDurationMs: number | undefined): TimeIssue | undefined {
  const late = (path: Array<string | number>, at: number): TimeIssue | undefined => (at > MAX_AT_MS ? { path: ['generate', ...path], message: atTooLateMessage(at) } : undefined);
  for (const key of ['rollouts', 'drains', 'bursts'] as const) {
    const list = g[key]?.at ?? [];
    for (let i = 0; i < list.length; i++) {
      const issue = late([key, 'at', i], list[i]!);
      if (issue !== undefined) return issue;
    }
  }
  const schedule = g.faults?.schedule ?? [];
  for (let i = 0; i < schedule.length; i++) {
    const issue = late(['faults', 'schedule', i, 'at'], schedule[i]!.at);
    if (issue !== undefined) return issue;
  }
  const start = g.startMs;
  const startIssue = late(['startMs'], start);
  if (startIssue !== undefined) return startIssue;
  const duration = g.durationMs ?? simDurationMs;
  if (duration === undefined || start + duration <= MAX_AT_MS) return undefined;
  const end = start + duration;
  const field = g.durationMs !== undefined ? 'generate.durationMs' : 'sim.durationMs';
  return {
    path: g.durationMs !== undefined ? ['generate', 'durationMs'] : ['sim', 'durationMs'],
    message: `generators would run until ${end} ms (generate.startMs + ${field}); event times must be ${AT_BOUND}`,
  };
}
