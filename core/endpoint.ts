/** One address of a service, as an Endpoints object lists it. */
export interface Endpoint {
  ip: string;
  port: number;
  /** Not-ready addresses stay listed but must not receive traffic. Defaults to true. */
  ready?: boolean;
  /** The pod behind the address (its `targetRef`); part of the identity the router uses for static server names. */
  name?: string;
  /**
   * The Endpoints port's name (the service port's name), empty for an unnamed single-port service. A route
   * whose `targetPort` names it is served only this port's endpoints; it is also part of the server name.
   */
  portName?: string;
}

export function isReady(e: Endpoint): boolean {
  return e.ready !== false;
}

/** Endpoint identity as the config manager diffs it: address, port, pod and port name. */
export function endpointId(e: Endpoint): string {
  const id = e.name === undefined ? `${e.ip}:${e.port}` : `${e.ip}:${e.port}:${e.name}`;
  return e.portName === undefined ? id : `${id}/${e.portName}`;
}

/**
 * Whether a route with this preferred port (its `targetPort` as text, PreferPort upstream) is served the
 * endpoint: every endpoint without one, else those whose port name or number is that text
 * (template_helper.go endpointsForAlias).
 */
export function servesPort(preferPort: string | undefined, portName: string | undefined, port: number): boolean {
  return preferPort === undefined || portName === preferPort || String(port) === preferPort;
}

/** How many endpoints two lists of one length start with alike (as sameEndpointsAfter compares them), place by place. */
export function samePrefixLength(a: readonly Endpoint[], b: readonly Endpoint[]): number {
  let i = 0;
  while (i < a.length && sameEndpoint(a[i]!, b[i]!)) i++;
  return i;
}

/**
 * Whether two lists of one length, starting with `prefix` endpoints alike, are the same set (order ignored):
 * re-applying such an `endpoints.set` changes nothing.
 */
export function sameEndpointsAfter(a: readonly Endpoint[], b: readonly Endpoint[], prefix: number): boolean {
  // Hot path: the same list in the same order needs no map.
  if (prefix === a.length) return true;
  const seen = new Map<string, boolean>();
  for (const e of a) seen.set(endpointId(e), isReady(e));
  for (const e of b) {
    const ready = seen.get(endpointId(e));
    if (ready === undefined || ready !== isReady(e)) return false;
  }
  return true;
}

function sameEndpoint(x: Endpoint, y: Endpoint): boolean {
  return x.ip === y.ip && x.port === y.port && x.name === y.name && x.portName === y.portName && isReady(x) === isReady(y);
}
