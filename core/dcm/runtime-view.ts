import * as cmd from '../haproxy/commands.ts';
import type { ServerAdminState } from '../haproxy/commands.ts';
import type { MapAssociation } from '../haproxy/map-entries.ts';
import type { RuntimeProgram } from '../runtime-effect.ts';
import {
  isAcceptedAddrReply,
  mapBaseName,
  NotFoundError,
  parseShowBackend,
  checkShowMap,
  showMapRefs,
  parseShowMapList,
  readServersState,
  retryCommand,
  runCommand,
  UnexpectedReplyError,
  type MapListRow,
} from '../runtime-client.ts';

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

function checkAccepted(line: string, reply: string): void {
  if (!isAcceptedAddrReply(reply)) throw new UnexpectedReplyError(line, reply);
}

function newCachedServer(name: string, address: string, weight: number, weightText: string, port: number): CachedServer {
  return { name, address, port, weight, weightText, nextAddress: address, nextPort: port, nextWeight: weightText, nextState: null };
}

interface CachedMap {
  readonly file: string;
  dirty: boolean;
  /** The last `show map <file>` reply, checked (see showMapRefs). */
  reply: string;
}

export class RuntimeView {
  private backends: Set<string> | null = null;
  private mapList: CachedMap[] | null = null;
  private readonly servers = new Map<string, CachedServer[]>();

  /** client.Reset() after a reload. */
  reset(): void {
    this.backends = null;
    this.mapList = null;
    this.servers.clear();
  }

  *findBackend(name: string): RuntimeProgram<void> {
    if (this.backends === null || this.backends.size === 0) {
      const line = cmd.showBackend();
      const reply = yield* runCommand(line);
      this.backends = new Set(parseShowBackend(reply));
    }
    if (!this.backends.has(name)) throw new NotFoundError(cmd.showBackend(), 'backend', name);
  }

  /** The backend's servers in `show servers state` order, from the cache or freshly read. */
  *serversOf(backend: string): RuntimeProgram<CachedServer[]> {
    const cached = this.servers.get(backend);
    if (cached !== undefined && cached.length > 0) return cached;
    const line = cmd.showServersState(backend);
    const r = yield { kind: 'command', line };
    const reply = r !== undefined && r.ok ? r.reply : yield* retryCommand(line, r);
    const list = readServersState(reply, line, newCachedServer);
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
          const line = cmd.setServerAddr(backend, s.name, s.nextAddress, s.nextPort !== s.port ? s.nextPort : undefined);
          const r = yield { kind: 'command', line };
          checkAccepted(line, r !== undefined && r.ok ? r.reply : yield* retryCommand(line, r));
        }
        if (s.nextWeight !== s.weightText) {
          const line = cmd.setServerWeight(backend, s.name, s.nextWeight);
          const r = yield { kind: 'command', line };
          checkAccepted(line, r !== undefined && r.ok ? r.reply : yield* retryCommand(line, r));
        }
        if (s.nextState !== null) {
          const line = cmd.setServerState(backend, s.name, s.nextState);
          const r = yield { kind: 'command', line };
          checkAccepted(line, r !== undefined && r.ok ? r.reply : yield* retryCommand(line, r));
        }
      }
    }
    this.servers.delete(backend);
  }

  /** Whether the cached backend list has this backend; false also when there is no list yet (see findBackend). */
  knowsBackend(name: string): boolean {
    return this.backends !== null && this.backends.has(name);
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
          const line = cmd.addMap(m.file, a.key, a.value);
          const reply = yield* runCommand(line);
          m.dirty = true;
          if (reply.trim().length > 0) throw new UnexpectedReplyError(line, reply);
        }
      }
    }
  }

  private *maps(): RuntimeProgram<CachedMap[]> {
    if (this.mapList === null || this.mapList.length === 0) {
      const rows: MapListRow[] = parseShowMapList(yield* runCommand(cmd.showMapList()));
      this.mapList = rows.map((r) => ({ file: r.file, dirty: true, reply: '' }));
    }
    return this.mapList;
  }

  /** Find every entry with this key (refreshing a dirty map first) and `del map <file> #<ref>` each. */
  private *deleteKey(m: CachedMap, key: string): RuntimeProgram<void> {
    if (m.dirty) {
      const line = cmd.showMap(m.file);
      const reply = yield* runCommand(line);
      checkShowMap(reply, line);
      m.reply = reply;
      m.dirty = false;
    }
    const found = showMapRefs(m.reply, key);
    for (const ref of found) {
      // Upstream ignores the reply text of `del map` (only transport errors count).
      yield* runCommand(cmd.delMapRef(m.file, ref));
      m.dirty = true;
    }
  }
}
