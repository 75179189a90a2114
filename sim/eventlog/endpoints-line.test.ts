import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../../core/endpoint.ts';
import { restrictedAddress } from '../../core/endpoint-address-filter.ts';
import { compareEndpoints } from '../../core/endpoint-order.ts';
import { VouchedEndpointsSet } from '../../core/vouched-endpoints-set.ts';
import { MAX_AT_MS } from './event-time.ts';
import { parseEventLine } from './event-log-reader.ts';
import { scanEndpointsSet } from './endpoints-line.ts';

/** What JSON.parse and the validator make of a line, as text (so the fields' order counts), or undefined if they refuse it. */
function reference(line: string): string | undefined {
  try {
    return JSON.stringify(parseEventLine(line, 'log', 2));
  } catch {
    return undefined;
  }
}

/** The line's bytes between others, as the line cursor hands them over: after earlier lines, before "\r\n", "\n" or the end. */
function scan(line: string, before = '{"at":1}\n', after = '\n{"at":2}'): ReturnType<typeof scanEndpointsSet> {
  const bytes = Buffer.from(before + line + after, 'utf8');
  const from = Buffer.byteLength(before);
  return scanEndpointsSet(bytes, from, from + Buffer.byteLength(line));
}

/** The scanner's event as text; a scanned event must be exactly the reference's. */
function scanned(line: string, before?: string, after?: string): string | undefined {
  const e = scan(line, before, after);
  return e === undefined ? undefined : JSON.stringify(e);
}

const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?$/);
const subdomain = fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => labels.join('.'));
const quad = fc.ipV4();
// The optional fields as the generator (name, ready, portName) and the importer (ready, name, portName) write them.
const endpoint = fc
  .record({ ip: quad, port: fc.integer({ min: 1, max: 65535 }), name: fc.option(subdomain, { nil: undefined }), ready: fc.option(fc.boolean(), { nil: undefined }), portName: fc.option(label, { nil: undefined }), importer: fc.boolean() })
  .map(({ ip, port, name, ready, portName, importer }) => {
    const e: Record<string, unknown> = { ip, port };
    if (importer && ready !== undefined) e['ready'] = ready;
    if (name !== undefined) e['name'] = name;
    if (!importer && ready !== undefined) e['ready'] = ready;
    if (portName !== undefined) e['portName'] = portName;
    return e;
  });
const at = fc.oneof(fc.integer({ min: 0, max: 10 ** 9 }), fc.constantFrom(0, MAX_AT_MS));
/** A line as routerbench writes one: JSON.stringify of a valid endpoints.set event. */
const written = fc
  .record({ at, namespace: label, service: subdomain, endpoints: fc.array(endpoint, { maxLength: 6 }) })
  .map(({ at, namespace, service, endpoints }) => JSON.stringify({ at, type: 'endpoints.set', namespace, service, endpoints }));
/** What may surround a line in the cursor's bytes. */
const before = fc.constantFrom('', '{"at":1}\n', '}\n', '"\n');
const after = fc.constantFrom('', '\n', '\r\n', '\n}', '\r\n"]}', '\n{"at":2}');

/** Characters that matter to JSON, to the names' rules and to the numbers. */
const edit = fc.constantFrom(' ', '"', '\\', ',', ':', '{', '}', '[', ']', '.', '-', '0', '1', '9', 'a', 'A', 'e', '_', 'é', '\u0000', 'true', 'null', '"x":1');

describe('scanEndpointsSet', () => {
  test.prop([written, before, after])('reads every line routerbench writes, exactly as JSON.parse and the validator do', (line, b, a) => {
    const ref = reference(line);
    expect(ref).toBeDefined();
    expect(scanned(line, b, a)).toBe(ref);
  });

  // Each edit makes a line the scanner may give up on, but what it accepts must be the reference's event.
  test.prop([written, fc.nat(), fc.nat({ max: 3 }), edit, before, after], { numRuns: 3000 })('never accepts a line the reference refuses, nor reads one differently', (line, where, cut, text, b, a) => {
    const i = where % (line.length + 1);
    const edited = line.slice(0, i) + text + line.slice(Math.min(line.length, i + cut));
    const got = scanned(edited, b, a);
    if (got !== undefined) expect(got).toBe(reference(edited));
  });

  // Few addresses, ports and port names, so that lists in order and ties are common.
  const tied = fc.record(
    {
      // Restricted ones too: unspecified, loopback, link-local, multicast, the metadata address, and their neighbours.
      ip: fc.constantFrom('10.0.0.1', '10.0.0.2', '10.0.0.10', '9.255.255.255', '10.128.3.4', '0.0.0.0', '0.0.0.1', '127.0.0.1', '169.254.0.1', '169.253.255.255', '224.0.0.1', '239.255.255.255', '240.0.0.1', '168.63.129.16', '168.63.129.17'),
      port: fc.constantFrom(80, 443, 8080),
      portName: fc.constantFrom('http', 'https', 'web'),
      name: fc.constantFrom('a', 'b'),
    },
    { requiredKeys: ['ip', 'port'] },
  );
  test.prop([fc.array(tied, { maxLength: 6 })], { numRuns: 3000 })('vouches for a list exactly when it is in the router’s order and the address filter keeps every address', (endpoints) => {
    const line = JSON.stringify({ at: 1, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints });
    const e = scan(line);
    expect(JSON.stringify(e)).toBe(reference(line));
    const inOrder = endpoints.every((x, i) => i === 0 || compareEndpoints(endpoints[i - 1] as Endpoint, x as Endpoint) <= 0);
    const allKept = endpoints.every((x) => restrictedAddress(x.ip) === undefined);
    expect(e instanceof VouchedEndpointsSet).toBe(inOrder && allKept);
  });

  it('gives the type as the constant, as the fast check does', () => {
    const e = scan('{"at":5,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[]}');
    expect(e?.type).toBe('endpoints.set');
    expect(e).toEqual({ at: 5, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints: [] });
  });

  // Each of these is valid JSON the validator accepts (or refuses, and words why): the scanner leaves them
  // to JSON.parse rather than read them.
  it.each([
    ['spaces', '{ "at":5,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[]}'],
    ['an escape', '{"at":5,"type":"endpoints.set","namespace":"n\\u0073","service":"s","endpoints":[]}'],
    ['a time written 5.0', '{"at":5.0,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[]}'],
    ['a time written 5e0', '{"at":5e0,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[]}'],
    ['fields in another order', '{"type":"endpoints.set","at":5,"namespace":"ns","service":"s","endpoints":[]}'],
    ['a repeated name', '{"at":5,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[{"ip":"10.0.0.1","port":80,"name":"a","name":"b"}]}'],
    ['port before ip', '{"at":5,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[{"port":80,"ip":"10.0.0.1"}]}'],
  ])('leaves a line with %s to JSON.parse', (_what, line) => {
    expect(reference(line)).toBeDefined();
    expect(scan(line)).toBeUndefined();
  });

  // The edges of each rule, every one refused by the validator too.
  it.each([
    ['a time past MAX_AT_MS', `{"at":${MAX_AT_MS + 1},"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[]}`],
    ['port 0', '{"at":5,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[{"ip":"10.0.0.1","port":0}]}'],
    ['port 65536', '{"at":5,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[{"ip":"10.0.0.1","port":65536}]}'],
    ['an octet of 256', '{"at":5,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[{"ip":"10.0.0.256","port":80}]}'],
    ['an octet with a leading zero', '{"at":5,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[{"ip":"10.0.0.01","port":80}]}'],
    ['a namespace of 64 characters', `{"at":5,"type":"endpoints.set","namespace":"${'n'.repeat(64)}","service":"s","endpoints":[]}`],
    ['a dot in the namespace', '{"at":5,"type":"endpoints.set","namespace":"n.s","service":"s","endpoints":[]}'],
    ['a service label ending in -', '{"at":5,"type":"endpoints.set","namespace":"ns","service":"s-.x","endpoints":[]}'],
    ['an empty label', '{"at":5,"type":"endpoints.set","namespace":"ns","service":"s..x","endpoints":[]}'],
    ['an unknown field', '{"at":5,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[{"ip":"10.0.0.1","port":80,"weight":1}]}'],
    ['ready as a string', '{"at":5,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[{"ip":"10.0.0.1","port":80,"ready":"true"}]}'],
  ])('refuses %s, as the validator does', (_what, line) => {
    expect(reference(line)).toBeUndefined();
    expect(scan(line)).toBeUndefined();
  });

  it('reads the longest names the rules allow', () => {
    // 3 labels of 63 and one of 61, with 3 dots: 253 characters, the subdomain limit.
    const service = ['a', 'b', 'c'].map((c) => c.repeat(63)).join('.') + '.' + 'd'.repeat(61);
    const line = `{"at":${MAX_AT_MS},"type":"endpoints.set","namespace":"${'n'.repeat(63)}","service":"${service}","endpoints":[{"ip":"255.255.255.255","port":65535,"name":"p","portName":"${'h'.repeat(63)}"}]}`;
    expect(scanned(line)).toBe(reference(line));
    expect(scan(line.replace(service, `${service}d`))).toBeUndefined();
  });

  // Names of up to 16 bytes are made one way, longer ones another: every length on both sides of that.
  it('reads names of every length from 1 to 40', () => {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const endpoints = Array.from({ length: 40 }, (_, k) => ({ ip: '10.0.0.1', port: 80, name: alphabet.repeat(2).slice(k % 7, k % 7 + k + 1) }));
    const line = JSON.stringify({ at: 1, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints });
    expect(scanned(line)).toBe(reference(line));
  });

  it('reads a line of 1,000 endpoints', () => {
    const endpoints = Array.from({ length: 1000 }, (_, k) => ({ ip: `10.0.${k >> 8}.${k & 255}`, port: 8080, name: `pod-${k}` }));
    const line = JSON.stringify({ at: 1, type: 'endpoints.set', namespace: 'ns', service: 's', endpoints });
    expect(scanned(line)).toBe(reference(line));
  });

  it('reads nothing past the line', () => {
    const line = '{"at":5,"type":"endpoints.set","namespace":"ns","service":"s","endpoints":[]}';
    // The line cut one byte short, with its last byte after it: a scanner that read on would accept it.
    const bytes = Buffer.from(line, 'utf8');
    expect(scanEndpointsSet(bytes, 0, bytes.length - 1)).toBeUndefined();
    expect(scanEndpointsSet(bytes, 0, bytes.length)).toBeDefined();
  });
});
