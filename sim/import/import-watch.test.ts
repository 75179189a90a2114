import { describe, expect, test } from 'vitest';
import type { InputEvent } from '../../core/events.ts';
import { InputError } from '../eventlog/input-error.ts';
import { importSummary } from './import-summary.ts';
import { importWatch, type ImportProblem, type ImportStats } from './import-watch.ts';
import { JsonObjectSplitter } from './json-stream.ts';

const route = (type: string, name: string, time: string, extra: Record<string, unknown> = {}) => ({
  type,
  object: {
    apiVersion: 'route.openshift.io/v1',
    kind: 'Route',
    metadata: {
      name,
      namespace: 'shop',
      creationTimestamp: time,
      annotations: { 'haproxy.router.openshift.io/timeout': '30s', 'kubectl.kubernetes.io/last-applied-configuration': '{...}' },
      managedFields: [{ manager: 'kubectl', time }],
    },
    spec: { host: `${name}.apps.example.com`, to: { kind: 'Service', name: 'web', weight: 100 }, port: { targetPort: 'http' }, tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'Redirect' }, wildcardPolicy: 'None', ...extra },
  },
});

const endpoints = (type: string, time: string, ips: string[], notReady: string[] = []) => ({
  type,
  object: {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'web', namespace: 'shop', creationTimestamp: '2026-11-29T10:00:00Z', managedFields: [{ manager: 'kube-controller-manager', time }] },
    subsets: [
      {
        addresses: ips.map((ip, i) => ({ ip, targetRef: { kind: 'Pod', name: `web-${i}` } })),
        notReadyAddresses: notReady.map((ip) => ({ ip, targetRef: { kind: 'Pod', name: `web-nr` } })),
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ],
  },
});

/** kubectl prints each object pretty-printed, one after another. */
const kubectl = (objects: unknown[]) => objects.map((o) => JSON.stringify(o, null, 4)).join('\n');

function run(text: string, options: { strict?: boolean; spacingMs?: number; chunk?: number; startEpochMs?: number } = {}) {
  const problems: ImportProblem[] = [];
  const stats: ImportStats = { objects: 0, events: 0, skipped: 0, raisedTimes: 0 };
  const size = options.chunk ?? text.length;
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  const opts: { file: string; strict?: boolean; spacingMs?: number; startEpochMs?: number } = { file: 'watch.json' };
  if (options.strict) opts.strict = true;
  if (options.startEpochMs !== undefined) opts.startEpochMs = options.startEpochMs;
  if (options.spacingMs !== undefined) opts.spacingMs = options.spacingMs;
  const events: InputEvent[] = [...importWatch(chunks, opts, (p) => problems.push(p), stats)];
  return { events, problems, stats };
}

describe('importWatch', () => {
  const stream = kubectl([
    endpoints('ADDED', '2026-11-29T10:00:00Z', ['10.1.0.1', '10.1.0.2']),
    route('ADDED', 'front', '2026-11-29T10:00:01Z'),
    endpoints('MODIFIED', '2026-11-29T10:00:05.500Z', ['10.1.0.1'], ['10.1.0.3']),
    route('DELETED', 'front', '2026-11-29T10:01:00Z'),
    endpoints('DELETED', '2026-11-29T10:02:00Z', []),
  ]);

  test('routes and endpoints become v1 events timed from the objects', () => {
    const { events, problems } = run(stream);
    expect(problems).toEqual([]);
    // Times relative to the first event (10:00:00): +1 s, +5.5 s, +60 s, +120 s.
    expect(events.map((e) => [e.at, e.type])).toEqual([
      [0, 'endpoints.set'],
      [1000, 'route.upsert'],
      [5500, 'endpoints.set'],
      [60_000, 'route.delete'],
      [120_000, 'endpoints.delete'],
    ]);
    expect(events[1]).toEqual({
      at: 1000,
      type: 'route.upsert',
      route: {
        namespace: 'shop',
        name: 'front',
        host: 'front.apps.example.com',
        service: 'web',
        targetPort: 'http',
        tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'Redirect' },
        wildcardPolicy: 'None',
        // Only the router's annotations are kept.
        annotations: { 'haproxy.router.openshift.io/timeout': '30s' },
        // creationTimestamp 10:00:01, 1 s after the first object's time (the log's 0).
        createdAt: 1000,
      },
    });
    expect(events[2]).toEqual({
      at: 5500,
      type: 'endpoints.set',
      namespace: 'shop',
      service: 'web',
      endpoints: [
        { ip: '10.1.0.1', port: 8080, name: 'web-0', portName: 'http' },
        { ip: '10.1.0.3', port: 8080, name: 'web-nr', ready: false, portName: 'http' },
      ],
    });
  });

  test('a multi-port service lists port by port, keeps port names, drops UDP ports and non-pod target names', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'web', namespace: 'shop', creationTimestamp: '2026-11-29T10:00:00Z' },
      subsets: [
        {
          addresses: [
            { ip: '10.1.0.1', targetRef: { kind: 'Pod', name: 'web-0' } },
            { ip: '10.1.0.2', targetRef: { kind: 'Node', name: 'node-a' } },
          ],
          ports: [
            { name: 'https', port: 8443, protocol: 'TCP' },
            { name: 'dns', port: 53, protocol: 'UDP' },
            { port: 8080 },
          ],
        },
      ],
    };
    // createRouterEndpoints: for each port (UDP skipped by default), every address; only a Pod targetRef
    // names the pod. So 2 TCP ports × 2 addresses = 4 endpoints, https ones first.
    expect(run(JSON.stringify({ type: 'ADDED', object })).events[0]).toMatchObject({
      endpoints: [
        { ip: '10.1.0.1', port: 8443, name: 'web-0', portName: 'https' },
        { ip: '10.1.0.2', port: 8443, portName: 'https' },
        { ip: '10.1.0.1', port: 8080, name: 'web-0' },
        { ip: '10.1.0.2', port: 8080 },
      ],
    });
    const eps = (run(JSON.stringify({ type: 'ADDED', object })).events[0] as { endpoints: object[] }).endpoints;
    expect(eps[1]).not.toHaveProperty('name');
    expect(eps[2]).not.toHaveProperty('portName');
  });

  test('a port name that is not a DNS label is a problem at its field', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'web', namespace: 'shop' },
      subsets: [{ addresses: [{ ip: '10.1.0.1' }], ports: [{ name: 'Web Port', port: 8080 }] }],
    };
    const { problems } = run(JSON.stringify({ type: 'ADDED', object }));
    expect(problems.map((p) => p.field)).toEqual(['object.subsets[0].ports[0].name']);
  });

  test('a route host OpenShift would refuse is a problem at spec.host, and the route is skipped', () => {
    const { events, problems } = run(kubectl([route('ADDED', 'bad', '2026-11-29T10:00:00Z', { host: 'x y.com' }), route('ADDED', 'good', '2026-11-29T10:00:01Z')]));
    expect(problems.map((p) => [p.field, p.message])).toEqual([['object.spec.host', expect.stringMatching(/^Route shop\/bad: expected a host name .*DNS-1123 subdomain.*; got "x y.com"$/)]]);
    expect(events.map((e) => e.type === 'route.upsert' && e.route.name)).toEqual(['good']);
  });

  test('the result does not depend on how the input is chunked', () => {
    expect(run(stream, { chunk: 7 }).events).toEqual(run(stream).events);
  });

  test('--spacing-ms ignores object times', () => {
    const { events } = run(stream, { spacingMs: 250 });
    expect(events.map((e) => e.at)).toEqual([0, 250, 500, 750, 1000]);
    // Its times are no clock, so no creation time is carried over either: a route's age is its first upsert.
    expect(events[1]).toMatchObject({ type: 'route.upsert' });
    expect((events[1] as Extract<InputEvent, { type: 'route.upsert' }>).route.createdAt).toBeUndefined();
  });

  test('a time earlier than the previous event is raised to it (stream order wins)', () => {
    const { events, stats } = run(kubectl([route('ADDED', 'a', '2026-11-29T10:00:10Z'), route('ADDED', 'b', '2026-11-29T09:00:00Z'), route('ADDED', 'c', '2026-11-29T10:00:11Z')]));
    expect(events.map((e) => e.at)).toEqual([0, 0, 1000]);
    expect(stats.raisedTimes).toBe(1);
    // The routes keep their creation times, so b (09:00:00, an hour and 10 s before a) is still the oldest
    // where the router weighs ages.
    expect(events.map((e) => (e as Extract<InputEvent, { type: 'route.upsert' }>).route.createdAt)).toEqual([0, -3_610_000, 1000]);
    // Without --start the first object is time 0: b's negative time is earlier than a's, not before a start.
    expect(stats.beforeStart ?? 0).toBe(0);
  });

  test('with --start, times before it are counted apart from times earlier than the previous event', () => {
    // Start 10:00:03. a (10:00:01) and b (10:00:02) are before it: both to 0, counted as before the start.
    // c (10:00:05) is at 2000. d (10:00:04) is after the start but before c: raised to 2000. e (10:00:00)
    // is before the start and, arriving after c, goes to c's 2000: the start is the cause, so it counts there.
    const { events, stats } = run(
      kubectl([
        route('ADDED', 'a', '2026-11-29T10:00:01Z'),
        route('ADDED', 'b', '2026-11-29T10:00:02Z'),
        route('ADDED', 'c', '2026-11-29T10:00:05Z'),
        route('ADDED', 'd', '2026-11-29T10:00:04Z'),
        route('ADDED', 'e', '2026-11-29T10:00:00Z'),
      ]),
      { startEpochMs: Date.parse('2026-11-29T10:00:03Z') },
    );
    expect(events.map((e) => e.at)).toEqual([0, 0, 2000, 2000, 2000]);
    // Creation times against the start (10:00:03), before it negative: -2 s, -1 s, +2 s, +1 s, -3 s.
    expect(events.map((e) => (e as Extract<InputEvent, { type: 'route.upsert' }>).route.createdAt)).toEqual([-2000, -1000, 2000, 1000, -3000]);
    expect({ beforeStart: stats.beforeStart, raisedTimes: stats.raisedTimes }).toEqual({ beforeStart: 3, raisedTimes: 1 });
    expect(importSummary(stats)).toBe(
      "imported 5 events from 5 objects; 0 skipped; 3 timestamps earlier than --start were raised to time 0 (or to the previous event's time, if later); 1 timestamp earlier than the previous event's was raised to it",
    );
  });

  test('the audit case: two events before --start are not called earlier than the previous event', () => {
    const { stats } = run(kubectl([route('ADDED', 'a', '2026-11-29T10:00:01Z'), route('ADDED', 'b', '2026-11-29T10:00:02Z'), route('ADDED', 'c', '2026-11-29T10:00:04Z')]), {
      startEpochMs: Date.parse('2026-11-29T10:00:03Z'),
    });
    expect(importSummary(stats)).toBe("imported 3 events from 3 objects; 0 skipped; 2 timestamps earlier than --start were raised to time 0 (or to the previous event's time, if later)");
  });

  test('the summary leaves out what did not happen', () => {
    expect(importSummary({ objects: 2, events: 2, skipped: 0, raisedTimes: 0 })).toBe('imported 2 events from 2 objects; 0 skipped');
  });

  test('endpoint slices of one service are merged; deleting the last deletes the endpoints', () => {
    const slice = (type: string, name: string, ips: string[]) => ({
      type,
      object: {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        addressType: 'IPv4',
        metadata: { name, namespace: 'shop', labels: { 'kubernetes.io/service-name': 'web' }, creationTimestamp: '2026-11-29T10:00:00Z' },
        endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
        ports: [{ name: 'http', port: 8080 }],
      },
    });
    const { events } = run(kubectl([slice('ADDED', 'web-a', ['10.0.0.1']), slice('ADDED', 'web-b', ['10.0.0.2']), slice('DELETED', 'web-a', []), slice('DELETED', 'web-b', [])]), { spacingMs: 1 });
    expect(events.map((e) => (e.type === 'endpoints.set' ? e.endpoints.map((x) => x.ip) : e.type))).toEqual([
      ['10.0.0.1'],
      ['10.0.0.1', '10.0.0.2'],
      ['10.0.0.2'],
      'endpoints.delete',
    ]);
  });

  test('endpoint slices read as the router converts them: slices by name, addresses by IP, ports by number, port by port', () => {
    const object = (name: string, ips: string[]) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      addressType: 'IPv4',
      metadata: { name, namespace: 'shop', labels: { 'kubernetes.io/service-name': 'web' } },
      endpoints: ips.map((ip) => ({ addresses: [ip] })),
      ports: [
        { name: 'https', port: 8443, protocol: 'TCP' },
        { name: 'http', port: 8080, protocol: 'TCP' },
      ],
    });
    // Slice web-b arrives first, and lists 10.0.0.10 before 10.0.0.9; the router sorts slices by name and
    // addresses by their bytes (9 < 10), and lists each slice port by port, 8080 before 8443.
    const { events } = run(kubectl([{ type: 'ADDED', object: object('web-b', ['10.0.0.10', '10.0.0.9']) }, { type: 'ADDED', object: object('web-a', ['10.0.0.20']) }]), { spacingMs: 1 });
    const last = events.at(-1)!;
    expect(last.type === 'endpoints.set' && last.endpoints.map((x) => `${x.ip}:${x.port}`)).toEqual([
      '10.0.0.20:8080',
      '10.0.0.20:8443',
      '10.0.0.9:8080',
      '10.0.0.10:8080',
      '10.0.0.9:8443',
      '10.0.0.10:8443',
    ]);
    // IPv6 compares by value too: ::9 < ::10 (hex 0x10) < ::1:0.
    const v6 = { ...object('web-6', ['fd00::1:0', 'fd00::10', 'fd00::9']), addressType: 'IPv6', ports: [{ name: 'http', port: 8080 }] };
    const six = run(JSON.stringify({ type: 'ADDED', object: v6 })).events[0]!;
    expect(six.type === 'endpoints.set' && six.endpoints.map((x) => x.ip)).toEqual(['fd00::9', 'fd00::10', 'fd00::1:0']);
  });

  test('malformed and unknown objects are reported with their position and skipped', () => {
    const good = JSON.stringify(route('ADDED', 'ok', '2026-11-29T10:00:00Z'));
    const text = [
      good,
      '{"type":"ADDED","object":{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"shop"}}}',
      '{"type":"ADDED","object":{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"nohost","namespace":"shop"},"spec":{"to":{"name":"web"}}}}',
      'garbage here',
      '{"type":"ADDED", "object": {"bad json": }}',
      '{"type":"ADDED","object":' + JSON.stringify(endpoints('ADDED', '2026-11-29T10:00:00Z', ['10.0.0.999']).object) + '}',
      '{"type":"ERROR","object":{"kind":"Status","message":"too old resource version"}}',
      '{"type":"ADDED","object":{"kind":"Route","metadata":{"name":"noapi","namespace":"shop"}}}',
    ].join('\n');
    const { events, problems, stats } = run(text);
    expect(events.map((e) => e.type)).toEqual(['route.upsert']);
    expect(problems.map((p) => [p.line, p.column, p.field])).toEqual([
      [2, 1, 'object.kind'],
      [3, 1, 'object.spec.host'],
      [4, 1, undefined],
      [5, 1, undefined],
      [6, 1, undefined],
      [7, 1, 'object'],
      [8, 1, 'object.apiVersion'],
    ]);
    expect(problems[0]!.message).toMatch(/unsupported object "v1" "Service"/);
    expect(problems[2]!.message).toMatch(/not a JSON object: "garbagehere"/);
    expect(problems[3]!.message).toMatch(/not valid JSON/);
    expect(problems[4]!.message).toMatch(/Endpoints shop\/web: the resulting endpoints.set event is invalid: endpoints\[0\].ip/);
    expect(problems[5]!.message).toMatch(/watch error: too old resource version/);
    expect(problems[6]!.message).toMatch(/an object without apiVersion/);
    expect(stats).toMatchObject({ objects: 7, events: 1, skipped: 7 });
  });

  test('--strict rejects the first problem as an InputError with its position', () => {
    const text = `${JSON.stringify(route('ADDED', 'ok', '2026-11-29T10:00:00Z'))}\n  {"type":"WEIRD","object":{}}`;
    let err: unknown;
    try {
      run(text, { strict: true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ file: 'watch.json', line: 2, column: 3, field: 'type' });
  });

  test('a truncated stream reports the unfinished object', () => {
    const { problems } = run('{"type":"ADDED","object":{"kind":"Route"');
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/truncated/);
  });

  test('bare objects and Lists (kubectl without --output-watch-events) read as upserts', () => {
    const r = route('ADDED', 'bare', '2026-11-29T10:00:00Z').object;
    const { events } = run(kubectl([{ apiVersion: 'v1', kind: 'List', items: [r] }, r]));
    expect(events.map((e) => e.type)).toEqual(['route.upsert', 'route.upsert']);
  });
});

test('JsonObjectSplitter keeps braces inside strings and escapes apart', () => {
  const s = new JsonObjectSplitter();
  const parts = [...s.push('{"a":"}{\\"", "b": [1,{"c":2}]}\n {"d'), ...s.push('":1}'), ...s.end()];
  expect(parts).toEqual([
    { text: '{"a":"}{\\"", "b": [1,{"c":2}]}', line: 1, column: 1 },
    { text: '{"d":1}', line: 2, column: 2 },
  ]);
});

describe('hostile watch streams', () => {
  test('one huge unterminated object is refused at the object limit, naming where it starts, not read to the end', () => {
    // A limit of 1,000 characters stands in for the 64 MiB default; the object never closes.
    const text = `\n  {"type":"ADDED","object":{"metadata":{"name":"${'a'.repeat(5000)}`;
    const chunks = Array.from({ length: 50 }, (_, i) => text.slice(i * 200, (i + 1) * 200)).filter((c) => c !== '');
    const events = importWatch(chunks, { file: 'watch.json', maxObjectChars: 1000 });
    expect(() => [...events]).toThrow(new InputError('watch.json', 'an object longer than 1000 characters starts here, past the limit for one object (docs/limits.md; ROUTERBENCH_MAX_IMPORT_OBJECT_BYTES raises it)', 2, undefined, 3));
  });

  test('endless text with no object and no line break (/dev/zero) is refused at the object limit instead of read forever', () => {
    // 50 chunks of 200 NUL characters: 10,000 characters, ten times the 1,000-character limit standing in for
    // 64 MiB. NUL is not JSON whitespace, so it is stray text from line 1, column 1 on.
    const chunks = Array.from({ length: 50 }, () => '\u0000'.repeat(200));
    let read = 0;
    const counted = (function* () {
      for (const c of chunks) {
        read++;
        yield c;
      }
    })();
    expect(() => [...importWatch(counted, { file: 'zero', maxObjectChars: 1000 })]).toThrow(
      new InputError('zero', 'not a watch stream: more than 1000 characters from here hold no JSON object and no line break (a binary file?)', 1, undefined, 1),
    );
    // The 1,001st character is in the sixth chunk: nothing past it is read.
    expect(read).toBe(6);
  });

  test('stray lines shorter than the limit are each a problem, however many there are', () => {
    const problems: unknown[] = [];
    const text = 'x'.repeat(600) + '\n' + 'y'.repeat(600) + '\n';
    expect([...importWatch([text], { file: 'w', maxObjectChars: 1000 }, (p) => problems.push(p))]).toEqual([]);
    expect(problems).toHaveLength(2);
  });

  test('an object within the limit still imports', () => {
    const text = kubectl([route('ADDED', 'front', '2026-11-29T10:00:01Z')]);
    expect([...importWatch([text], { file: 'watch.json', maxObjectChars: text.length })]).toHaveLength(1);
    expect(() => [...importWatch([text], { file: 'watch.json', maxObjectChars: text.length - 1 })]).toThrow('an object longer than');
  });

  test('a time that is not RFC 3339 is a problem naming the field, skipped or under --strict refused, never time 0', () => {
    const stream = kubectl([route('ADDED', 'first', '2026-11-29T10:00:00Z'), route('ADDED', 'second', 'yesterday at noon')]);
    const { events, problems } = run(stream);
    expect(events.map((e) => e.at)).toEqual([0]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ field: 'object.metadata.managedFields[0].time', message: 'Route shop/second: not an RFC 3339 time such as 2026-11-29T19:00:00Z: "yesterday at noon"' });
    expect(() => run(stream, { strict: true })).toThrow("field 'object.metadata.managedFields[0].time': Route shop/second: not an RFC 3339 time");
    // With --spacing-ms the objects' times are not read, so they cannot be wrong.
    expect(run(stream, { spacingMs: 10 }).events.map((e) => e.at)).toEqual([0, 10]);
  });

  test('a 100,000-character name with NUL bytes is quoted in a bounded, escaped excerpt', () => {
    const bad = route('ADDED', `x\u0000${'n'.repeat(100_000)}`, '2026-11-29T10:00:00Z');
    let err: unknown;
    try {
      run(kubectl([bad]), { strict: true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    const message = (err as Error).message;
    expect(message.length).toBeLessThan(1200);
    expect(message).not.toMatch(/\u0000/);
    expect(message).toContain('x\\x00nnn');
  });
});
