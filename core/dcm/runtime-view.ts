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
const NO_SERVERS: CachedServer[] = [];
/** More backends than the day bench log's router has (about 2,000 routes and a pool); their keys take well under a MiB. */
const MAX_NAMED_BACKENDS = 8192;

/** Backend.Commit's check: each `set server` reply must be one the manager accepts. */
function checkAccepted(command: RuntimeCommand, reply: cmd.RuntimeReply): void {
  if (reply.kind !== 'ok') throw unexpectedReply(command, reply);
}

export class RuntimeView {
  private readonly backends = new BackendList();
  private mapList: CachedMap[] | null = null;
  /**
   * Each backend listed since the last clear, with its cached servers (NO_SERVERS when none are cached).
   * The map is kept across reloads, and an emptied cache keeps its key: a key deleted or the map cleared
   * makes V8 build a new table, and the table before points to the new one until a full collection, so
   * each table since the last one would be copied by scavenges and promoted.
   */
  private readonly servers = new Map<string, CachedServer[]>();
  /**
   * The backends whose cache may hold servers: each one `keepServers` or `hold` filled since the last reset
   * (a name may repeat; a list `committed` emptied since is emptied again, harmlessly).
   */
  private readonly held: string[] = [];

  /** client.Reset() after a reload. */
  reset(): void {
    this.backends.forget();
    this.mapList = null;
    // Cleared only once it names more backends than a busy router has: routes come and go.
    if (this.servers.size > MAX_NAMED_BACKENDS) this.servers.clear();
    else for (const backend of this.held) this.servers.set(backend, NO_SERVERS);
    this.held.length = 0;
  }

  /** How many backend names the server cache has keys for: kept across reloads, up to MAX_NAMED_BACKENDS at a reset. */
  get namedBackends(): number {
    return this.servers.size;
  }

  findBackend(name: string): RuntimeProgram<void> {
    return this.backends.find(name);
  }

  /**
   * The backend's cached servers in `show servers state` order; undefined when none are cached, and then
   * `showServersState(backend)` reads them (keepServers). The hot path sends that command itself, which
   * spares a generator per endpoint change (see retryCommand).
   */
  cachedServers(backend: string): CachedServer[] | undefined {
    const cached = this.servers.get(backend);
    return cached !== undefined && cached.length > 0 ? cached : undefined;
  }

  /** Caches the servers of a `show servers state <backend>` reply; anything but the listing throws. */
  keepServers(command: RuntimeCommand & { kind: 'show servers state' }, reply: cmd.RuntimeReply): CachedServer[] {
    const list = this.listedServers(command, reply);
    this.hold(command.backend, list);
    return list;
  }

  /**
   * The servers of a `show servers state <backend>` reply, not cached yet; anything but the listing throws.
   * A change that stages on them and commits them all need never cache them (the commit would empty the
   * cache again): the hot path caches them with `hold` only when the change fails before its commit is
   * through, which spares two map operations per endpoint change.
   */
  listedServers(command: RuntimeCommand & { kind: 'show servers state' }, reply: cmd.RuntimeReply): CachedServer[] {
    if (reply.kind !== 'servers') throw unexpectedReply(command, reply);
    const rows = reply.rows;
    const list: CachedServer[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) list[i] = newCachedServer(rows[i]!);
    return list;
  }

  /** Caches the backend's listed servers, with what is staged on them. */
  hold(backend: string, list: CachedServer[]): void {
    this.servers.set(backend, list);
    this.held.push(backend);
  }

  /** The backend's servers, from the cache or freshly read. */
  *serversOf(backend: string): RuntimeProgram<CachedServer[]> {
    const cached = this.cachedServers(backend);
    if (cached !== undefined) return cached;
    const command = cmd.showServersState(backend) as RuntimeCommand & { kind: 'show servers state' };
    const r = yield command;
    return this.keepServers(command, r !== undefined && r.ok ? r.reply : yield* retryCommand(command, r));
  }

  /**
   * Backend.Commit's commands: per server, `addr` (with `port` only if it changed), `weight` if changed,
   * `state` if staged. Each reply must be an accepted one; once all are, `committed` empties the cache. A
   * commit that fails midway leaves the cache as it was, so the next commit on the backend sends again
   * what had been sent. Made whole before the first is sent: nothing stages while a commit is under way.
   */
  commitCommands(backend: string): RuntimeCommand[] {
    return commitCommandsOf(backend, this.servers.get(backend) ?? NO_SERVERS);
  }

  /** Every command of the backend's commit was accepted: its server cache is read afresh next time. */
  committed(backend: string): void {
    // Emptied, not deleted: a key deleted makes V8 shrink the map's table now and then, and the table
    // before points to the new one until a full collection (see SlotHolder for why that costs).
    this.servers.set(backend, NO_SERVERS);
  }

  /** Backend.Commit as a program: the commit's commands in order, each accepted, then `committed`. */
  *commit(backend: string): RuntimeProgram<void> {
    for (const command of this.commitCommands(backend)) {
      const r = yield command;
      checkAccepted(command, r !== undefined && r.ok ? r.reply : yield* retryCommand(command, r));
    }
    this.committed(backend);
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
          if (reply.kind !== 'ok') throw unexpectedReply(command, reply);
          // map.go addEntry marks the map dirty only when HAProxy accepted the entry.
          m.dirty = true;
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

/** RuntimeView.commitCommands for servers in hand: those the cache holds, or a listing not cached (listedServers). */
export function commitCommandsOf(backend: string, list: readonly CachedServer[]): RuntimeCommand[] {
  const out: RuntimeCommand[] = [];
  for (const s of list) {
    if (s.nextAddress !== s.address || s.nextPort !== s.port) {
      out.push(cmd.setServerAddr(backend, s.name, s.nextAddress, s.nextPort !== s.port ? s.nextPort : undefined));
    }
    if (s.nextWeight !== s.weightText) out.push(cmd.setServerWeight(backend, s.name, s.nextWeight));
    if (s.nextState !== null) out.push(cmd.setServerState(backend, s.name, s.nextState));
  }
  return out;
}
