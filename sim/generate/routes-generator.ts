import type { Route, Termination } from '../../core/route.ts';
import type { RandomStream } from '../random-streams.ts';
import type { ChurnContext } from './churn-context.ts';
import type { RoutesSpec } from './spec.ts';

type Kind = 'http' | Termination;
const KINDS: readonly Kind[] = ['http', 'edge', 'passthrough', 'reencrypt'];

/**
 * Backend-modifying annotations (they decide blueprint matching in the dynamic config manager), with values
 * a user would write. The last three do not apply to passthrough routes.
 */
const ANNOTATIONS: ReadonlyArray<readonly [string, readonly string[], boolean]> = [
  ['haproxy.router.openshift.io/timeout', ['30s', '2m', '5m'], true],
  ['haproxy.router.openshift.io/balance', ['roundrobin', 'leastconn', 'source'], true],
  ['haproxy.router.openshift.io/ip_whitelist', ['10.0.0.0/8', '192.168.0.0/16 10.1.0.0/16'], true],
  ['haproxy.router.openshift.io/rate-limit-connections', ['true'], true],
  ['haproxy.router.openshift.io/disable_cookies', ['true'], false],
  ['router.openshift.io/cookie_name', ['session', 'app-affinity'], false],
  ['haproxy.router.openshift.io/hsts_header', ['max-age=31536000'], false],
];
const PATHS = ['/api', '/v1', '/static', '/login'];

/** Pick an index with probability proportional to its weight. */
export function weighted(rng: RandomStream, weights: readonly number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let x = rng.next() * total;
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i]!;
    if (x < 0 && weights[i]! > 0) return i;
  }
  // Rounding at the top end: the last positive weight.
  for (let i = weights.length - 1; i >= 0; i--) if (weights[i]! > 0) return i;
  throw new Error('weighted: no positive weight');
}

function pem(kind: string, subject: string): string {
  return `-----BEGIN ${kind}-----\nrouterbench generated ${subject}\n-----END ${kind}-----`;
}

/**
 * Route churn: `initial` routes at the start, then creations and deletions as Poisson processes, each route
 * of a kind drawn from the mix, on a random service, with certificates, annotations, paths, a live route's
 * host and a wildcard policy at the given shares. Stream `generate/routes`.
 */
export function installRoutes(ctx: ChurnContext, spec: RoutesSpec, rng: RandomStream, startMs: number): void {
  const live: string[] = []; // `namespace/name` of generated routes, for uniform deletion
  const hosts: string[] = []; // their hosts, at the same index (for sharedHosts)
  const index = new Map<string, number>();
  let seq = 0;
  const weights = KINDS.map((k) => spec.mix[k]);

  const create = (at: number): void => {
    if (spec.max !== undefined && live.length >= spec.max) return;
    // Drawn only when asked for, so that a spec without sharedHosts draws as it always has.
    const shared = spec.sharedHosts > 0 && live.length > 0 && rng.chance(spec.sharedHosts) ? hosts[rng.int(hosts.length)] : undefined;
    const route = makeRoute(ctx, spec, rng, seq++, KINDS[weighted(rng, weights)]!, shared);
    index.set(`${route.namespace}/${route.name}`, live.length);
    live.push(`${route.namespace}/${route.name}`);
    hosts.push(route.host);
    ctx.emit({ at, type: 'route.upsert', route });
  };

  const remove = (at: number): void => {
    if (live.length === 0) return;
    const i = rng.int(live.length);
    const key = live[i]!;
    const last = live.pop()!;
    const lastHost = hosts.pop()!;
    if (i < live.length) {
      live[i] = last;
      hosts[i] = lastHost;
      index.set(last, i);
    }
    index.delete(key);
    const [namespace, name] = key.split('/') as [string, string];
    ctx.emit({ at, type: 'route.delete', namespace, name });
  };

  // Initial routes in chunks, so a million of them never sit in the output buffer at once.
  const CHUNK = 1000;
  let made = 0;
  const initialChunk = (at: number): void => {
    const n = Math.min(CHUNK, spec.initial - made);
    for (let i = 0; i < n; i++) create(at);
    made += n;
    if (made < spec.initial) ctx.at(at, initialChunk);
  };
  if (spec.initial > 0) ctx.at(startMs, initialChunk);
  ctx.poisson(rng, spec.createPerHour, startMs, create);
  ctx.poisson(rng, spec.deletePerHour, startMs, remove);
}

function makeRoute(ctx: ChurnContext, spec: RoutesSpec, rng: RandomStream, n: number, kind: Kind, sharedHost: string | undefined): Route {
  const services = ctx.world.services;
  const svc = services[rng.int(services.length)]!;
  const name = `route-${n}`;
  const host = sharedHost ?? `${name}-${svc.namespace}.${ctx.world.spec.domain}`;
  const route: Route = { namespace: svc.namespace, name, host, service: svc.name };
  if (spec.targetPort !== undefined) route.targetPort = spec.targetPort;
  if (kind !== 'passthrough' && rng.chance(spec.paths)) route.path = PATHS[rng.int(PATHS.length)]!;
  if (kind !== 'http') {
    route.tls = { termination: kind };
    if (kind === 'edge') route.tls.insecureEdgeTerminationPolicy = rng.chance(0.5) ? 'Redirect' : 'None';
    if (kind === 'reencrypt') route.tls.destinationCACertificate = pem('CERTIFICATE', `service CA for ${svc.name}`);
    if (kind !== 'passthrough' && rng.chance(spec.customCertificates)) {
      route.tls.certificate = pem('CERTIFICATE', host);
      route.tls.key = pem('PRIVATE KEY', host);
      route.tls.caCertificate = pem('CERTIFICATE', `CA for ${host}`);
    }
  }
  if (rng.chance(spec.annotations)) {
    const usable = ANNOTATIONS.filter(([, , anyKind]) => anyKind || kind !== 'passthrough');
    const count = 1 + rng.int(2);
    const annotations: Record<string, string> = {};
    for (let i = 0; i < count; i++) {
      const [key, values] = usable[rng.int(usable.length)]!;
      annotations[key] = values[rng.int(values.length)]!;
    }
    route.annotations = annotations;
  }
  // Drawn last, and only when asked for, so that a spec without wildcards draws as it always has. A route
  // given a shared host keeps it, and so claims that host's domain: the wildcard routes that contend.
  if (spec.wildcards > 0 && rng.chance(spec.wildcards)) {
    route.wildcardPolicy = 'Subdomain';
    if (sharedHost === undefined) route.host = `www.${host}`;
  }
  return route;
}
