import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { freePorts, haproxyAvailable, startHaproxy } from '../../fidelity/real-haproxy.ts';
import { parseHaproxyCfg } from './cfg-parser.ts';
import { MockHaproxy } from './mock-haproxy.ts';

const HEAD = ['global', '  stats socket /s.sock mode 600 level admin', 'defaults', '  mode http', '  timeout connect 5s', '  timeout client 5s', '  timeout server 5s'];

function showMapOf(lines: readonly string[], mapText = (_p: string) => 'k 1\n'): string {
  const parsed = parseHaproxyCfg([...HEAD, ...lines].join('\n'), { cfgFile: 't.cfg', readFile: mapText });
  const mock = new MockHaproxy();
  mock.load(parsed.config, parsed.layout);
  return mock.execute('show map');
}

function row(id: number, path: string, uses: readonly number[], count: number): string {
  const by = uses.map((l, i) => (i === 0 ? `used by map at file 't.cfg' line ${l}` : `, by map at file 't.cfg' line ${l}`)).join('');
  return `${id} (${path}) pattern loaded from file '${path}' ${by}. curr_ver=0 next_ver=0 entry_cnt=${count}`;
}

describe('pattern reference numbering', () => {
  it('numbers a condition before a late use_backend expression, and -f files before their ACL', () => {
    // Measured on HAProxy 2.6.12 (`show acl` listed the ACL refs 1, 2, 4, 7, 8, 9, 10 (acl.lst), 11, and the
    // httpclient's 12 and 13; `show map` the four maps below). Lines count from 1 with the 7 of HEAD.
    const out = showMapOf([
      'frontend f1', // 8
      '  bind 127.0.0.1:1', // 9
      '  use_backend %[base,map_reg(/m/a.map)] if { base,map(/m/b.map) -m found } { path -m beg /x }', // 10: b 0, ACLs 1, 2; a late
      '  use_backend be1 if { base,map_reg(/m/c.map) -m found }', // 11: c 3, ACL 4
      '  acl x1 base,map(/m/d.map),map(/m/a.map) -m found', // 12: d 5, a 6, ACL 7
      '  http-request set-var(txn.q) base,map(/m/c.map) if { base,map(/m/d.map) -m found } HTTP', // 13: ACL 8, HTTP 9
      '  acl y hdr(host) -f /m/acl.lst', // 14: acl.lst 10, ACL 11
      '  use_backend %[base,map(/m/b.map)]', // 15: late, b again
      'backend be1',
    ]);
    // c and a are each read by two converter kinds (map_reg and map), so each of their entries counts twice.
    expect(out).toBe(
      [
        '# id (file) description',
        row(0, '/m/b.map', [10, 15], 1),
        row(3, '/m/c.map', [11, 13], 2),
        row(5, '/m/d.map', [12, 13], 1),
        row(6, '/m/a.map', [12, 10], 2),
        '',
        '',
      ].join('\n'),
    );
  });

  it('reads an http-request redirect condition before its location, and not the legacy redirect location at all', () => {
    // Measured on HAProxy 2.6.12: b 0, ACL 1; d 2, ACL 3, c 4; e 5, TRUE 6; acl.map 7, ACL 8; path 9, METH_GET 10;
    // in be1, a 11, ACL 12, HTTP 13; in l1 its own HTTP 14. The legacy redirect's `%[...]` loads nothing.
    const out = showMapOf(
      [
        'frontend f1', // 8
        '  bind 127.0.0.1:1',
        '  redirect location %[base,map(/m/a.map)] if { base,map(/m/b.map) -m found }', // 10
        '  http-request redirect location %[base,map(/m/c.map)] if { base,map(/m/d.map) -m found }', // 11
        '  http-request set-header X %[base,map(/m/e.map)] if TRUE', // 12
        '  tcp-request content accept if { base,map_reg(/m/acl.map) -m found }', // 13
        '  use_backend be1 if TRUE !{ path -m beg /x } || METH_GET', // 14
        'backend be1', // 15
        '  acl z base,map(/m/a.map) -m found', // 16
        '  http-request deny if z HTTP', // 17
        'listen l1',
        '  bind 127.0.0.1:2',
        '  http-request deny if HTTP', // 20
      ],
      (p) => (p.endsWith('e.map') ? 'k1 1\nk2 2\nk3 3\n' : 'k 1\n'),
    );
    expect(out.split('\n').slice(1, -2)).toEqual([
      row(0, '/m/b.map', [10], 1),
      row(2, '/m/d.map', [11], 1),
      row(4, '/m/c.map', [11], 1),
      row(5, '/m/e.map', [12], 3),
      row(7, '/m/acl.map', [13], 1),
      row(11, '/m/a.map', [16], 1),
    ]);
  });

  it('counts an entry once per distinct converter kind reading the file (map and map_str are one kind)', () => {
    // Measured on HAProxy 2.6.12: six converters (these five and map_beg) on one 3-entry file gave
    // entry_cnt=15 (5 kinds × 3), and 20 after one `add map`. The parser refuses map_beg, so 4 kinds here.
    const lines = ['frontend f', '  bind 127.0.0.1:1'];
    for (const conv of ['map', 'map_reg', 'map_str', 'map_reg_int', 'map_str_int']) lines.push(`  http-request set-var(txn.${conv}) base,${conv}(/m/e.map)`);
    const parsed = parseHaproxyCfg([...HEAD, ...lines].join('\n'), { cfgFile: 't.cfg', readFile: () => 'k1 1\nk2 2\nk3 3\n' });
    const mock = new MockHaproxy();
    mock.load(parsed.config, parsed.layout);
    expect(mock.execute('show map')).toContain(`entry_cnt=${3 * 4}\n`);
    mock.execute('add map /m/e.map k4 4');
    expect(mock.execute('show map')).toContain(`entry_cnt=${4 * 4}\n`);
  });
});

/** Map files of the generated configs: integer values, so every converter kind (`_int` too) can read them. */
const MAP_FILES = ['m0.map', 'm1.map', 'm2.map', 'm3.map'];
const ACL_FILES = ['a0.lst', 'a1.lst'];
const CONVERTERS = ['map', 'map_str', 'map_reg', 'map_reg_int', 'map_str_int'];
const FETCHES = ['base', 'path', 'req.hdr(host)'];
const PREDEFINED = ['HTTP', 'TRUE', 'METH_GET', 'HTTP_1.1'];

interface GenSection {
  kind: 'frontend' | 'backend' | 'listen';
  lines: GenLine[];
}
/** A line template: `{map}` is a map use, `{cond}` a condition, `{be}` a backend name, `{acl}` a declared ACL. */
type GenLine = { template: string; maps: [string, string, string][]; cond: GenTerm[] };
type GenTerm = { kind: 'anon-map'; fetch: string; conv: string; file: string; neg: boolean } | { kind: 'anon'; neg: boolean } | { kind: 'anon-file'; file: string } | { kind: 'predefined'; name: string } | { kind: 'declared' };

const mapUse = fc.tuple(fc.constantFrom(...FETCHES), fc.constantFrom(...CONVERTERS), fc.constantFrom(...MAP_FILES));
const term: fc.Arbitrary<GenTerm> = fc.oneof(
  fc.record({ kind: fc.constant('anon-map' as const), fetch: fc.constantFrom(...FETCHES), conv: fc.constantFrom(...CONVERTERS), file: fc.constantFrom(...MAP_FILES), neg: fc.boolean() }),
  fc.record({ kind: fc.constant('anon' as const), neg: fc.boolean() }),
  fc.record({ kind: fc.constant('anon-file' as const), file: fc.constantFrom(...ACL_FILES) }),
  fc.record({ kind: fc.constant('predefined' as const), name: fc.constantFrom(...PREDEFINED) }),
  fc.record({ kind: fc.constant('declared' as const) }),
);
const line: fc.Arbitrary<GenLine> = fc.record({
  template: fc.constantFrom(
    'acl {acl} {map} -m found',
    'acl {acl} path -m beg /p',
    'acl {acl} hdr(host) -f {file}',
    'use_backend {be} if {cond}',
    'use_backend %[{map}]',
    'use_backend %[{map}] if {cond}',
    'http-request set-var(txn.v) {map}',
    'http-request set-var(txn.v) {map} if {cond}',
    'http-request set-header X-M %[{map}] if {cond}',
    'http-request redirect location /%[{map}] if {cond}',
    'redirect location /%[{map}] if {cond}',
    'http-request deny if {cond}',
    'tcp-request content accept if {cond}',
  ),
  maps: fc.array(mapUse, { minLength: 1, maxLength: 2 }),
  cond: fc.array(term, { minLength: 1, maxLength: 3 }),
});
const section: fc.Arbitrary<GenSection> = fc.record({ kind: fc.constantFrom('frontend' as const, 'backend' as const, 'listen' as const), lines: fc.array(line, { maxLength: 6 }) });
const sections = fc.array(section, { minLength: 1, maxLength: 5 });

/** The cfg text: backend-only rules are dropped from backends, names resolved, conditions written out. */
function renderGenerated(gen: readonly GenSection[], dir: string, ports: readonly number[]): { text: string; refsMax: number } {
  const out = [...HEAD.map((l) => l.replace('/s.sock', join(dir, 'h.sock')))];
  // use_backend targets: backend sections (a listen section naming itself is a loop), and a last backend
  // every config has.
  const backends = [...gen.flatMap((s, i) => (s.kind === 'backend' ? [`b${i}`] : [])), 'bz'];
  let refsMax = 2;
  gen.forEach((s, i) => {
    out.push(`${s.kind} ${s.kind === 'frontend' ? 'f' : 'b'}${i}`);
    if (s.kind !== 'backend') out.push(`  bind 127.0.0.1:${ports[i]}`);
    let acls = 0;
    for (const l of s.lines) {
      // Backends take no use_backend, tcp-request content, or redirect by a frontend's rules only.
      if (s.kind === 'backend' && /^(use_backend|tcp-request|redirect)/.test(l.template)) continue;
      const fetch = l.maps[0]![0];
      const maps = l.maps.map(([, c, f]) => `${c}(${join(dir, f)})`).join(',');
      const cond = l.cond
        .map((t) => {
          switch (t.kind) {
            case 'anon-map':
              return `${t.neg ? '!' : ''}{ ${t.fetch},${t.conv}(${join(dir, t.file)}) -m found }`;
            case 'anon':
              return `${t.neg ? '!' : ''}{ path -m beg /q }`;
            case 'anon-file':
              return `{ hdr(host) -f ${join(dir, t.file)} }`;
            case 'predefined':
              return t.name;
            case 'declared':
              return acls > 0 ? `a${acls - 1}` : 'TRUE';
          }
        })
        .join(' ');
      refsMax += 2 * l.maps.length + 3 * l.cond.length + 1;
      const text = l.template
        .replace('{acl}', () => `a${acls++}`)
        .replace('{map}', `${fetch},${maps}`)
        .replace('{file}', join(dir, ACL_FILES[acls % 2]!))
        .replace('{cond}', cond)
        .replace('{be}', backends[i % backends.length]!);
      out.push(`  ${text}`);
    }
    if (s.kind !== 'frontend') out.push(`  server s1 127.0.0.1:${ports[i]! + 0}`);
  });
  out.push('backend bz', '  server s1 127.0.0.1:9');
  return { text: `${out.join('\n')}\n`, refsMax };
}

const TITLE = 'show map on generated cfgs matches a real HAProxy 2.6 (ids, order, descriptions, entry counts)';
(haproxyAvailable ? describe : describe.skip)(haproxyAvailable ? TITLE : `${TITLE}: skipped, \`haproxy\` is not on PATH (CI installs it)`, () => {
  it('lists the same maps under the same ids, and answers `show map #<id>` alike for every id', async () => {
    const seed = Number(process.env.CONFORMANCE_SEED ?? 20261201);
    const count = Number(process.env.CONFORMANCE_CFGS ?? 25);
    const differences: { cfg: string; request: string; real: string; mock: string }[] = [];
    for (const gen of fc.sample(sections, { seed, numRuns: count })) {
      const dir = mkdtempSync(join(tmpdir(), 'routerbench-refs-'));
      try {
        MAP_FILES.forEach((f, i) => writeFileSync(join(dir, f), Array.from({ length: i + 1 }, (_, k) => `k${k} ${k}`).join('\n') + '\n'));
        ACL_FILES.forEach((f) => writeFileSync(join(dir, f), 'x.example.com\n'));
        const ports = await freePorts(gen.length);
        const { text, refsMax } = renderGenerated(gen, dir, ports);
        const cfgPath = join(dir, 'h.cfg');
        writeFileSync(cfgPath, text);
        const parsed = parseHaproxyCfg(text, { cfgFile: cfgPath, readFile: (p) => readFileSync(p, 'utf8') });
        const mock = new MockHaproxy();
        mock.load(parsed.config, parsed.layout);
        const real = await startHaproxy(cfgPath, join(dir, 'h.sock'));
        try {
          const requests = ['show map', 'show backend'];
          for (let id = 0; id <= refsMax; id++) requests.push(`show map #${id}`);
          // `add map` and `set map` take an ACL's id too (HAProxy 2.6 does not check the kind there); the mock has
          // no ACL patterns, so only a map's id is sent.
          const first = parsed.layout.maps[0];
          if (first !== undefined) requests.push(`add map #${first.id} kx 7`, 'show map');
          for (const request of requests) {
            const r = (await real.ask(request)).replace(/^0x[0-9a-f]+ /gm, '0xPTR ');
            const m = mock.execute(request).replace(/^0x[0-9a-f]+ /gm, '0xPTR ');
            if (r !== m) differences.push({ cfg: text, request, real: r, mock: m });
          }
        } finally {
          await real.stop();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      if (differences.length > 0) break;
    }
    expect(differences).toEqual([]);
  });
});
