import { z } from 'zod';
import { STRATEGY_NAMES } from '../core/strategy.ts';
import { RouteSchema } from './eventlog/event-schema.ts';
import { AT_BOUND, MAX_AT_MS } from './eventlog/event-time.ts';

/**
 * Every knob of a run, with its default written once. Dotted keys (`router.maxDynamicServers`) address
 * them from `--set`, scenario files and sweeps alike.
 */
/**
 * A domain list as the router reads ROUTER_ALLOWED_DOMAINS and ROUTER_DENIED_DOMAINS (envVarAsStrings): one
 * comma-separated string (as `--set` gives it) or a list, each item trimmed and empty ones dropped.
 */
const DomainListSchema = z.union([z.array(z.string()), z.string()]).transform(domainList);

/** envVarAsStrings' reading of a domain list: split at commas, each item trimmed, empty ones dropped. */
export function domainList(v: string | readonly string[]): string[] {
  return (typeof v === 'string' ? v.split(',') : v).map((d) => d.trim()).filter((d) => d.length > 0);
}

export const RouterSettingsSchema = z
  .object({
    strategy: z.enum(STRATEGY_NAMES).default('reload-always'),
    /** `_dynamic-pod-N` slots per backend (ROUTER_MAX_DYNAMIC_SERVERS). */
    maxDynamicServers: z.number().int().min(1).max(1000).default(5),
    /** Pre-allocated backends per blueprint (ROUTER_BLUEPRINT_ROUTE_POOL_SIZE); 0 means no pool. */
    blueprintPoolSize: z.number().int().min(0).max(1000).default(10),
    // The router refuses to start with RELOAD_INTERVAL or COMMIT_INTERVAL under one second (template.go).
    /** Minimum time between reload starts, start to start (RELOAD_INTERVAL). */
    reloadIntervalMs: z.number().int().min(1000, { message: 'the router refuses a RELOAD_INTERVAL under 1 s: give 1000 or more' }).default(5000),
    /** First dynamic change arms a one-shot timer that forces a reload (COMMIT_INTERVAL). */
    commitIntervalMs: z.number().int().min(1000, { message: 'the router refuses a COMMIT_INTERVAL under 1 s: give 1000 or more' }).default(3_600_000),
    /**
     * Simulated time from a reload's start until the new HAProxy serves its config. 1000 ms stands for the
     * router's reload-haproxy script (render, `haproxy -c`, start the new worker) on a few hundred routes.
     */
    reloadDurationMs: z.number().int().min(0).default(1000),
    /**
     * ROUTER_BLUEPRINT_ROUTE_NAMESPACE: with dcm-slots, routes in this namespace are also custom blueprints
     * (those present at the initial sync, and later ones as they change). "" = none.
     */
    blueprintNamespace: z.string().default(''),
    /** Custom blueprint routes configured up front (as if present in the blueprint namespace at start). */
    blueprints: z.array(RouteSchema).default([]),
    /** ROUTER_ALLOW_WILDCARD_ROUTES: `wildcardPolicy: Subdomain` routes get wildcard map keys. */
    allowWildcardRoutes: z.boolean().default(false),
    /** ROUTER_DENIED_DOMAINS: routes whose host is one of these domains or under one are not admitted. */
    deniedDomains: DomainListSchema.default([]),
    /** ROUTER_ALLOWED_DOMAINS: when any, only routes whose host is one of these domains or under one are admitted. */
    allowedDomains: DomainListSchema.default([]),
    /**
     * ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK: routes of other namespaces may share a host the oldest route
     * holds (on other paths); otherwise only routes of its namespace may.
     */
    disableNamespaceOwnershipCheck: z.boolean().default(false),
    /**
     * The router's ExtendedValidator drops unspecified, loopback, link-local, multicast and cloud metadata
     * endpoint addresses (since June 2026, OCPBUGS-87204; the router has no switch for it). false models a
     * router from before, or lets `live` serve loopback backends on one machine.
     */
    validateEndpointAddresses: z.boolean().default(true),
  })
  .strict();

export const SimSettingsSchema = z
  .object({
    /** Simulated time after the last input event before the run ends; pending timers stop there. */
    settleMs: z.number().int().min(0).max(MAX_AT_MS, AT_BOUND).default(60_000),
    /** A fixed run length instead of last event + settle; bounded like an event's time (the µs clock). */
    durationMs: z.number().int().min(0).max(MAX_AT_MS, AT_BOUND).optional(),
    /**
     * When the HAProxy view is checked against the desired state: `settled` after every change once the
     * router is idle (no reload running or pending, no runtime work in flight) and at the end; `end` only at
     * the end of the run (long logs); `off` never.
     */
    invariants: z.enum(['settled', 'end', 'off']).default('settled'),
  })
  .strict();

const rate = z.number().min(0).max(1).default(0);

/** Faults on the stats socket between the config manager and HAProxy, drawn from the `haproxy/faults` stream. */
export const HaproxySettingsSchema = z
  .object({
    /** Probability per command that the connection is refused (retried by the client). */
    refusedRate: rate,
    /** Probability per command that the connection is reset (half of them after the command ran). */
    resetRate: rate,
    /** Probability per command that HAProxy restarts on its last config first (runtime changes lost). */
    restartRate: rate,
    /** Probability per command of a slow (2 s) reply. */
    slowRate: rate,
  })
  .strict()
  .refine((h) => h.refusedRate + h.resetRate + h.restartRate + h.slowRate <= 1, { message: 'the fault rates must add up to at most 1' });

export const SettingsSchema = z
  .object({
    seed: z.number().int().min(0).max(2 ** 32 - 1).default(1),
    router: RouterSettingsSchema.default(RouterSettingsSchema.parse({})),
    sim: SimSettingsSchema.default(SimSettingsSchema.parse({})),
    haproxy: HaproxySettingsSchema.default(HaproxySettingsSchema.parse({})),
  })
  .strict();

export type Settings = z.infer<typeof SettingsSchema>;
export type RouterSettings = z.infer<typeof RouterSettingsSchema>;

export function defaultSettings(): Settings {
  return SettingsSchema.parse({});
}

/**
 * A number as YAML 1.2 (core schema) and JSON write it: a sign, digits with an optional fraction, an
 * optional exponent (1e9, 1e-3, -2.5E+3, .5). `--set` reads a number as a scenario file would.
 */
const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/**
 * `--set` values arrive as text: numbers and booleans become themselves, the rest stays a string. A value in
 * double quotes is the JSON string it spells (`"007"` is the string 007, which bare would be the number 7):
 * the reproduce line writes a string that would read otherwise so.
 */
export function coerceSettingValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const t = value.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      const s: unknown = JSON.parse(t);
      if (typeof s === 'string') return s;
    } catch {
      // not a JSON string: the text as it stands
    }
  }
  if (NUMBER.test(t)) return Number(t);
  if (t === 'true' || t === 'false') return t === 'true';
  return value;
}

/** A setting's value as `--set` text that reads back as the same value: a string that would not, quoted. */
export function settingText(value: unknown): string {
  return typeof value === 'string' && coerceSettingValue(value) !== value ? JSON.stringify(value) : String(value);
}
