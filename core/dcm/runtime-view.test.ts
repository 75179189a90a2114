import { describe, expect, test } from 'vitest';
import * as cmd from '../haproxy/commands.ts';
import type { RuntimeCommand, ServerStateRow } from '../haproxy/commands.ts';
import { RuntimeView } from './runtime-view.ts';

function row(name: string, address: string, port: number): ServerStateRow {
  return {
    backendId: 1, backendName: 'be', id: 1, name, address, opState: 2, adminState: 0, weight: 1, initialWeight: 1,
    timeSinceLastChange: 0, checkStatus: 1, checkResult: 0, checkHealth: 0, checkState: 0, agentState: 0,
    backendForcedId: 0, forcedId: 0, fqdn: '-', port, srvRecord: '-', useSsl: 0, checkPort: 0, checkAddr: '-',
    agentAddr: '-', agentPort: 0,
  };
}

/** Lists one server for `backend`, as `show servers state <backend>` would. */
function list(view: RuntimeView, backend: string): void {
  const command = cmd.showServersState(backend) as RuntimeCommand & { kind: 'show servers state' };
  view.keepServers(command, { kind: 'servers', rows: [row('_dynamic-pod-1', '10.0.0.1', 8080)] });
}

describe('RuntimeView server cache', () => {
  test('a commit empties the cache, and the next change lists the servers again', () => {
    const view = new RuntimeView();
    list(view, 'be_http:ns:a');
    view.cachedServers('be_http:ns:a')![0]!.nextAddress = '10.0.0.2';
    expect(view.commitCommands('be_http:ns:a')).toEqual([cmd.setServerAddr('be_http:ns:a', '_dynamic-pod-1', '10.0.0.2')]);
    view.committed('be_http:ns:a');
    expect(view.cachedServers('be_http:ns:a')).toBeUndefined();
    expect(view.commitCommands('be_http:ns:a')).toEqual([]);
  });

  test('a reload forgets what was staged and never committed, and a commit after it sends nothing', () => {
    const view = new RuntimeView();
    list(view, 'be_http:ns:a');
    list(view, 'be_http:ns:b');
    view.cachedServers('be_http:ns:a')![0]!.nextAddress = '10.0.0.2';
    view.committed('be_http:ns:b');
    view.reset();
    expect(view.cachedServers('be_http:ns:a')).toBeUndefined();
    expect(view.commitCommands('be_http:ns:a')).toEqual([]);
    // Listed again after the reload, the backend caches the new listing only.
    list(view, 'be_http:ns:a');
    expect(view.cachedServers('be_http:ns:a')!.map((s) => s.nextAddress)).toEqual(['10.0.0.1']);
  });

  test('a reload keeps the names it has seen, up to 8,192, and forgets every cache either way', () => {
    const view = new RuntimeView();
    for (let i = 0; i < 100; i++) list(view, `be_http:ns:r${i}`);
    view.reset();
    // Below the bound the keys stay (their lists emptied), so the map's table is not rebuilt.
    expect(view.namedBackends).toBe(100);
    expect(view.cachedServers('be_http:ns:r0')).toBeUndefined();
    // 10,000 names: past the 8,192 after which a reset clears the map, so routes that come and go cannot grow it.
    for (let i = 0; i < 10_000; i++) list(view, `be_http:ns:r${i}`);
    view.reset();
    expect(view.namedBackends).toBe(0);
    for (const i of [0, 8191, 9999]) expect(view.cachedServers(`be_http:ns:r${i}`)).toBeUndefined();
  });
});
