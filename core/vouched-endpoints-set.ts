import type { Endpoint } from './endpoint.ts';

/**
 * An `endpoints.set` whose reader vouches for two facts it saw on its way through the line, each address
 * read as a number once:
 * - the endpoints come in the router's order (compareEndpoints: each compares <= 0 with the next), so the
 *   state update takes the list as it is instead of checking it (inRouterOrder);
 * - every address is a dotted quad that the router's endpoint address filter keeps
 *   (`isAllowedIpv4`), so admission passes the list on without checking it.
 * Reading every address again from its string for these was 10-15% of a reload-always replay of the bench
 * logs. Only the class says so: a copy of the event (`{...e}`, a message to a worker) is a plain object
 * again, and is checked again. A reader that cannot vouch for both makes a plain event. Its fields are an
 * event's, in a read event's order, so it prints as the line it was read from.
 */
export class VouchedEndpointsSet {
  readonly at: number;
  readonly type = 'endpoints.set' as const;
  readonly namespace: string;
  readonly service: string;
  /** Not to be changed: the facts are about this list. */
  readonly endpoints: Endpoint[];

  constructor(at: number, namespace: string, service: string, endpoints: Endpoint[]) {
    this.at = at;
    this.namespace = namespace;
    this.service = service;
    this.endpoints = endpoints;
  }
}
