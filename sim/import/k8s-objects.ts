import type { Endpoint } from '../../core/endpoint.ts';
import type { InputEvent } from '../../core/events.ts';
import type { Route, RouteTls } from '../../core/route.ts';
import { badHostMessage, isRouteHost } from '../eventlog/route-host.ts';

/**
 * Kubernetes objects → v1 events (without `at`; the importer stamps times). Route (route.openshift.io/v1),
 * Endpoints (v1) and EndpointSlice (discovery.k8s.io/v1). A problem is thrown as ObjectProblem with the
 * field at fault; the importer reports it with the object's position.
 */
export type WatchType = 'ADDED' | 'MODIFIED' | 'DELETED';
export type EventBody = InputEvent extends infer E ? (E extends unknown ? Omit<E, 'at'> : never) : never;

export class ObjectProblem extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;

/**
 * Kubernetes writes times as RFC 3339 (metav1.Time), e.g. 2026-11-29T19:00:00Z. A time that is there but
 * not one is a problem with the object, never time 0 or the previous event's time without a word.
 */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function parseTime(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const t = typeof v === 'string' && RFC3339.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(t)) throw new ObjectProblem(`not an RFC 3339 time such as 2026-11-29T19:00:00Z: ${JSON.stringify(v)}`, field);
  return t;
}

function obj(v: unknown, field: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ObjectProblem(`expected an object`, field);
  return v as Obj;
}
function str(v: unknown, field: string): string {
  if (typeof v !== 'string' || v === '') throw new ObjectProblem(`expected a non-empty string`, field);
  return v;
}
function optStr(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new ObjectProblem('expected a string', field);
  return v;
}
function arr(v: unknown, field: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ObjectProblem('expected a list', field);
  return v;
}

/** Which resource an object is, from apiVersion and kind; undefined for anything else. */
export function resourceOf(o: Obj): 'Route' | 'Endpoints' | 'EndpointSlice' | undefined {
  const api = o['apiVersion'];
  const kind = o['kind'];
  if (kind === 'Route' && (api === 'route.openshift.io/v1' || api === 'v1')) return 'Route';
  if (kind === 'Endpoints' && api === 'v1') return 'Endpoints';
  if (kind === 'EndpointSlice' && api === 'discovery.k8s.io/v1') return 'EndpointSlice';
  return undefined;
}

/** Only the router's own annotations matter (and e.g. last-applied-configuration is large). */
const ROUTER_ANNOTATION = /^(haproxy\.)?router\.openshift\.io\//;
const TERMINATIONS = ['edge', 'passthrough', 'reencrypt'] as const;
const INSECURE = ['None', 'Allow', 'Redirect'] as const;

export function routeFromObject(o: Obj): Route {
  const meta = obj(o['metadata'], 'metadata');
  const spec = obj(o['spec'], 'spec');
  const to = obj(spec['to'], 'spec.to');
  if (to['kind'] !== undefined && to['kind'] !== 'Service') throw new ObjectProblem(`route target kind ${JSON.stringify(to['kind'])} is not Service`, 'spec.to.kind');
  const route: Route = {
    namespace: str(meta['namespace'], 'metadata.namespace'),
    name: str(meta['name'], 'metadata.name'),
    host: str(spec['host'], 'spec.host'),
    service: str(to['name'], 'spec.to.name'),
  };
  // The router rejects such a route itself (InvalidHost); naming spec.host beats naming the event's field.
  if (!isRouteHost(route.host)) throw new ObjectProblem(badHostMessage(route.host), 'spec.host');
  const path = optStr(spec['path'], 'spec.path');
  if (path !== undefined) route.path = path;
  const port = spec['port'];
  if (port !== undefined && port !== null) {
    const tp = obj(port, 'spec.port')['targetPort'];
    if (typeof tp === 'string' || typeof tp === 'number') route.targetPort = tp;
  }
  const wildcard = optStr(spec['wildcardPolicy'], 'spec.wildcardPolicy');
  if (wildcard !== undefined) {
    if (wildcard !== 'None' && wildcard !== 'Subdomain') throw new ObjectProblem(`unknown wildcardPolicy ${JSON.stringify(wildcard)}`, 'spec.wildcardPolicy');
    route.wildcardPolicy = wildcard;
  }
  if (spec['tls'] !== undefined && spec['tls'] !== null) route.tls = tlsFrom(obj(spec['tls'], 'spec.tls'));
  const annotations = meta['annotations'];
  if (annotations !== undefined && annotations !== null) {
    const kept: Record<string, string> = {};
    for (const [k, v] of Object.entries(obj(annotations, 'metadata.annotations'))) {
      if (ROUTER_ANNOTATION.test(k) && typeof v === 'string') kept[k] = v;
    }
    if (Object.keys(kept).length > 0) route.annotations = kept;
  }
  return route;
}

function tlsFrom(t: Obj): RouteTls {
  const term = str(t['termination'], 'spec.tls.termination').toLowerCase();
  if (!(TERMINATIONS as readonly string[]).includes(term)) throw new ObjectProblem(`unknown termination ${JSON.stringify(t['termination'])}`, 'spec.tls.termination');
  const tls: RouteTls = { termination: term as RouteTls['termination'] };
  const insecure = optStr(t['insecureEdgeTerminationPolicy'], 'spec.tls.insecureEdgeTerminationPolicy');
  if (insecure !== undefined) {
    if (!(INSECURE as readonly string[]).includes(insecure)) throw new ObjectProblem(`unknown insecureEdgeTerminationPolicy ${JSON.stringify(insecure)}`, 'spec.tls.insecureEdgeTerminationPolicy');
    tls.insecureEdgeTerminationPolicy = insecure as RouteTls['insecureEdgeTerminationPolicy'];
  }
  for (const k of ['certificate', 'key', 'caCertificate', 'destinationCACertificate'] as const) {
    const v = optStr(t[k], `spec.tls.${k}`);
    if (v !== undefined) tls[k] = v;
  }
  return tls;
}

/**
 * v1 Endpoints: every port × address of every subset, port by port as the router lists them
 * (createRouterEndpoints); notReadyAddresses listed with ready: false. UDP ports are left out, as the router
 * does without --include-udp-endpoints.
 */
export function endpointsFromObject(o: Obj): { namespace: string; service: string; endpoints: Endpoint[] } {
  const meta = obj(o['metadata'], 'metadata');
  const endpoints: Endpoint[] = [];
  arr(o['subsets'], 'subsets').forEach((s, i) => {
    const subset = obj(s, `subsets[${i}]`);
    const ports = arr(subset['ports'], `subsets[${i}].ports`).map((p, j) => portOf(p, `subsets[${i}].ports[${j}]`));
    const addresses = (key: string): { ip: string; name: string | undefined }[] =>
      arr(subset[key], `subsets[${i}].${key}`).map((a, k) => {
        const addr = obj(a, `subsets[${i}].${key}[${k}]`);
        return { ip: str(addr['ip'], `subsets[${i}].${key}[${k}].ip`), name: podName(addr['targetRef']) };
      });
    const ready = addresses('addresses');
    const notReady = addresses('notReadyAddresses');
    for (const port of ports) {
      if (port.udp) continue;
      for (const a of ready) endpoints.push(endpoint(a.ip, port, true, a.name));
      for (const a of notReady) endpoints.push(endpoint(a.ip, port, false, a.name));
    }
  });
  return { namespace: str(meta['namespace'], 'metadata.namespace'), service: str(meta['name'], 'metadata.name'), endpoints };
}

/** discovery.k8s.io/v1 EndpointSlice: the slice's share of its service's endpoints. */
export function sliceFromObject(o: Obj): { namespace: string; service: string; slice: string; endpoints: Endpoint[] } {
  const meta = obj(o['metadata'], 'metadata');
  const labels = meta['labels'] === undefined ? {} : obj(meta['labels'], 'metadata.labels');
  const service = str(labels['kubernetes.io/service-name'], "metadata.labels['kubernetes.io/service-name']");
  const type = o['addressType'];
  if (type !== 'IPv4' && type !== 'IPv6') throw new ObjectProblem(`addressType ${JSON.stringify(type)} is not IPv4 or IPv6`, 'addressType');
  const ports = arr(o['ports'], 'ports').map((p, j) => portOf(p, `ports[${j}]`));
  const addresses: { ip: string; hostname: string; ready: boolean; name: string | undefined }[] = [];
  arr(o['endpoints'], 'endpoints').forEach((e, i) => {
    const ep = obj(e, `endpoints[${i}]`);
    const conditions = ep['conditions'] === undefined || ep['conditions'] === null ? {} : obj(ep['conditions'], `endpoints[${i}].conditions`);
    // A nil `ready` is to be read as ready (discovery.k8s.io/v1 API docs).
    const ready = conditions['ready'] !== false;
    const name = podName(ep['targetRef']);
    const hostname = typeof ep['hostname'] === 'string' ? ep['hostname'] : '';
    for (const ip of arr(ep['addresses'], `endpoints[${i}].addresses`)) addresses.push({ ip: str(ip, `endpoints[${i}].addresses`), hostname, ready, name });
  });
  // The router turns each slice into one subset with its addresses sorted by IP, then hostname, and its
  // ports by number, protocol, then name (endpointsubset.ConvertEndpointSlice), then lists it port by port.
  addresses.sort((a, b) => compareIp(a.ip, b.ip) || compareText(a.hostname, b.hostname));
  ports.sort((a, b) => a.port - b.port || compareText(a.protocol, b.protocol) || compareText(a.name ?? '', b.name ?? ''));
  const endpoints: Endpoint[] = [];
  for (const port of ports) {
    if (port.udp) continue;
    for (const a of addresses) if (a.ready) endpoints.push(endpoint(a.ip, port, true, a.name));
    for (const a of addresses) if (!a.ready) endpoints.push(endpoint(a.ip, port, false, a.name));
  }
  return { namespace: str(meta['namespace'], 'metadata.namespace'), service, slice: str(meta['name'], 'metadata.name'), endpoints };
}

/** Go's strings.Compare. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** bytes.Compare of net.ParseIP's 16-byte forms (a slice holds one address family). */
function compareIp(a: string, b: string): number {
  const x = ipBytes(a);
  const y = ipBytes(b);
  for (let i = 0; i < 16; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

function ipBytes(ip: string): number[] {
  if (!ip.includes(':')) return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...ip.split('.').map(Number)];
  const [head, tail] = ip.includes('::') ? ip.split('::') as [string, string] : [ip, undefined];
  const groups = (text: string | undefined): number[] => (text === undefined || text === '' ? [] : text.split(':').map((g) => parseInt(g, 16)));
  const h = groups(head);
  const t = groups(tail);
  const words = [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

interface EndpointPort {
  port: number;
  name: string | undefined;
  protocol: string;
  udp: boolean;
}

function portOf(p: unknown, field: string): EndpointPort {
  const o = obj(p, field);
  const port = o['port'];
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) throw new ObjectProblem('expected a port number 1-65535', `${field}.port`);
  const name = o['name'];
  if (name !== undefined && name !== null && typeof name !== 'string') throw new ObjectProblem('expected a port name (a string)', `${field}.name`);
  // The event log needs a DNS label, as Kubernetes does; an empty name is an unnamed port.
  if (typeof name === 'string' && name !== '' && !PORT_NAME.test(name)) throw new ObjectProblem(`port name ${JSON.stringify(name)} is not a DNS label`, `${field}.name`);
  // Kubernetes defaults a port's protocol to TCP.
  const protocol = typeof o['protocol'] === 'string' ? o['protocol'] : 'TCP';
  return { port, name: typeof name === 'string' && name !== '' ? name : undefined, protocol, udp: protocol === 'UDP' };
}

const PORT_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The pod behind an address: only a targetRef of kind Pod gives the `pod:` server name (createRouterEndpoints). */
function podName(ref: unknown): string | undefined {
  if (ref === null || typeof ref !== 'object') return undefined;
  const { name, kind } = ref as Obj;
  if (kind !== 'Pod') return undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

function endpoint(ip: string, port: EndpointPort, ready: boolean, name: string | undefined): Endpoint {
  const e: Endpoint = { ip, port: port.port };
  if (!ready) e.ready = false;
  if (name !== undefined) e.name = name;
  if (port.name !== undefined) e.portName = port.name;
  return e;
}

/** The object's metadata.creationTimestamp, epoch ms, or undefined when it has none. */
export function creationTimeMs(o: Obj): number | undefined {
  const meta = (o['metadata'] ?? {}) as Obj;
  return parseTime(meta['creationTimestamp'], 'metadata.creationTimestamp');
}

/**
 * Time of a watch event from its object: creation for ADDED, deletion (or the last managed-fields write)
 * for DELETED, the last managed-fields write for MODIFIED. Epoch ms, or undefined when the object has none.
 */
export function objectTimeMs(type: WatchType, o: Obj): number | undefined {
  const meta = (o['metadata'] ?? {}) as Obj;
  let managed: number | undefined;
  if (Array.isArray(meta['managedFields'])) {
    meta['managedFields'].forEach((f, i) => {
      const t = parseTime((f as Obj | null)?.['time'], `metadata.managedFields[${i}].time`);
      if (t !== undefined && (managed === undefined || t > managed)) managed = t;
    });
  }
  const created = parseTime(meta['creationTimestamp'], 'metadata.creationTimestamp');
  const deleted = parseTime(meta['deletionTimestamp'], 'metadata.deletionTimestamp');
  if (type === 'ADDED') return created ?? managed;
  if (type === 'DELETED') return deleted ?? managed ?? created;
  return managed ?? created;
}
