import type { Route, RouteTls, Termination } from '../route.ts';

/**
 * Blueprint routes of the 2018 dynamic config manager (manager.go buildBlueprintRoutes, AddBlueprint,
 * findMatchingBlueprint, getPoolSize), modelled.
 */

/** The namespace every pool route lives in (blueprintRoutePoolNamespace). */
export const POOL_NAMESPACE = '_hapcm_blueprint_pool';
/** The (endpoint-less) service every default blueprint targets. */
export const POOL_SERVICE = `${POOL_NAMESPACE}.svc`;
export const POOL_SIZE_ANNOTATION = 'router.openshift.io/pool-size';

export interface Blueprint {
  /** The blueprint route, moved into the pool namespace, host cleared. */
  route: Route;
  /** Pool slots provisioned for it (getPoolSize). */
  poolSize: number;
}

/** `_blueprint-<http|edge|passthrough|reencrypt>-route`. */
export function defaultBlueprintName(termination: Termination | ''): string {
  return `_blueprint-${termination === '' ? 'http' : termination}-route`;
}

/**
 * The default blueprints in list order: http (""), edge, passthrough. Reencrypt stays out upstream (the
 * router could not validate destination CA signers). Each carries a TLS block with only the termination
 * set, even plain http: the matcher relies on that (a route without TLS compares equal to `{termination: ""}`).
 */
export function defaultBlueprintRoutes(): Route[] {
  const terminations: (Termination | '')[] = ['', 'edge', 'passthrough'];
  return terminations.map((t) => ({
    namespace: POOL_NAMESPACE,
    name: defaultBlueprintName(t),
    host: '',
    service: POOL_SERVICE,
    // `termination: ""` cannot be spelt in our Route type; blueprintTls() below treats a missing TLS on a
    // default http blueprint as Go's `&TLSConfig{Termination: ""}`.
    ...(t === '' ? {} : { tls: { termination: t } }),
  }));
}

/** A custom blueprint as the manager stores it: namespace replaced by the pool namespace, host cleared. */
export function customBlueprintRoute(r: Route): Route {
  return { ...r, namespace: POOL_NAMESPACE, host: '' };
}

/**
 * getPoolSize, bug included: upstream returns the parsed value only when parsing *failed* (then it is 0),
 * and the default when the annotation is a valid integer. So a valid `router.openshift.io/pool-size` is
 * ignored and an invalid one gives an empty pool. (Go's ParseInt range errors would yield ±MaxInt64; we
 * treat every unparsable value, including out-of-range ones, as 0.)
 */
export function poolSizeOf(route: Route, defaultSize: number): number {
  const v = route.annotations?.[POOL_SIZE_ANNOTATION];
  if (v === undefined) return defaultSize;
  return isGoInt(v) ? defaultSize : 0;
}

const GO_INT = /^[+-]?[0-9]+$/;
function isGoInt(v: string): boolean {
  if (!GO_INT.test(v)) return false;
  const n = BigInt(v);
  return n <= 9223372036854775807n && n >= -9223372036854775808n;
}

const COMMON_MODIFIERS = [
  'haproxy.router.openshift.io/balance',
  'haproxy.router.openshift.io/ip_allowlist',
  'haproxy.router.openshift.io/ip_whitelist',
  'haproxy.router.openshift.io/timeout',
  'haproxy.router.openshift.io/rate-limit-connections',
  'haproxy.router.openshift.io/rate-limit-connections.concurrent-tcp',
  'haproxy.router.openshift.io/rate-limit-connections.rate-tcp',
  'haproxy.router.openshift.io/rate-limit-connections.rate-http',
  'haproxy.router.openshift.io/pod-concurrent-connections',
  'router.openshift.io/haproxy.health.check.interval',
] as const;
const HTTP_MODIFIERS = [
  ...COMMON_MODIFIERS,
  'haproxy.router.openshift.io/disable_cookies',
  'router.openshift.io/cookie_name',
  'haproxy.router.openshift.io/hsts_header',
  'haproxy.router.openshift.io/rewrite-target',
  'router.openshift.io/cookie-same-site',
] as const;

/** The route's backend-modifying annotations (passthrough routes have no http-only ones), in list order. */
export function backendModAnnotations(route: Route): [string, string][] {
  const names = route.tls?.termination === 'passthrough' ? COMMON_MODIFIERS : HTTP_MODIFIERS;
  const out: [string, string][] = [];
  const a = route.annotations;
  if (a === undefined) return out;
  for (const n of names) {
    const v = a[n];
    if (v !== undefined) out.push([n, v]);
  }
  return out;
}

function sameModifiers(a: [string, string][], b: [string, string][]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]![0] !== b[i]![0] || a[i]![1] !== b[i]![1]) return false;
  return true;
}

/** TLS as the matcher compares it: Go zero values for missing strings; the insecure policy is ignored. */
function sameTlsMaterial(a: RouteTls | undefined, b: RouteTls | undefined): boolean {
  return (
    (a?.termination ?? '') === (b?.termination ?? '') &&
    (a?.certificate ?? '') === (b?.certificate ?? '') &&
    (a?.key ?? '') === (b?.key ?? '') &&
    (a?.caCertificate ?? '') === (b?.caCertificate ?? '') &&
    (a?.destinationCACertificate ?? '') === (b?.destinationCACertificate ?? '')
  );
}

/**
 * findMatchingBlueprint: the first blueprint (list order) with the same termination; if the route has
 * backend-modifying annotations, the blueprint must have annotations and exactly the same modifiers; then
 * the TLS material must be equal (insecure policy ignored). Host, path, wildcard policy, service, port
 * and weights are not compared.
 *
 * One upstream subtlety kept: a custom blueprint with no TLS block only matches routes with no TLS block
 * (Go: `route.TLS == nil && candidate.TLS == nil`), whereas the default http blueprint (which has a TLS
 * block with an empty termination) matches them too; both cases reduce to comparing the material.
 */
export function findMatchingBlueprint(route: Route, blueprints: readonly Blueprint[]): Blueprint | undefined {
  const termination = route.tls?.termination ?? '';
  const modifiers = backendModAnnotations(route);
  for (const bp of blueprints) {
    const candidate = bp.route;
    if ((candidate.tls?.termination ?? '') !== termination) continue;
    if (modifiers.length > 0) {
      if (candidate.annotations === undefined || Object.keys(candidate.annotations).length === 0) continue;
      if (!sameModifiers(modifiers, backendModAnnotations(candidate))) continue;
    }
    if (sameTlsMaterial(route.tls, candidate.tls)) return bp;
  }
  return undefined;
}
