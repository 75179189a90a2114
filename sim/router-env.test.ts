import { describe, expect, it } from 'vitest';
import { parseGoDuration, parseRouterDeployment, parseRouterEnv } from './router-env.ts';
import { RouterSettingsSchema } from './settings.ts';

describe('parseRouterEnv', () => {
  it('reads the router variables with their meaning', () => {
    const r = parseRouterEnv({
      ROUTER_HAPROXY_CONFIG_MANAGER: 'true',
      ROUTER_MAX_DYNAMIC_SERVERS: '3',
      ROUTER_BLUEPRINT_ROUTE_POOL_SIZE: '0',
      ROUTER_BLUEPRINT_ROUTE_NAMESPACE: 'blueprints',
      RELOAD_INTERVAL: '10s',
      COMMIT_INTERVAL: '1h30m',
    });
    expect(r.warnings).toEqual([]);
    expect(r.settings).toEqual({
      strategy: 'dcm-slots',
      maxDynamicServers: 3,
      blueprintPoolSize: 0,
      blueprintNamespace: 'blueprints',
      reloadIntervalMs: 10_000,
      commitIntervalMs: 5_400_000,
    });
    expect(RouterSettingsSchema.parse(r.settings).strategy).toBe('dcm-slots');
  });

  it('reads the admission switches as strconv.ParseBool truth (isTrue): anything else is false, with a warning', () => {
    const r = parseRouterEnv({ ROUTER_ALLOW_WILDCARD_ROUTES: 'T', ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK: '1' });
    expect(r.settings).toEqual({ allowWildcardRoutes: true, disableNamespaceOwnershipCheck: true });
    expect(r.warnings).toEqual([]);
    const off = parseRouterEnv({ ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK: 'yes' });
    expect(off.settings).toEqual({ disableNamespaceOwnershipCheck: false });
    expect(off.warnings).toEqual(['ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK=yes: not a boolean; read as false']);
  });

  it('reads the domain lists as envVarAsStrings does: split at commas, trimmed, empty items dropped', () => {
    const r = parseRouterEnv({ ROUTER_DENIED_DOMAINS: ' bad.example.com,, internal.corp ', ROUTER_ALLOWED_DOMAINS: 'apps.example.com', ROUTER_OTHER: 'x' });
    expect(r.settings).toEqual({ deniedDomains: ['bad.example.com', 'internal.corp'], allowedDomains: ['apps.example.com'] });
    expect(r.from.deniedDomains).toEqual({ name: 'ROUTER_DENIED_DOMAINS', value: ' bad.example.com,, internal.corp ' });
    // An empty value is unset (env()): nothing to set.
    expect(parseRouterEnv({ ROUTER_ALLOWED_DOMAINS: '' }).settings).toEqual({});
  });

  it('falls back as the router does, with warnings', () => {
    const r = parseRouterEnv({
      ROUTER_HAPROXY_CONFIG_MANAGER: 'yes', // ParseBool error → false
      ROUTER_MAX_DYNAMIC_SERVERS: '0', // below min 1 → 5
      ROUTER_BLUEPRINT_ROUTE_POOL_SIZE: '-1', // below min 0 → 10
      RELOAD_INTERVAL: '5', // no unit → 5s
      COMMIT_INTERVAL: '500ms', // < 1s: the router would not start → default 3600s here
    });
    expect(r.settings).toEqual({ strategy: 'reload-always', maxDynamicServers: 5, blueprintPoolSize: 10, reloadIntervalMs: 5000, commitIntervalMs: 3_600_000 });
    expect(r.warnings).toHaveLength(5);
    expect(r.warnings[4]).toContain('refuses to start');
  });

  it('treats empty values as unset, garbage numbers as the default, out-of-int32 as garbage', () => {
    expect(parseRouterEnv({ ROUTER_MAX_DYNAMIC_SERVERS: '' }).settings).toEqual({});
    expect(parseRouterEnv({ ROUTER_MAX_DYNAMIC_SERVERS: 'five' }).settings).toEqual({ maxDynamicServers: 5 });
    expect(parseRouterEnv({ ROUTER_BLUEPRINT_ROUTE_POOL_SIZE: '3000000000' }).settings).toEqual({ blueprintPoolSize: 10 });
    expect(parseRouterEnv({ ROUTER_HAPROXY_CONFIG_MANAGER: 'True' }, { configManager: 'dcm-add-del' }).settings).toEqual({ strategy: 'dcm-add-del' });
  });

  it('parses Go durations', () => {
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('1.5s')).toBe(1.5e9);
    expect(parseGoDuration('1h2m3s')).toBe(3723e9);
    expect(parseGoDuration('250ms')).toBe(250e6);
    expect(parseGoDuration('10µs')).toBe(10e3);
    expect(parseGoDuration('-2s')).toBe(-2e9);
    expect(parseGoDuration('5')).toBeUndefined();
    expect(parseGoDuration('s')).toBeUndefined();
    expect(parseGoDuration('1d')).toBeUndefined();
    expect(parseGoDuration('')).toBeUndefined();
  });
});

describe('parseRouterDeployment', () => {
  const yaml = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: router-default
  namespace: openshift-ingress
spec:
  template:
    spec:
      containers:
      - name: router
        image: quay.io/openshift/router
        env:
        - name: ROUTER_HAPROXY_CONFIG_MANAGER
          value: "true"
        - name: RELOAD_INTERVAL
          value: 2s
        - name: ROUTER_MAX_DYNAMIC_SERVERS
          value: "8"
        - name: ROUTER_SERVICE_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
`;
  it('reads the router container env', () => {
    const r = parseRouterDeployment(yaml);
    expect(r.settings).toEqual({ strategy: 'dcm-slots', reloadIntervalMs: 2000, maxDynamicServers: 8 });
    expect(r.warnings).toEqual(['ROUTER_SERVICE_NAMESPACE: valueFrom is not resolved offline; treated as unset']);
  });

  it('accepts a List with one Deployment and rejects other documents', () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n${yaml.split('\n').map((l) => (l.length > 0 ? `  ${l}` : l)).join('\n').replace(/^  apiVersion/, '- apiVersion')}`;
    expect(parseRouterDeployment(list).settings.maxDynamicServers).toBe(8);
    expect(() => parseRouterDeployment('kind: Service\nspec: {}\n')).toThrow(/not a Deployment/);
    expect(() => parseRouterDeployment('kind: Deployment\nspec: { template: { spec: { containers: [null] } } }\n')).toThrow('spec.template.spec.containers[0] is not a container');
    expect(() => parseRouterDeployment('kind: Deployment\nspec: { template: { spec: { containers: [{ name: router, env: 5 }] } } }\n')).toThrow("the router container's env is not a list");
  });
});
