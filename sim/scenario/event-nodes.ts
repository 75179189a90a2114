import { isChurnEvent, type InputEvent } from '../../core/events.ts';

export interface EventNodeIssue {
  /** Path below the inline event list: [index, field]. */
  path: [number, string];
  message: string;
}

/**
 * The first inline event that names a router node the scenario does not have. At run time such an event is
 * only a warning (a streamed log's nodes cannot be known ahead), but a scenario's inline events are all here,
 * so a typo in a node name is caught before anything runs, with its line. A node counts as known if the
 * cluster lists it or any inline `node.join` brings it in (when it joins is the run's business). Without a
 * cluster, node events and partitions would be ignored altogether, so the first one is the problem.
 */
export function firstEventNodeIssue(
  events: readonly InputEvent[],
  clusterNodes: readonly string[] | undefined,
  opts: { withLogFile?: boolean } = {},
): EventNodeIssue | undefined {
  if (clusterNodes === undefined) {
    // network.heal names nobody: harmless (and ignored) without a cluster.
    const i = events.findIndex((e) => !isChurnEvent(e) && e.type !== 'network.heal');
    if (i < 0) return undefined;
    return { path: [i, 'type'], message: `${events[i]!.type} needs router nodes, and the scenario has no \`cluster\` section` };
  }
  // The scenario's event log may bring nodes in with its own node.join lines; it is read only as the run
  // goes, so there an unknown name is the run's warning.
  if (opts.withLogFile === true) return undefined;
  const known = new Set(clusterNodes);
  for (const e of events) if (e.type === 'node.join') known.add(e.node);
  const list = (): string => [...known].join(', ');
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.type === 'network.partition') {
      const unknown = e.groups.flat().find((n) => !known.has(n));
      if (unknown !== undefined) return { path: [i, 'groups'], message: `unknown router node '${unknown}'; known: ${list()}` };
    } else if ('node' in e && !known.has(e.node)) {
      return { path: [i, 'node'], message: `unknown router node '${e.node}'; known: ${list()}` };
    }
  }
  return undefined;
}

/** A scenario's `events` section, any of its three shapes, as its inline events and where they sit. */
export function inlineEventsOf(events: string | readonly unknown[] | { file?: string; inline?: readonly unknown[] } | undefined): {
  inline: InputEvent[];
  path: string[];
  logFile?: string;
} {
  if (events === undefined) return { inline: [], path: [] };
  if (typeof events === 'string') return { inline: [], path: [], logFile: events };
  if (Array.isArray(events)) return { inline: events as InputEvent[], path: ['events'] };
  const { file, inline } = events as { file?: string; inline?: readonly unknown[] };
  return { inline: (inline ?? []) as InputEvent[], path: ['events', 'inline'], ...(file !== undefined && { logFile: file }) };
}
