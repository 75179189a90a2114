import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { EVENT_BATCH, readEventLogFile, readEventLogText } from './event-log-reader.ts';
import { InputError } from './input-error.ts';
import { inputErrorOf } from '../testing/input-error-of.ts';

const HEADER = '{"routerbench":"eventlog","version":1,"seed":7}';
const route = '{"at":0,"type":"route.upsert","route":{"namespace":"shop","name":"web","host":"web.example.com","service":"web"}}';
const eps = '{"at":10,"type":"endpoints.set","namespace":"shop","service":"web","endpoints":[{"ip":"10.128.0.5","port":8080},{"ip":"fd00::1","port":8080,"ready":false,"name":"web-1"}]}';

function read(lines: string[]) {
  return [...readEventLogText(lines.join('\n') + '\n', 'churn.jsonl')];
}

const errorOf = (lines: string[]): InputError => inputErrorOf(() => read(lines));

describe('event log v1 reader', () => {
  it('reads good lines in order, keeping optional fields', () => {
    const events = read([HEADER, route, eps, '{"at":10,"type":"node.fail","node":"infra-1"}', '{"at":11,"type":"network.partition","groups":[["a"],["b","c"]]}']);
    expect(events.map((e) => e.type)).toEqual(['route.upsert', 'endpoints.set', 'node.fail', 'network.partition']);
    expect(events[1]).toMatchObject({ endpoints: [{ ip: '10.128.0.5' }, { ip: 'fd00::1', ready: false, name: 'web-1' }] });
  });

  it('streams a file lazily: an error on line 3 appears only when line 3 is pulled', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-'));
    const file = join(dir, 'log.jsonl');
    writeFileSync(file, [HEADER, route, 'garbage'].join('\n'));
    const it = readEventLogFile(file)[Symbol.iterator]();
    expect(it.next().value).toMatchObject({ type: 'route.upsert' });
    expect(() => it.next()).toThrow(`${file}:3: not valid JSON`);
  });

  const bad: Array<[string, string[], number, string | undefined, RegExp]> = [
    ['a missing header', [route], 1, 'routerbench', /not an event log v1 header/],
    ['a wrong version', ['{"routerbench":"eventlog","version":2}', route], 1, 'version', /header/],
    ['a byte order mark', [`\uFEFF${HEADER}`, route], 1, undefined, /starts with a byte order mark, U\+FEFF: save it as UTF-8 without BOM/],
    ['malformed JSON', [HEADER, '{"at":0,'], 2, undefined, /not valid JSON/],
    ['an unknown type', [HEADER, '{"at":0,"type":"route.upsrt"}'], 2, 'type', /unknown event type "route.upsrt"/],
    ['a missing type', [HEADER, '{"at":0}'], 2, 'type', /missing 'type'/],
    ['a missing field', [HEADER, '{"at":0,"type":"route.delete","namespace":"a"}'], 2, 'name', /expected string/],
    ['a mistyped field', [HEADER, '{"at":"soon","type":"network.heal"}'], 2, 'at', /expected number/],
    ['a fractional time', [HEADER, '{"at":1.5,"type":"network.heal"}'], 2, 'at', /int/i],
    ['an unknown field', [HEADER, '{"at":0,"type":"network.heal","why":1}'], 2, 'why', /unknown field/],
    ['a bad endpoint address', [HEADER, '{"at":0,"type":"endpoints.set","namespace":"a","service":"b","endpoints":[{"ip":"10.0.0","port":80}]}'], 2, 'endpoints[0].ip', /IPv4 or IPv6/],
    ['a bad termination', [HEADER, '{"at":0,"type":"route.upsert","route":{"namespace":"a","name":"b","host":"h","service":"s","tls":{"termination":"bridge"}}}'], 2, 'route.tls.termination', /edge/],
    ['time going backwards', [HEADER, eps, route], 3, 'at', /time goes backwards: 0 ms after 10 ms/],
    // The audit's line: a space in a host would split the router's map entry in two.
    ['a host with a space', [HEADER, '{"at":10000,"type":"route.upsert","route":{"namespace":"a","name":"r","host":"x y.com","service":"s"}}'], 2, 'route.host', /DNS-1123 subdomain/],
    ['an upper-case host', [HEADER, '{"at":0,"type":"blueprint.upsert","route":{"namespace":"a","name":"r","host":"Web.example.com","service":"s"}}'], 2, 'route.host', /lowercase/],
    ['a wildcard written into the host', [HEADER, '{"at":0,"type":"route.upsert","route":{"namespace":"a","name":"r","host":"*.example.com","service":"s","wildcardPolicy":"Subdomain"}}'], 2, 'route.host', /DNS-1123 subdomain/],
    ['a host label of 64 characters', [HEADER, `{"at":0,"type":"route.upsert","route":{"namespace":"a","name":"r","host":"${'a'.repeat(64)}.com","service":"s"}}`], 2, 'route.host', /1 to 63 characters/],
    // 4 labels of 63 and 3 dots: 255 characters.
    ['a host of 255 characters', [HEADER, `{"at":0,"type":"route.upsert","route":{"namespace":"a","name":"r","host":"${Array(4).fill('a'.repeat(63)).join('.')}","service":"s"}}`], 2, 'route.host', /at most 253 characters/],
    ['an empty host', [HEADER, '{"at":0,"type":"route.upsert","route":{"namespace":"a","name":"r","host":"","service":"s"}}'], 2, 'route.host', /Too small/],
    // floor((2^53 - 1) / 1000) = 9007199254740 is the last time in ms whose µs count is exact.
    ['a time past the µs clock', [HEADER, '{"at":9007199254741,"type":"network.heal"}'], 2, 'at', /must be at most 9007199254740 ms \(the simulated clock counts microseconds.*got 9007199254741$/],
    ['a time of 2^53', [HEADER, '{"at":9007199254740992,"type":"network.heal"}'], 2, 'at', /must be at most 9007199254740 ms/],
    ['an empty line', [HEADER, '', route], 2, undefined, /empty line/],
  ];
  it.each(bad)('rejects %s, naming file, line and field', (_what, lines, line, field, message) => {
    const err = errorOf(lines);
    expect(err.file).toBe('churn.jsonl');
    expect(err.line).toBe(line);
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
    expect(err.message.startsWith(`churn.jsonl:${line}: `)).toBe(true);
  });

  it('accepts the latest exact time and a wildcard route with an ordinary host', () => {
    const events = read([
      HEADER,
      '{"at":0,"type":"route.upsert","route":{"namespace":"a","name":"w","host":"www.apps.example.com","service":"s","wildcardPolicy":"Subdomain"}}',
      '{"at":9007199254740,"type":"network.heal"}',
    ]);
    expect(events.map((e) => e.at)).toEqual([0, 9007199254740]);
  });

  it('reads a file in chunks smaller than a line, multi-byte names across chunk edges, as it reads the text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-'));
    const file = join(dir, 'log.jsonl');
    // Names are DNS-1123 (ASCII); a path and an annotation may hold any text.
    const named = '{"at":12,"type":"route.upsert","route":{"namespace":"shop","name":"web","host":"web.example.com","service":"web","path":"/café/w€b","annotations":{"note":"pod-😀"}}}';
    const text = [HEADER, route, eps, named, named].join('\r\n');
    writeFileSync(file, text);
    const expected = [...readEventLogText(text, file)];
    expect(expected).toHaveLength(4);
    expect(expected[3]).toMatchObject({ route: { path: '/café/w€b', annotations: { note: 'pod-😀' } } });
    for (const chunkBytes of [1, 5, 7, 64, 1 << 20]) expect([...readEventLogFile(file, { chunkBytes })]).toEqual(expected);
  });

  // A file's endpoints.set lines go through the byte scanner, text held in memory through JSON.parse and the
  // validator alone: on the same lines, edited anywhere, both must give the same events, then the same error.
  const dir = mkdtempSync(join(tmpdir(), 'rb-scan-'));
  let logs = 0;
  const written = fc
    .array(
      fc.record({ at: fc.nat({ max: 50 }), ns: fc.constantFrom('ns', 'shop-1'), svc: fc.constantFrom('web', 'a.b'), n: fc.nat({ max: 3 }), name: fc.boolean(), ready: fc.boolean() }),
      { minLength: 1, maxLength: 70 },
    )
    .map((rows) => {
      let at = 0;
      return rows.map(({ at: step, ns, svc, n, name, ready }) => {
        at += step;
        const endpoints = Array.from({ length: n }, (_, k) => ({ ip: `10.0.0.${k}`, port: 8080, ...(name && { name: `${svc}-${k}` }), ...(ready && { ready: k > 0 }) }));
        return JSON.stringify({ at, type: 'endpoints.set', namespace: ns, service: svc, endpoints });
      });
    });
  const edit = fc.constantFrom(' ', '"', '\\', ',', ':', '}', ']', '.', '-', '0', '9', 'A', 'é', '\u0000', 'null', '1e3', '');
  const outcome = (events: () => Iterable<unknown>): unknown[] => {
    const out: unknown[] = [];
    try {
      for (const e of events()) out.push(e);
    } catch (err) {
      out.push((err as Error).message);
    }
    return out;
  };
  test.prop([written, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat({ max: 3 }), edit), { minLength: 1, maxLength: 3 }), fc.constantFrom('\n', '\r\n'), fc.constantFrom(7, 64, 1 << 20)], { numRuns: 600 })(
    'reads a file as it reads the same text, edited lines and errors included',
    (lines, edits, eol, chunkBytes) => {
      for (const [line, where, cut, text] of edits) {
        const k = line % lines.length;
        const l = lines[k]!;
        const i = where % (l.length + 1);
        lines[k] = l.slice(0, i) + text + l.slice(Math.min(l.length, i + cut));
      }
      const text = [HEADER, ...lines].join(eol) + eol;
      const file = join(dir, `log-${logs++}.jsonl`);
      writeFileSync(file, text);
      expect(outcome(() => readEventLogFile(file, { chunkBytes }))).toEqual(outcome(() => readEventLogText(text, file)));
    },
  );

  it('counts lines across chunks when naming the line of an error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-'));
    const file = join(dir, 'log.jsonl');
    writeFileSync(file, [HEADER, route, eps, '{"at":"ünïcödé","type":"network.heal"}'].join('\n') + '\n');
    expect(() => [...readEventLogFile(file, { chunkBytes: 3 })]).toThrow(`${file}:4: field 'at': `);
  });

  it('stops for good after an early return or an error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-'));
    const file = join(dir, 'log.jsonl');
    writeFileSync(file, [HEADER, route, eps, 'garbage', route].join('\n'));
    const early = readEventLogFile(file)[Symbol.iterator]();
    expect(early.next().done).toBe(false);
    expect(early.return?.().done).toBe(true);
    expect(early.next().done).toBe(true);
    const failing = readEventLogFile(file)[Symbol.iterator]();
    failing.next();
    failing.next();
    expect(() => failing.next()).toThrow(/not valid JSON/);
    expect(failing.next().done).toBe(true);
  });

  it('hands out every event before a bad line, across batches, and then the error for that line', () => {
    // Lines are parsed EVENT_BATCH at a time; put the bad line in the middle of the third batch, so two whole
    // batches and part of a third come before it. Event k (1-based) is on line k + 1, after the header.
    const before = 2 * EVENT_BATCH + Math.floor(EVENT_BATCH / 2);
    const events = Array.from({ length: before }, (_, i) => `{"at":${i},"type":"endpoints.delete","namespace":"ns","service":"s${i}"}`);
    const dir = mkdtempSync(join(tmpdir(), 'rb-'));
    const file = join(dir, 'log.jsonl');
    writeFileSync(file, [HEADER, ...events, '{"at":1,"type":"network.heal"}', ...events].join('\n'));
    const it = readEventLogFile(file)[Symbol.iterator]();
    for (let i = 0; i < before; i++) expect(it.next().value, `event ${i + 1}`).toMatchObject({ at: i, service: `s${i}` });
    // The bad line is line before + 2 (header, then `before` events): time goes back from before - 1 to 1.
    expect(() => it.next()).toThrow(`${file}:${before + 2}: field 'at': time goes backwards: 1 ms after ${before - 1} ms`);
    expect(it.next().done).toBe(true);
  });

  it('names the first bad line when a batch holds two: a schema error before a line that is not JSON', () => {
    // Lines are parsed ahead in two passes (JSON, then the schema); the earlier line's error must still win.
    expect(errorOf([HEADER, route, '{"at":1,"type":"route.delete","namespace":"a"}', eps, '{"at":'])).toMatchObject({ line: 3, field: 'name' });
    expect(errorOf([HEADER, route, '{"at":', '{"at":1,"type":"route.delete","namespace":"a"}'])).toMatchObject({ line: 3 });
  });

  it('reports a missing file only when reading starts', () => {
    const events = readEventLogFile(join(tmpdir(), 'rb-no-such-dir', 'none.jsonl'));
    const it = events[Symbol.iterator]();
    expect(() => it.next()).toThrow(/ENOENT/);
  });
});
