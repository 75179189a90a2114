import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { HaproxyConfig } from '../../core/haproxy/config-model.ts';
import { DEFAULT_RENDER_OPTIONS, renderHaproxyCfg } from './haproxy-cfg.ts';
import { MockHaproxy } from './mock-haproxy.ts';

const MAP = `${DEFAULT_RENDER_OPTIONS.mapDir}/os_http_be.map`;

function config(): HaproxyConfig {
  return {
    backends: [
      {
        name: 'be_http:ns:web',
        mode: 'http',
        balance: 'roundrobin',
        cookieName: 'ck',
        dynamicCookieKey: 'key-0',
        servers: [
          { name: 'pod-1', address: '10.0.0.1', port: 8080, weight: 10, disabled: false, check: false },
          { name: '_dynamic-pod-1', address: '172.4.0.4', port: 8765, weight: 0, disabled: true, check: true },
        ],
      },
    ],
    maps: { 'os_http_be.map': [{ key: '^web\\.example\\.com(/.*)?$', value: 'be_http:ns:web' }] },
  };
}

function loaded(clock = () => 0): MockHaproxy {
  const m = new MockHaproxy({ clockS: clock });
  m.load(config());
  return m;
}

const srv = (m: MockHaproxy, name: string) => m.backend('be_http:ns:web')!.byName.get(name)!;

describe('MockHaproxy', () => {
  it('starts from the config: ids, weights, disabled slots in config+forced maint', () => {
    const m = loaded();
    // Default layout: three frontends take proxy ids 2..4, so the first backend is 5.
    expect(m.backend('be_http:ns:web')!.id).toBe(5);
    expect(srv(m, 'pod-1')).toMatchObject({ id: 1, uweight: 10, iweight: 10, opState: 2, adminState: 0 });
    expect(srv(m, '_dynamic-pod-1')).toMatchObject({ id: 2, opState: 0, adminState: 0x05 });
    expect(m.map(MAP)!.entries.map((e) => [e.key, e.value])).toEqual([['^web\\.example\\.com(/.*)?$', 'be_http:ns:web']]);
  });

  it('loses every runtime change on reload, as a new HAProxy process would', () => {
    const m = loaded();
    const changes = [
      'set server be_http:ns:web/_dynamic-pod-1 addr 10.0.0.2 port 8080',
      'set server be_http:ns:web/_dynamic-pod-1 weight 5',
      'set server be_http:ns:web/_dynamic-pod-1 state ready',
      'set server be_http:ns:web/pod-1 state drain',
      'add server be_http:ns:web/extra 10.0.0.3:8080',
      'set dynamic-cookie-key backend be_http:ns:web key-1',
      `add map ${MAP} ^new\\\\.example\\\\.com$ be_http:ns:web`,
      `prepare map ${MAP}`,
    ];
    for (const c of changes) expect(m.execute(c)).toMatch(/^(\n|IP changed.*\n\n|New server registered\.\n\n|New version created: 1\n\n)$/);
    expect(m.backend('be_http:ns:web')!.servers).toHaveLength(3);
    expect(m.backend('be_http:ns:web')!.dynamicCookieKey).toBe('key-1');
    expect(m.map(MAP)).toMatchObject({ nextVer: 1 });

    m.load(config());
    expect(srv(m, '_dynamic-pod-1')).toMatchObject({ address: '172.4.0.4', port: 8765, uweight: 0, adminState: 0x05, opState: 0 });
    expect(srv(m, 'pod-1')).toMatchObject({ adminState: 0, opState: 2 });
    expect(m.backend('be_http:ns:web')!.servers.map((s) => s.name)).toEqual(['pod-1', '_dynamic-pod-1']);
    expect(m.backend('be_http:ns:web')!.dynamicCookieKey).toBe('key-0');
    expect(m.map(MAP)).toMatchObject({ currVer: 0, nextVer: 0 });
    expect(m.map(MAP)!.entries).toHaveLength(1);
    expect(m.loadCount).toBe(2);
  });

  it('keeps running the old config when a reload is refused (a redirect map value that is not an integer)', () => {
    const m = loaded();
    m.execute('set server be_http:ns:web/pod-1 state maint');
    const bad = { ...config(), maps: { ...config().maps, 'os_route_http_redirect.map': [{ key: '^x$', value: 'yes' }] } };
    expect(() => m.load(bad)).toThrow(/not an integer/);
    expect(srv(m, 'pod-1').adminState).toBe(1);
    expect(m.loadCount).toBe(1);
  });

  it('runs each command of a ; line and concatenates the replies, each with its own closing newline', () => {
    const m = loaded();
    expect(m.execute('get weight be_http:ns:web/pod-1;set server be_http:ns:web/pod-1 weight 3;get weight be_http:ns:web/pod-1')).toBe(
      '10 (initial 10)\n\n\n3 (initial 10)\n\n',
    );
  });

  it('takes a payload after <<, with or without the closing empty line', () => {
    const m = loaded();
    expect(m.execute(`add map ${MAP} <<\nk1 v1\nk2 v 2\n\n`)).toBe('\n');
    expect(m.execute(`add map ${MAP} <<\nk3 v3`)).toBe('\n');
    expect(m.map(MAP)!.entries.slice(1).map((e) => `${e.key}=${e.value}`)).toEqual(['k1=v1', 'k2=v 2', 'k3=v3']);
  });

  // HAProxy 2.6.12, measured: only `#0x` and hex digits is a reference (strtoll base 16: either case,
  // leading zeros); `#0x` with anything else is malformed; any other word is a key, `#` or not.
  it('reads `del map` and `set map` targets as HAProxy does', () => {
    const m = loaded();
    const ref = m.map(MAP)!.entries[0]!.ref;
    expect(ref).toMatch(/^0x[1-9a-f][0-9a-f]*$/);
    expect(m.execute(`set map ${MAP} #0x000${ref.slice(2).toUpperCase()} be_http:ns:v2`)).toBe('\n');
    expect(m.execute(`set map ${MAP} #0X${ref.slice(2)} v`)).toBe('entry not found.\n\n');
    expect(m.execute(`set map ${MAP} #${ref.slice(2)} v`)).toBe('entry not found.\n\n');
    expect(m.execute(`set map ${MAP} #0x1 v`)).toBe('key or pattern not found.\n\n');
    for (const bad of ['#0x', '#0xzz', `#${ref}z`, '#0x-1', '#0x+1']) {
      expect(m.execute(`set map ${MAP} ${bad} v`)).toBe('Malformed identifier. Please use #<id> or <file>.\n\n');
      expect(m.execute(`del map ${MAP} ${bad}`)).toBe('Malformed identifier. Please use #<id> or <file>.\n\n');
    }
    expect(m.execute('del map /nosuch.map #0xzz')).toBe('Unknown map identifier. Please use #<id> or <file>.\n\n');
    expect(m.execute(`add map ${MAP} #k vk`)).toBe('\n');
    expect(m.execute(`set map ${MAP} #k vk2`)).toBe('\n');
    expect(m.execute(`del map ${MAP} #0X1`)).toBe('Key not found.\n\n');
    expect(m.map(MAP)!.entries.map((e) => `${e.key}=${e.value}`)).toEqual(['^web\\.example\\.com(/.*)?$=be_http:ns:v2', '#k=vk2']);
    expect(m.execute(`del map ${MAP} #k`)).toBe('\n');
    expect(m.execute(`del map ${MAP} #0xffffffffffffffffff`)).toBe('Key not found.\n\n');
    expect(m.execute(`del map ${MAP} #0x00${ref.slice(2)}`)).toBe('\n');
    expect(m.map(MAP)!.entries).toEqual([]);
  });

  // HAProxy 2.6.12 names the cfg file and line of a configured server whose id `add server … id` asks for,
  // `(null):0` for one added at runtime. Loaded without a cfg, the mock's cfg is its default render.
  it('says where the server holding a requested id was declared', () => {
    const m = loaded();
    const text = renderHaproxyCfg(config()).text.split('\n');
    const line = (name: string): number => text.findIndex((l) => l.startsWith(`  server ${name} `)) + 1;
    const at = (name: string): string => `${DEFAULT_RENDER_OPTIONS.cfgFile}:${line(name)}`;
    expect(line('pod-1')).toBeGreaterThan(0);
    expect(m.execute('add server be_http:ns:web/a 10.0.0.2:80 id 1')).toBe(`'id' : custom id 1 already used at ${at('pod-1')} ('server pod-1').\n\n`);
    expect(m.execute('add server be_http:ns:web/b 10.0.0.2:80 id 2')).toBe(`'id' : custom id 2 already used at ${at('_dynamic-pod-1')} ('server _dynamic-pod-1').\n\n`);
    expect(m.execute('add server be_http:ns:web/c 10.0.0.2:80 id 7')).toBe('New server registered.\n\n');
    expect(m.execute('add server be_http:ns:web/d 10.0.0.2:80 id 7')).toBe("'id' : custom id 7 already used at (null):0 ('server c').\n\n");
  });

  it('reports the time since the last state change from the injected clock', () => {
    let now = 100;
    const m = loaded(() => now);
    now = 130;
    m.execute('set server be_http:ns:web/pod-1 state maint');
    now = 137;
    const rows = m.execute('show servers state be_http:ns:web').split('\n');
    // pod-1 changed at 130 (7 s ago); the slot has not changed since the load at 100 (37 s ago).
    expect(rows[2]!.split(' ')[9]).toBe('7');
    expect(rows[3]!.split(' ')[9]).toBe('37');
  });

  it('hands out deterministic, distinct map entry pointers', () => {
    const a = loaded();
    const b = loaded();
    a.execute(`add map ${MAP} k v`);
    b.execute(`add map ${MAP} k v`);
    expect(a.execute(`show map ${MAP}`)).toBe(b.execute(`show map ${MAP}`));
    const refs = a.map(MAP)!.entries.map((e) => e.ref);
    expect(new Set(refs).size).toBe(refs.length);
  });

  it('keeps runtime commands cheap (the simulation sends millions)', () => {
    const m = loaded();
    const lines = [
      'set server be_http:ns:web/_dynamic-pod-1 addr 10.0.0.2 port 8080',
      'set server be_http:ns:web/_dynamic-pod-1 weight 5',
      'set server be_http:ns:web/_dynamic-pod-1 state ready',
      'set server be_http:ns:web/_dynamic-pod-1 state maint',
    ];
    const start = process.hrtime.bigint();
    for (let i = 0; i < 200_000; i++) m.execute(lines[i & 3]!);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    // A budget, not a benchmark: well under 1 µs a command on an idle machine; 20 µs a command (4 s for
    // 200,000) would make a million-command run take 20 s, the most a run may spend in the mock.
    expect(seconds).toBeLessThan(4);
  });
});

describe('MockHaproxy across reloads', () => {
  /** Map files a reload may write: the template's, one it does not know, each with 0..2 entries. */
  const files = ['os_http_be.map', 'os_tcp_be.map', 'os_extra.map', 'os_other.map'];
  const entry = (i: number) => ({ key: `^h${i}\\.example\\.com$`, value: `be_http:ns:r${i}` });

  test.prop([fc.array(fc.record({ counts: fc.array(fc.integer({ min: -1, max: 2 }), { minLength: 4, maxLength: 4 }), keepMaps: fc.boolean(), touch: fc.boolean() }), { minLength: 1, maxLength: 12 })], { numRuns: 100 })(
    'lists its maps after each reload as a process started on that config does',
    (loads) => {
      const m = new MockHaproxy();
      let maps: HaproxyConfig['maps'] = {};
      for (const l of loads) {
        if (!l.keepMaps) {
          maps = {};
          // -1: the file is not written at all.
          l.counts.forEach((n, i) => {
            if (n >= 0) maps[files[i]!] = Array.from({ length: n }, (_, k) => entry(k));
          });
        }
        const cfg: HaproxyConfig = { backends: config().backends, maps };
        m.load(cfg);
        // A map built by a command lists itself; the others are listed from the config.
        if (l.touch) m.execute(`show map ${MAP}`);
        const fresh = new MockHaproxy();
        fresh.load(cfg);
        if (l.touch) fresh.execute(`show map ${MAP}`);
        expect(m.execute('show map')).toBe(fresh.execute('show map'));
      }
    },
  );
});

describe('MockHaproxy map entries across reloads', () => {
  it('starts every load from the config: an entry taken out comes back under a new pointer, the lines kept keep theirs', () => {
    const lines = [
      { key: '^a\\.example\\.com$', value: 'be_http:ns:a' },
      { key: '^b\\.example\\.com$', value: 'be_http:ns:b' },
    ];
    const cfg: HaproxyConfig = { backends: config().backends, maps: { 'os_http_be.map': lines } };
    const m = new MockHaproxy();
    m.load(cfg);
    const before = m.execute(`show map ${MAP}`).trim().split('\n');
    const refA = before[0]!.split(' ')[0]!;
    const refB = before[1]!.split(' ')[0]!;
    expect(m.execute(`del map ${MAP} #${refA}`)).toBe('\n');
    expect(m.execute(`add map ${MAP} ^c\\.example\\.com$ be_http:ns:c`)).toBe('\n');
    // The renderer hands the same lines over again: the process starts on them, runtime changes gone.
    m.load({ backends: cfg.backends, maps: { 'os_http_be.map': lines } });
    const after = m.execute(`show map ${MAP}`).trim().split('\n');
    expect(after.map((l) => l.split(' ').slice(1).join(' '))).toEqual(['^a\\.example\\.com$ be_http:ns:a', '^b\\.example\\.com$ be_http:ns:b']);
    expect(after[0]!.split(' ')[0]).not.toBe(refA);
    expect(after[1]!.split(' ')[0]).toBe(refB);
    // The entry that came back answers `del map` under its new pointer, as a fresh process's would.
    expect(m.execute(`del map ${MAP} #${after[0]!.split(' ')[0]}`)).toBe('\n');
    expect(m.execute(`del map ${MAP} #${refA}`)).toBe('Key not found.\n\n');
  });
});

describe('MockHaproxy show map rows', () => {
  it('stay as they were listed when set map changes an entry afterwards', () => {
    const m = loaded();
    const before = m.run({ kind: 'show map', file: MAP });
    const key = '^web\\.example\\.com(/.*)?$';
    expect(before).toMatchObject({ kind: 'entries', entries: [{ key, value: 'be_http:ns:web' }] });
    const kept = before.kind === 'entries' ? before.entries[0]! : undefined;
    expect(m.execute(`set map ${MAP} ${kept!.key.replace(/\\/g, '\\\\')} be_other`)).toBe('\n');
    expect(kept).toEqual({ ref: kept!.ref, key, value: 'be_http:ns:web' });
    // The entry keeps its reference and place; only its value moved.
    expect(m.run({ kind: 'show map', file: MAP })).toEqual({ kind: 'entries', entries: [{ ref: kept!.ref, key, value: 'be_other' }] });
    expect(m.execute(`set map ${MAP} #${kept!.ref} be_third`)).toBe('\n');
    expect(m.execute(`show map ${MAP}`)).toBe(`${kept!.ref} ${key} be_third\n\n`);
    expect(kept!.value).toBe('be_http:ns:web');
  });
});

describe('show map of a map that had versions', () => {
  // One map's commands, versions and all: `@1`..`@3` name versions a prepare may or may not have made, and
  // `@4294967295` one before 0, which HAProxy takes before any prepare (versions compare with wrap-around).
  const version = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant(4294967295));
  const key = fc.constantFrom('a', 'b', 'c');
  const step = fc.oneof(
    fc.constant('prepare map'),
    version.map((v) => `commit map @${v}`),
    fc.option(version, { nil: undefined }).map((v) => (v === undefined ? 'clear map' : `clear map @${v}`)),
    fc.tuple(fc.option(version, { nil: undefined }), key).map(([v, k]) => (v === undefined ? `add map ${k}` : `add map @${v} ${k}`)),
    key.map((k) => `del map ${k}`),
    fc.constant('del map #first'),
    key.map((k) => `set map ${k}`),
  );
  /** The step as the CLI takes it: the map after the version, if any; a value after the key. */
  function line(m: MockHaproxy, s: string): string {
    const words = s.split(' ');
    const at = words[2]?.startsWith('@') ? `${words[2]} ` : '';
    const rest = words.slice(at === '' ? 2 : 3);
    if (s === 'del map #first') return `del map ${MAP} #${m.map(MAP)!.entries[0]?.ref ?? '0'}`;
    if (words[0] === 'add' || words[0] === 'set') return `${words[0]} map ${at}${MAP} ${rest[0]} be_x`;
    return `${words[0]} map ${at}${MAP}${rest.length > 0 ? ` ${rest.join(' ')}` : ''}`;
  }

  test.prop([fc.array(step, { maxLength: 30 })], { numRuns: 200 })('lists exactly the entries of the version asked for, whatever came before', (steps) => {
    const m = loaded();
    for (const s of steps) {
      m.execute(line(m, s));
      const map = m.map(MAP)!;
      // Each version lists what a filter of the entries by version gives, the current one by default.
      for (const v of [map.currVer, map.nextVer]) {
        const expected = map.entries.filter((e) => e.version === v).map((e) => `${e.ref} ${e.key} ${e.value}\n`).join('');
        expect(m.execute(`show map @${v} ${MAP}`)).toBe(`${expected}\n`);
      }
      expect(m.execute(`show map ${MAP}`)).toBe(m.execute(`show map @${map.currVer} ${MAP}`));
    }
  });
});
