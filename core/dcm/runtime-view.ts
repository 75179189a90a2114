import * as cmd from '../haproxy/commands.ts';
import type { MapEntryRow, RuntimeCommand, ServerAdminState, ServerStateRow } from '../haproxy/commands.ts';
import type { MapAssociation } from '../haproxy/map-entries.ts';
import type { RuntimeProgram } from '../runtime-effect.ts';
import { BackendList } from './backend-list.ts';
import { mapBaseName, NotFoundError, numberText, retryCommand, runCommand, unexpectedReply } from '../runtime-client.ts';

/**
 * The 2018 manager's client-side caches (client.go Backends/Maps, backend.go server cache with pending
 * changes, map.go dirty flag), which decide which `show` commands run and when:
 * - `show backend` once after each reload, then the backend list is cached;
 * - `show map` once after each reload; `show map <file>` before a key lookup whenever the map is dirty
 *   (it is after every add/del);
 * - `show servers state <be>` whenever the backend's server cache is empty; changes are staged on the
 *   cached servers and sent by `commit`, which empties the cache. A change that fails before its commit
 *   leaves its staged changes in the cache, and the next commit on that backend sends them too.
 */
export interface CachedServer {
  readonly name: string;
  address: string;
  port: number;
  /** srv_uweight as read; compared as text with the staged weight, as upstream does. */
  weight: number;
  /** String(weight). */
  readonly weightText: string;
  nextAddress: string;
  nextPort: number;
  nextWeight: string;
  nextState: ServerAdminState | null;
}

function newCachedServer(row: ServerStateRow): CachedServer {
  const { name, address, port, weight } = row;
  const weightText = numberText(weight);
  return { name, address, port, weight, weightText, nextAddress: address, nextPort: port, nextWeight: weightText, nextState: null };
}

interface CachedMap {
  readonly file: string;
  dirty: boolean;
  /** The entries of the last `show map <file>`. */
  entries: readonly MapEntryRow[];
}

const NO_ENTRIES: readonly MapEntryRow[] = [];

/** Backend.Commit's check: each `set server` reply must be one the manager accepts. */
function checkAccepted(command: RuntimeCommand, reply: cmd.RuntimeReply): void {
  if (reply.kind !== 'ok') throw unexpectedReply(command, reply);
}

export class RuntimeView {
  private readonly backends = new BackendList();
  private mapList: CachedMap[] | null = null;
  private readonly servers = new Map<string, CachedServer[]>();

  /** client.Reset() after a reload. */
  reset(): void {
    this.backends.forget();
    this.mapList = null;
    this.servers.clear();
  }

  findBackend(name: string): RuntimeProgram<void> {
    return this.backends.find(name);
  }

  /** The backend's servers in `show servers state` order, from the cache or freshly read. */
  *serversOf(backend: string): RuntimeProgram<CachedServer[]> {
    const cached = this.servers.get(backend);
    if (cached !== undefined && cached.length > 0) return cached;
    const command = cmd.showServersState(backend);
    const r = yield { kind: 'command', command };
    const reply = r !== undefined && r.ok ? r.reply : yield* retryCommand(command, r);
    if (reply.kind !== 'servers') throw unexpectedReply(command, reply);
    const rows = reply.rows;
    const list: CachedServer[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) list[i] = newCachedServer(rows[i]!);
    this.servers.set(backend, list);
    return list;
  }

  /**
   * Backend.Commit: per server, `addr` (with `port` only if it changed), `weight` if changed, `state` if
   * staged; each reply must be an accepted one. The commands are sent inline, not through runCommand, to
   * spare a generator per command (see retryCommand).
   */
  *commit(backend: string): RuntimeProgram<void> {
    const list = this.servers.get(backend);
    if (list !== undefined) {
      for (const s of list) {
        if (s.nextAddress !== s.address || s.nextPort !== s.port) {
          const command = cmd.setServerAddr(backend, s.name, s.nextAddress, s.nextPort !== s.port ? s.nextPort : undefined);
          const r = yield { kind: 'command', command };
          checkAccepted(command, r !== undefined && r.ok ? r.reply : yield* retryCommand(command, r));
        }
        if (s.nextWeight !== s.weightText) {
          const command = cmd.setServerWeight(backend, s.name, s.nextWeight);
          const r = yield { kind: 'command', command };
          checkAccepted(command, r !== undefined && r.ok ? r.reply : yield* retryCommand(command, r));
        }
        if (s.nextState !== null) {
          const command = cmd.setServerState(backend, s.name, s.nextState);
          const r = yield { kind: 'command', command };
          checkAccepted(command, r !== undefined && r.ok ? r.reply : yield* retryCommand(command, r));
        }
      }
    }
    this.servers.delete(backend);
  }

  /** Whether the cached backend list has this backend; false also when there is no list yet (see findBackend). */
  knowsBackend(name: string): boolean {
    return this.backends.knows(name);
  }

  /**
   * processMapAssociations: for each map HAProxy lists (in `show map` order) that has associations, add
   * (delete-then-add, the 2018 `Add(k, v, replace=true)`) or delete every key.
   */
  *applyMapAssociations(associations: readonly MapAssociation[], add: boolean): RuntimeProgram<void> {
    if (associations.length === 0) return;
    const maps = yield* this.maps();
    for (const m of maps) {
      const base = mapBaseName(m.file);
      for (const a of associations) {
        if (a.map !== base) continue;
        yield* this.deleteKey(m, a.key);
        if (add) {
          const command = cmd.addMap(m.file, a.key, a.value);
          const reply = yield* runCommand(command);
          m.dirty = true;
          if (reply.kind !== 'ok') throw unexpectedReply(command, reply);
        }
      }
    }
  }

  private *maps(): RuntimeProgram<CachedMap[]> {
    if (this.mapList === null || this.mapList.length === 0) {
      const command = cmd.showMapList();
      const reply = yield* runCommand(command);
      if (reply.kind !== 'maps') throw unexpectedReply(command, reply);
      this.mapList = reply.maps.map((r) => ({ file: r.file, dirty: true, entries: NO_ENTRIES }));
    }
    return this.mapList;
  }

  /** Find every entry with this key (refreshing a dirty map first) and `del map <file> #<ref>` each. */
  private *deleteKey(m: CachedMap, key: string): RuntimeProgram<void> {
    if (m.dirty) {
      const command = cmd.showMap(m.file);
      const reply = yield* runCommand(command);
      if (reply.kind !== 'entries') throw unexpectedReply(command, reply);
      m.entries = reply.entries;
      m.dirty = false;
    }
    const found: string[] = [];
    for (const e of m.entries) if (e.key === key) found.push(e.ref);
    for (const ref of found) {
      // Upstream ignores the reply text of `del map` (only transport errors count).
      yield* runCommand(cmd.delMapRef(m.file, ref));
      m.dirty = true;
    }
  }
}
