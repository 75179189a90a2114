import { OK, refused, type RuntimeCommand, type RuntimeReply } from '../../core/haproxy/commands.ts';
import type { BackendConfig, HaproxyConfig, MapEntry } from '../../core/haproxy/config-model.ts';
import { decodeReply, encodeCommand, encodeReply, reachesCliVerbatim } from '../../core/haproxy/runtime-codec.ts';
import type { TransportResult } from '../../core/runtime-effect.ts';
import { BackendIndex } from './backend-index.ts';
import { backendFromConfig, type MockBackend, type MockServer } from './backend-state.ts';
import { usageReply } from './cli-help.ts';
import { parseCliRequest, plainWords, splitRequests, type CliCommand, type CliSession } from './cli-line.ts';
import { defaultLayout, defaultMapLayouts, defaultServerLines, extraMapFiles, renderedBackendId, UNREFERENCED_MAP_FILES, type CfgLayout, type MapLayout, type MapMatch, type ServerLines } from './haproxy-cfg.ts';
import {
  addMap,
  addMapEntry,
  clearMap,
  commitMap,
  delMap,
  delMapRef,
  getMap,
  listingOf,
  lookupMap,
  prepareMap,
  setMap,
  showMap,
  showMapEntries,
  showMapList,
  type MapListing,
  type MapRuntime,
} from './map-commands.ts';
import { MapEntriesAtLoad } from './map-entries-at-load.ts';
import { checkMapValues, mapFromLayout, PointerSource, type MockMap } from './map-state.ts';
import { DEFAULT_PROCESS_INFO, showInfo, showVersion, type ProcessCounters, type ProcessInfo } from './show-info.ts';
import { showStat } from './show-stat.ts';
import {
  addServer,
  addServerTo,
  atoi,
  delServer,
  delServerFound,
  enableDisableDynamicCookie,
  enableDisableHealth,
  enableDisableServer,
  findServer,
  getWeight,
  setAddr,
  setDynamicCookieKey,
  setHealth,
  setServer,
  setState,
  setWeight,
  setWeightCommand,
  showBackend,
  showServersState,
  type ServerRuntime,
} from './server-commands.ts';

export type { MockBackend, MockServer } from './backend-state.ts';
export type { MockMap, MockMapEntry } from './map-state.ts';

export interface MockHaproxyOptions {
  /**
   * Where the proxy ids, map ids and map paths come from. Defaults to the layout of `renderHaproxyCfg`
   * with its default options; pass the layout of the cfg actually rendered or parsed to match a real run.
   */
  layout?: (config: HaproxyConfig) => CfgLayout;
  /** Simulated clock in seconds, for `srv_time_since_last_change`. Without one every change is 0 s old. */
  clockS?: () => number;
  /** What `show info` reports of the process (pid, node, limits); fixed plausible values by default. */
  processInfo?: ProcessInfo;
}


/** The delivered silent acceptance, shared: transport results are read, never changed. */
const DELIVERED_OK: TransportResult = { ok: true, reply: OK };

/**
 * An in-memory HAProxy 2.6 answering its runtime API byte for byte (see docs/fidelity-haproxy.md for what
 * it does not model: health checks, connections, PCRE specifics). `load` is a reload: everything changed at
 * runtime is lost and the state is rebuilt from the config, exactly as a new HAProxy process starts.
 * Two entry points: `execute` takes the text a client writes on the stats socket and answers HAProxy's
 * bytes; `run` takes a typed command and answers the typed reply, without text (the simulation's path).
 * Both reach the same handlers, so `run(c)` is `decodeReply(c, execute(encodeCommand(c)))`.
 */
export class MockHaproxy implements ServerRuntime, MapRuntime {
  readonly pointers = new PointerSource();
  /** Per map path, the entries the last load started with, handed on where the config left them as they were. */
  private readonly entriesAtLoad = new Map<string, MapEntriesAtLoad>();
  private readonly layoutOf: (config: HaproxyConfig) => CfgLayout;
  private readonly clockS: () => number;
  private readonly processInfo: ProcessInfo;
  /** Texts answered and bytes sent since the last load, for `show info`'s counters. */
  private served = 0;
  private bytesOut = 0;
  private loads = 0;
  /** Set by `quit`: the rest of the text sent with it is not run. */
  private quitRequested = false;
  private lastLoaded: { config: HaproxyConfig; layout: CfgLayout | undefined } | undefined;
  /**
   * The running config, turned into server and map state only where a command or check looks. A simulation
   * reloads thousands of times and between two reloads touches a few backends, if any (reload-always never
   * sends a command), so a reload stores the config and each backend or map is built on first use.
   */
  private running: Running = emptyRunning(undefined, 0);
  /** Backend names and positions, carried from load to load (a process cannot add backends at runtime). */
  private readonly index = new BackendIndex();
  /**
   * The default layout's maps, kept from load to load while the config has the same map files (they are
   * all the layout depends on), with the listing of each map no command has built yet, kept while its
   * entry count stands. Rendering the layout after every reload cost 1% of a dcm-slots replay of the day
   * slice (commit 558c43b), and the listing of unchanged maps is asked for again after each reload.
   */
  private mapLayoutsKept: { maps: HaproxyConfig['maps']; extras: readonly string[]; layouts: readonly MapLayout[] } | undefined;
  private readonly pristineListings = new Map<MapLayout, MapListing>();

  constructor(options: MockHaproxyOptions = {}) {
    this.layoutOf = options.layout ?? defaultLayout;
    this.clockS = options.clockS ?? (() => 0);
    this.processInfo = options.processInfo ?? DEFAULT_PROCESS_INFO;
  }

  /** Every backend in config order (builds them all). */
  get backendList(): readonly MockBackend[] {
    const r = this.running;
    if (r.backendList === undefined) {
      const list: MockBackend[] = [];
      for (const be of r.config.backends) list.push(this.backend(be.name)!);
      r.backendList = list;
    }
    return r.backendList;
  }

  mapListing(): readonly MapListing[] {
    const r = this.running;
    return this.mapLayouts().map((l) => {
      const built = r.maps.get(l.path);
      if (built !== undefined) return listingOf(built);
      const entryCount = String((r.config.maps[l.file]?.length ?? 0) * (l.kinds?.length ?? 1));
      let listing = this.pristineListings.get(l);
      if (listing?.entryCount !== entryCount) {
        listing = { id: l.id, path: l.path, cfgFile: l.cfgFile, line: l.line, alsoAt: l.alsoAt ?? [], currVer: 0, nextVer: 0, entryCount };
        this.pristineListings.set(l, listing);
      }
      return listing;
    });
  }

  /** Backend names in config order; a process cannot add backends at runtime, so one listing serves a load. */
  backendNames(): readonly string[] {
    return this.indexed().names;
  }

  private indexed(): BackendIndex {
    this.index.update(this.running.config.backends);
    return this.index;
  }

  nowS(): number {
    return this.clockS();
  }

  /** How many times a config was loaded (reloads + 1). */
  get loadCount(): number {
    return this.loads;
  }

  /**
   * A reload onto `config` (kept by reference for `restart`, so do not mutate it afterwards). A config
   * HAProxy would refuse to start on throws and leaves the running state untouched, as a failed reload does.
   * `trusted` skips that check for configs the router's renderer made, which are valid by construction
   * (the model test in sim/strategies.model.test.ts loads them checked); a churn run reloads thousands of times.
   */
  load(config: HaproxyConfig, layout?: CfgLayout, opts: { trusted?: boolean } = {}): void {
    if (opts.trusted !== true) checkConfig(config, layout ?? this.layoutOf(config));
    this.running = emptyRunning(config, this.clockS(), layout);
    for (const atLoad of this.entriesAtLoad.values()) atLoad.passOver(config.maps[atLoad.file] ?? NO_ENTRIES);
    this.served = 0;
    this.bytesOut = 0;
    this.loads++;
    this.lastLoaded = { config, layout };
  }

  private layout(): CfgLayout {
    const r = this.running;
    r.layout ??= this.layoutOf(r.config);
    return r.layout;
  }

  /** The default layout's backend ids are positions: a load with neither a layout nor a layout function has no id map to build. */
  private positionalIds(): boolean {
    return !this.running.layoutGiven && this.layoutOf === defaultLayout;
  }

  private mapLayouts(): readonly MapLayout[] {
    const r = this.running;
    if (r.layout !== undefined || !this.positionalIds()) return this.layout().maps;
    r.mapLayouts ??= this.keptMapLayouts(r.config);
    return r.mapLayouts;
  }

  private keptMapLayouts(config: HaproxyConfig): readonly MapLayout[] {
    const kept = this.mapLayoutsKept;
    if (kept !== undefined && kept.maps === config.maps) return kept.layouts;
    const extras = extraMapFiles(config);
    if (kept !== undefined && sameStrings(kept.extras, extras)) {
      this.mapLayoutsKept = { maps: config.maps, extras, layouts: kept.layouts };
      return kept.layouts;
    }
    const layouts = defaultMapLayouts(config);
    this.mapLayoutsKept = { maps: config.maps, extras, layouts };
    this.pristineListings.clear();
    return layouts;
  }

  /** `#<id>`: HAProxy looks a proxy up by its id when its name starts with `#` (rare: a scan will do). */
  private backendById(id: number): MockBackend | undefined {
    for (const name of this.backendNames()) {
      const be = this.backend(name);
      if (be?.id === id) return be;
    }
    return undefined;
  }

  /**
   * `<cfg file>:<line>` of a configured server, as HAProxy names where a server was declared; `(null):0` for
   * one added at runtime. The default layout has no lines: the default render of the config gives them.
   */
  serverLocation(be: MockBackend, s: MockServer): string {
    if (s.dynamic) return '(null):0';
    const r = this.running;
    const lines = (r.serverLines ??= (r.layoutGiven ? r.layout?.serverLines : undefined) ?? defaultServerLines(r.config));
    // A configured server's id is its place in the backend's server lines (backendFromConfig).
    const line = lines.byBackend.get(be.name)?.[s.id - 1];
    return line === undefined ? '(null):0' : `${lines.cfgFile}:${line}`;
  }

  backend(name: string): MockBackend | undefined {
    const r = this.running;
    if (name === r.lastName) return r.lastBackend;
    let be = r.backends.get(name);
    if (be === undefined) {
      const index = this.indexed().position(name);
      if (index === undefined) return name.charCodeAt(0) === 0x23 ? this.backendById(atoi(name.slice(1))) : undefined;
      const id = this.positionalIds() ? renderedBackendId(index) : this.layout().backendIds.get(name)!;
      be = backendFromConfig(r.config.backends[index]!, id, r.loadedAtS);
      r.backends.set(name, be);
    }
    r.lastName = name;
    r.lastBackend = be;
    return be;
  }

  map(path: string): MockMap | undefined {
    const r = this.running;
    let m = r.maps.get(path);
    if (m !== undefined) return m;
    const layout = this.mapLayouts().find((l) => l.path === path);
    if (layout === undefined) return undefined;
    let atLoad = this.entriesAtLoad.get(layout.path);
    if (atLoad === undefined) this.entriesAtLoad.set(layout.path, (atLoad = new MapEntriesAtLoad(layout.file)));
    m = mapFromLayout(layout, atLoad.build(r.config.maps[layout.file] ?? NO_ENTRIES, this.pointers));
    atLoad.builtInto(m);
    r.maps.set(path, m);
    return m;
  }

  /**
   * The process restarts on the config file it last loaded (a crash and a supervisor restart, or a reload
   * with an unchanged file): every runtime change is lost.
   */
  restart(): void {
    if (this.lastLoaded === undefined) throw new Error('restart before any load');
    this.load(this.lastLoaded.config, this.lastLoaded.layout, { trusted: true });
  }

  /**
   * One request line (several `;`-separated commands, optionally a `<<` payload); the bytes HAProxy replies.
   * Text holding several request lines is answered line by line, as HAProxy answers lines sent together.
   */
  execute(text: string, session: CliSession = { interactive: false }): string {
    this.served++;
    const nl = text.indexOf('\n');
    if (nl < 0 || nl === text.length - 1) return this.counted(this.executeRequest(text, session));
    let out = '';
    for (const request of splitRequests(text)) {
      const reply = this.executeRequest(request, session);
      out += reply;
      if (this.quitRequested) break;
    }
    return this.counted(out);
  }

  private counted(reply: string): string {
    this.bytesOut += reply.length;
    return reply;
  }

  private executeRequest(line: string, session: CliSession): string {
    this.quitRequested = false;
    const words = plainWords(line);
    if (words !== undefined) {
      const reply = this.runWords(words, undefined, session);
      if (reply === undefined) this.quitRequested = true;
      return reply ?? '';
    }
    const commands = parseCliRequest(line);
    if (commands.length === 1) {
      const reply = this.runCli(commands[0]!, session);
      if (reply === undefined) this.quitRequested = true;
      return reply ?? '';
    }
    let out = '';
    for (const c of commands) {
      const reply = this.runCli(c, session);
      // `quit` ends the session: later commands on the line are not run.
      if (reply === undefined) {
        this.quitRequested = true;
        break;
      }
      out += reply;
    }
    return out;
  }

  /** A fault-free transport (see faulty-transport.ts for one with faults): the reply, always delivered. */
  send(command: RuntimeCommand): TransportResult {
    const reply = this.run(command);
    // Most commands are answered with the silent acceptance: one shared result, not an object per command.
    return reply === OK ? DELIVERED_OK : { ok: true, reply };
  }

  /**
   * A typed command, executed from its fields. A command whose text the CLI would cut or unescape
   * differently (see reachesCliVerbatim) is answered as its text is, so the two entry points never differ.
   */
  run(c: RuntimeCommand): RuntimeReply {
    if (!reachesCliVerbatim(c)) return decodeReply(c, this.execute(encodeCommand(c)));
    // A connection, as `execute` counts one; a typed reply has no bytes, so `show info`'s output byte
    // count covers text replies only.
    this.served++;
    switch (c.kind) {
      case 'show backend':
        return showBackend(this);
      case 'show servers state':
        return showServersState(this, c.backend);
      case 'set server addr': {
        const found = findServer(this, c.backend, c.server, '\n\n');
        return found.ok ? setAddr(found.srv, c.ip, c.port) : found.reply;
      }
      case 'set server state': {
        const found = findServer(this, c.backend, c.server, '\n\n');
        return found.ok ? setState(this, found.srv, c.state) : found.reply;
      }
      case 'set server weight': {
        const found = findServer(this, c.backend, c.server, '\n\n');
        return found.ok ? setWeight(found.be, found.srv, c.weight) : found.reply;
      }
      case 'set dynamic-cookie-key':
        return setDynamicCookieKey(this, c.backend, c.key);
      case 'enable dynamic-cookie':
        return enableDisableDynamicCookie(this, c.backend, true);
      case 'show map list':
        return showMapList(this);
      case 'show map': {
        const m = lookupMap(this, c.file);
        return m === undefined ? UNKNOWN_MAP : showMapEntries(m, m.currVer);
      }
      case 'add map':
        return addMapEntry(this, c.file, c.key, c.value);
      case 'del map ref':
        return delMapRef(this, c.file, c.ref);
      case 'add server':
        // `<ip>:<port>` as HAProxy's address parser reads it: a port of 0 maps the client's port.
        return addServerTo(this, c.backend, c.server, { ok: true, host: c.ip, port: c.port, portMap: c.port === 0 }, c.keywords, 0);
      case 'del server':
        return delServerFound(findServer(this, c.backend, c.server, '\n'));
      case 'enable health':
        return setHealth(findServer(this, c.backend, c.server, '\n\n'), true);
      case 'disable health':
        return setHealth(findServer(this, c.backend, c.server, '\n\n'), false);
    }
  }

  /** The map loaded from the file with this base name (`os_http_be.map`). */
  /**
   * A map as a read-only look sees it without building it: the built map if a command or a look built it
   * since the load, else the config's entries for the file (the built map would copy them, at version 0).
   * The invariant checker looks through these after every reload; the renderer hands unchanged files over
   * as the same arrays, so what it learnt of them outlives the reload.
   */
  peekMap(file: string): MockMap | PristineMap | undefined {
    const r = this.running;
    const layout = this.layoutOfFile(file);
    if (layout === undefined) return undefined;
    const built = r.maps.get(layout.path);
    if (built !== undefined) return built;
    let view = r.pristine.get(file);
    if (view === undefined) r.pristine.set(file, (view = { pristine: true, entries: r.config.maps[file] ?? NO_ENTRIES, match: layout.match }));
    return view;
  }

  /** The same for a backend: its runtime state if built since the load, else its config line. */
  peekBackend(name: string): MockBackend | BackendConfig | undefined {
    const r = this.running;
    const be = r.backends.get(name);
    if (be !== undefined) return be;
    const index = this.indexed().position(name);
    return index === undefined ? undefined : r.config.backends[index];
  }

  mapByFile(file: string): MockMap | undefined {
    const layout = this.layoutOfFile(file);
    return layout === undefined ? undefined : this.map(layout.path);
  }

  /** The checker asks for the same few maps by file for every route it resolves: one search per load. */
  private layoutOfFile(file: string): MapLayout | undefined {
    const r = this.running;
    let layout = r.layoutByFile.get(file);
    if (layout === undefined && !r.layoutByFile.has(file)) {
      layout = this.mapLayouts().find((l) => l.file === file);
      r.layoutByFile.set(file, layout);
    }
    return layout;
  }


  /**
   * The process's figures under the loaded cfg: a global `maxconn` is its Maxconn, and HAProxy raises the
   * socket limit to twice that plus what its listeners need (measured on 2.6.12: maxconn 777, 2,000 and
   * 5,000 gave Maxsock and Ulimit-n 1,583, 4,029 and 10,029 for one cfg), kept here at ProcessInfo's margin.
   */
  private info(): ProcessInfo {
    const maxconn = this.running.layout?.maxconn;
    const p = this.processInfo;
    if (maxconn === undefined || maxconn === p.maxconn) return p;
    const margin = p.maxsock - 2 * p.maxconn;
    return { ...p, maxconn, maxsock: 2 * maxconn + margin, ulimitN: 2 * maxconn + (p.ulimitN - 2 * p.maxconn) };
  }

  private counters(): ProcessCounters {
    const startS = this.running.loadedAtS;
    return { uptimeS: Math.max(0, this.clockS() - startS), startS, connections: this.served, bytesOut: this.bytesOut };
  }

  /** The reply, or undefined for `quit` (which closes the connection without a word). */
  private runCli(c: CliCommand, session: CliSession): string | undefined {
    return this.runWords(c.words, c.payload, session);
  }

  private runWords(w: readonly string[], payload: readonly string[] | undefined, session: CliSession): string | undefined {
    // HAProxy matches the keyword alone: `quit` and `prompt` with words after them still act.
    if (w[0] === 'quit') {
      session.closed = true;
      return undefined;
    }
    if (w[0] === 'prompt') session.interactive = !session.interactive;
    const answer = w[0] === 'prompt' ? '\n' : this.dispatch(w, payload);
    const reply = answer === undefined ? usageReply(w.length === 0 ? [''] : w) : typeof answer === 'string' ? answer : encodeReply(answer);
    return session.interactive ? `${reply}> ` : reply;
  }

  /** Undefined when the words are no command the mock implements. */
  private dispatch(w: readonly string[], payload: readonly string[] | undefined): string | RuntimeReply | undefined {
    switch (w[0]) {
      case 'show':
        if (w[1] === 'backend') return showBackend(this);
        if (w[1] === 'servers' && w[2] === 'state') return showServersState(this, w[3]);
        if (w[1] === 'map') return showMap(this, w);
        if (w[1] === 'info') return showInfo(w, this.info(), this.counters());
        if (w[1] === 'version') return showVersion(this.processInfo);
        if (w[1] === 'stat') {
          const layout = this.layout();
          return showStat(w, {
            frontends: layout.frontends ?? [],
            backends: this.backendList,
            maxconn: this.info().maxconn,
            ...(layout.fullconn !== undefined && { fullconn: layout.fullconn }),
            nowS: this.clockS(),
            loadedAtS: this.running.loadedAtS,
          });
        }
        return undefined;
      case 'set':
        if (w[1] === 'server') return setServer(this, w);
        if (w[1] === 'weight') return setWeightCommand(this, w);
        if (w[1] === 'map') return setMap(this, w);
        if (w[1] === 'dynamic-cookie-key' && w[2] === 'backend') return setDynamicCookieKey(this, w[3], w[4]);
        return undefined;
      case 'get':
        if (w[1] === 'weight') return getWeight(this, w);
        if (w[1] === 'map') return getMap(this, w);
        return undefined;
      case 'enable':
      case 'disable': {
        const enable = w[0] === 'enable';
        if (w[1] === 'server') return enableDisableServer(this, w, enable);
        if (w[1] === 'health') return enableDisableHealth(this, w, enable);
        if (w[1] === 'dynamic-cookie' && w[2] === 'backend') return enableDisableDynamicCookie(this, w[3], enable);
        return undefined;
      }
      case 'add':
        if (w[1] === 'server') return addServer(this, w);
        if (w[1] === 'map') return addMap(this, w, payload);
        return undefined;
      case 'del':
        if (w[1] === 'server') return delServer(this, w);
        if (w[1] === 'map') return delMap(this, w);
        return undefined;
      case 'clear':
        return w[1] === 'map' ? clearMap(this, w) : undefined;
      case 'prepare':
        return w[1] === 'map' ? prepareMap(this, w) : undefined;
      case 'commit':
        return w[1] === 'map' ? commitMap(this, w) : undefined;
      case 'help':
        return usageReply(w);
      default:
        return undefined;
    }
  }
}

/** One HAProxy process's life between two reloads: its config, and what of it has been built so far. */
/** A map no command or look has built since the load: its config entries, all current. */
export interface PristineMap {
  readonly pristine: true;
  readonly entries: readonly MapEntry[];
  readonly match: MapMatch;
}

const NO_ENTRIES: readonly MapEntry[] = [];
const UNKNOWN_MAP = refused('Unknown map identifier. Please use #<id> or <file>.\n\n');

interface Running {
  config: HaproxyConfig;
  layout: CfgLayout | undefined;
  loadedAtS: number;
  /** Whether the load came with its layout (else it is derived from the config). */
  layoutGiven: boolean;
  mapLayouts: readonly MapLayout[] | undefined;
  backends: Map<string, MockBackend>;
  /**
   * The backend `backend` found last, by the name it was asked for: a dcm change sends its commands to one
   * backend in a row (a listing, then each server's change), and each had looked the name up again.
   */
  lastName: string | undefined;
  lastBackend: MockBackend | undefined;
  maps: Map<string, MockMap>;
  /** Map layouts by file (`mapByFile`, `peekMap`), and `peekMap`'s views of maps not built yet. */
  layoutByFile: Map<string, MapLayout | undefined>;
  pristine: Map<string, PristineMap>;
  backendList: MockBackend[] | undefined;
  /** Where the servers are declared: asked for only when an `add server … id` collides. */
  serverLines: ServerLines | undefined;
}

function emptyRunning(config: HaproxyConfig | undefined, loadedAtS: number, layout?: CfgLayout): Running {
  return {
    config: config ?? { backends: [], maps: {} },
    layout,
    layoutGiven: layout !== undefined,
    mapLayouts: undefined,
    loadedAtS,
    backends: new Map(),
    lastName: undefined,
    lastBackend: undefined,
    maps: new Map(),
    layoutByFile: new Map(),
    pristine: new Map(),
    backendList: undefined,
    serverLines: undefined,
  };
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What HAProxy refuses to start on: duplicate backends, and map files whose values the converter cannot read. */
function checkConfig(config: HaproxyConfig, layout: CfgLayout): void {
  const names = new Set<string>();
  for (const be of config.backends) {
    if (names.has(be.name)) throw new Error(`duplicate backend ${be.name}`);
    names.add(be.name);
    if (!layout.backendIds.has(be.name)) throw new Error(`layout has no id for backend ${be.name}`);
  }
  for (const file of Object.keys(config.maps)) {
    if (UNREFERENCED_MAP_FILES.includes(file)) continue;
    if (!layout.maps.some((m) => m.file === file)) throw new Error(`layout does not reference map file ${file}`);
  }
  for (const m of layout.maps) checkMapValues(m, config.maps[m.file] ?? []);
}
