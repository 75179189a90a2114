/** One address of a service, as an Endpoints object lists it. */
export interface Endpoint {
  ip: string;
  port: number;
  /** Not-ready addresses stay listed but must not receive traffic. Defaults to true. */
  ready?: boolean;
  /** The pod (or port) name; part of the identity the router uses for static server names. */
  name?: string;
}

export function isReady(e: Endpoint): boolean {
  return e.ready !== false;
}

/** Endpoint identity as the config manager diffs it: address, port and name. */
export function endpointId(e: Endpoint): string {
  return e.name === undefined ? `${e.ip}:${e.port}` : `${e.ip}:${e.port}:${e.name}`;
}

/** Two endpoint lists are the same set (order ignored), so re-applying an `endpoints.set` changes nothing. */
export function sameEndpoints(a: readonly Endpoint[], b: readonly Endpoint[]): boolean {
  if (a.length !== b.length) return false;
  // Hot path: the same list in the same order needs no map.
  let i = 0;
  while (i < a.length && sameEndpoint(a[i]!, b[i]!)) i++;
  if (i === a.length) return true;
  const seen = new Map<string, boolean>();
  for (const e of a) seen.set(endpointId(e), isReady(e));
  for (const e of b) {
    const ready = seen.get(endpointId(e));
    if (ready === undefined || ready !== isReady(e)) return false;
  }
  return true;
}

function sameEndpoint(x: Endpoint, y: Endpoint): boolean {
  return x.ip === y.ip && x.port === y.port && x.name === y.name && isReady(x) === isReady(y);
}
