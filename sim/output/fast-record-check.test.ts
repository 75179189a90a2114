import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { INPUT_EVENT_TYPES } from '../../core/events.ts';
import { RELOAD_REASONS } from '../../core/reload-reason.ts';
import { looksValidRecord } from './fast-record-check.ts';
import { RecordSchema } from './output-log-reader.ts';
import type { OutputRecordType } from './records.ts';

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

// Valid values, with the edges of each rule: 0, the largest safe integer, -0 (JSON writes it as 0, but a
// caller handing in an object might not).
const time = fc.oneof(fc.integer({ min: 0, max: 10_000_000_000 }), fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER));
const count = fc.oneof(fc.nat({ max: 1000 }), fc.constantFrom(0, Number.MAX_SAFE_INTEGER));
const text = fc.oneof(fc.constantFrom('', 'a', 'ns/web', 'set server b/s state ready', 'endpoints-change'), fc.string({ maxLength: 6 }));
const vrrpState = fc.constantFrom('INIT', 'BACKUP', 'MASTER', 'FAULT');

/** One arbitrary of well-formed records per record type of the output log, optional fields sometimes present. */
const VALID: Record<OutputRecordType, fc.Arbitrary<Record<string, unknown>>> = {
  input: fc.record({ atUs: time, type: fc.constant('input'), event: fc.constantFrom(...INPUT_EVENT_TYPES), subject: text }),
  'reload.request': fc.record(
    { atUs: time, type: fc.constant('reload.request'), reason: fc.constantFrom(...RELOAD_REASONS), detail: text },
    { requiredKeys: ['atUs', 'type', 'reason'] },
  ),
  'reload.start': fc.record({ atUs: time, type: fc.constant('reload.start'), n: count }),
  'reload.end': fc.record({ atUs: time, type: fc.constant('reload.end'), n: count }),
  'runtime.command': fc.record(
    { atUs: time, type: fc.constant('runtime.command'), line: text, outcome: fc.constantFrom('ok', 'refused', 'reset', 'timeout', 'unavailable', 'broken-pipe'), reply: text },
    { requiredKeys: ['atUs', 'type', 'line', 'outcome'] },
  ),
  'runtime.counts': fc.record({ atUs: time, type: fc.constant('runtime.counts'), ok: fc.dictionary(fc.constantFrom('set server', 'show servers', 'add map', 'x'), count, { maxKeys: 4 }) }),
  'reload.counts': fc.record({ atUs: time, type: fc.constant('reload.counts'), requests: fc.dictionary(fc.constantFrom(...RELOAD_REASONS), count, { maxKeys: 4 }) }),
  'input.counts': fc.record({ atUs: time, type: fc.constant('input.counts'), events: fc.dictionary(fc.constantFrom('endpoints.set', 'endpoints.delete'), count, { maxKeys: 2 }) }),
  'runtime.error': fc.record({ atUs: time, type: fc.constant('runtime.error'), detail: text }),
  note: fc.record({ atUs: time, type: fc.constant('note'), message: text }),
  warning: fc.record({ atUs: time, type: fc.constant('warning'), message: text }),
  invariant: fc.record({ atUs: time, type: fc.constant('invariant'), name: text, violations: fc.array(text, { maxLength: 3 }) }),
  'vrrp.state': fc.record(
    {
      atUs: time,
      type: fc.constant('vrrp.state'),
      node: text,
      vrid: count,
      vip: text,
      from: vrrpState,
      to: vrrpState,
      priority: fc.oneof(fc.integer({ min: -300, max: 300 }), fc.constantFrom(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)),
      cause: text,
    },
    { requiredKeys: ['atUs', 'type', 'node', 'vrid', 'vip', 'from', 'to', 'priority'] },
  ),
  'vrrp.garp': fc.record(
    { atUs: time, type: fc.constant('vrrp.garp'), node: text, vrid: count, vip: text, reason: fc.constantFrom('master', 'repeat', 'lower-prio', 'reload') },
    { requiredKeys: ['atUs', 'type', 'node', 'vrid', 'vip'] },
  ),
  'vrrp.node': fc.record({ atUs: time, type: fc.constant('vrrp.node'), node: text, live: fc.boolean(), cause: text }),
  'vrrp.address': fc.record({ atUs: time, type: fc.constant('vrrp.address'), node: text, vrid: count, vip: text, change: fc.constantFrom('added', 'removed', 'stale'), cause: text }),
  'vrrp.membership': fc.record(
    {
      atUs: time,
      type: fc.constant('vrrp.membership'),
      node: text,
      change: fc.constantFrom('join', 'leave', 'peers-updated'),
      ip: text,
      priority: fc.integer({ min: 1, max: 255 }),
      preempt: fc.boolean(),
      preemptDelayMs: count,
    },
    { requiredKeys: ['atUs', 'type', 'node', 'change'] },
  ),
  'vrrp.exposure': fc.record({ atUs: time, type: fc.constant('vrrp.exposure'), node: text, open: fc.boolean(), vips: count }),
  'vrrp.stats': fc.record(
    {
      atUs: time,
      type: fc.constant('vrrp.stats'),
      advertsSent: count,
      packetsSent: count,
      deliveries: count,
      dropped: count,
      mode: fc.constantFrom('multicast', 'unicast'),
      nodes: count,
      instances: count,
      intervalDrops: count,
    },
    { requiredKeys: ['atUs', 'type', 'advertsSent', 'packetsSent', 'deliveries', 'dropped'] },
  ),
  'run.end': fc.record({ atUs: time, type: fc.constant('run.end'), events: count, simulatedMs: fc.oneof(fc.double({ min: 0, max: 1e9, noNaN: true }), fc.constantFrom(0, 0.5, 1e300)) }),
};
const TYPES = Object.keys(VALID) as OutputRecordType[];
const valid = fc.oneof(...TYPES.map((t) => VALID[t]));

/**
 * Values for a field whatever it is: each record field's wrong types, the number rules' edges (negative,
 * fractional, unsafe, huge), every enum's values in the wrong field and near misses ('Ok', 'master ').
 */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    -1, 1.5, -0.5, 2 ** 53, -(2 ** 53), 1e300, 0, 7, Number.MAX_SAFE_INTEGER, NaN, Infinity, -Infinity,
    '', '5', 'x', 'ok', 'Ok', 'MASTER', 'master', 'master ', 'join', 'unicast', 'initial', 'route.upsert', 'Route.upsert',
    null, true, false, [], ['a'], [1], ['a', null], {}, { a: 1 },
  ),
  text,
  fc.integer({ min: -3, max: 3 }),
  fc.integer(),
  fc.double(),
  fc.array(fc.oneof(text, fc.integer({ min: -1, max: 1 }), fc.constant(null)), { maxLength: 3 }),
);
/** Every field name of any record type, and some no record has. */
const FIELDS = [
  ...new Set(RecordSchema.options.flatMap((o) => Object.keys(o.shape))),
  'extra', 'at', 'Type', '__proto__', 'constructor', 'toString',
];
const field = fc.constantFrom(...FIELDS);
const badType = fc.constantFrom<unknown>('bogus', 'Input', 'runtime.command ', 'vrrp', '', 5, null, ['input'], undefined);

/**
 * A valid record with one thing wrong, or a few: one of its own fields dropped or set to anything (most
 * often, so each record type's own rules are reached), any field set or added, the type changed.
 */
const mutation = fc.oneof(
  fc.record({ op: fc.constant('deleteOwn' as const), index: fc.nat() }),
  fc.record({ op: fc.constant('setOwn' as const), index: fc.nat(), value: anyValue }),
  fc.record({ op: fc.constant('setOwn' as const), index: fc.nat(), value: anyValue }),
  fc.record({ op: fc.constant('set' as const), key: field, value: anyValue }),
  fc.record({ op: fc.constant('type' as const), value: fc.oneof(fc.constantFrom(...TYPES), badType) }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;
function mutate(record: Record<string, unknown>, ms: readonly Mutation[]): Record<string, unknown> {
  const r = { ...record };
  for (const m of ms) {
    const own = Object.keys(r);
    if (m.op === 'deleteOwn') delete r[own[m.index % own.length]!];
    else if (m.op === 'type') r['type'] = m.value;
    // defineProperty, so `__proto__` becomes an own field as JSON.parse makes it, not the prototype.
    else Object.defineProperty(r, m.op === 'set' ? m.key : own[m.index % own.length]!, { value: m.value, enumerable: true, writable: true, configurable: true });
  }
  return r;
}
const mutated = fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([r, ms]) => mutate(r, ms));
/** Records put together from any fields with any values: mostly nonsense, now and then valid. */
const jumble = fc.dictionary(field, anyValue, { maxKeys: 6 }).chain((d) => fc.record({ type: fc.oneof(fc.constantFrom(...TYPES), badType) }).map((t) => ({ ...d, ...t })));
/** Anything, then: what the fast check is held to is that it never accepts what the schema rejects. */
const anything = fc.oneof(valid, mutated, mutated, jumble, anyValue);

/** What the reader hands the check: the value as JSON.parse gives it back. */
const asParsed = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

describe('the fast output record check', () => {
  test.prop([anything], { numRuns: 20_000 })('never accepts a parsed record the schema rejects', (v) => {
    const raw = asParsed(v);
    const schema = RecordSchema.safeParse(raw).success;
    if (looksValidRecord(structuredClone(raw))) expect(schema).toBe(true);
  });

  // Not from JSON: undefined fields, NaN, Infinity, -0, objects with an own __proto__; held to the same.
  test.prop([anything], { numRuns: 10_000 })('never accepts an object the schema rejects', (v) => {
    const schema = RecordSchema.safeParse(v).success;
    if (looksValidRecord(v)) expect(schema).toBe(true);
  });

  test.prop([valid], { numRuns: 5_000 })('accepts the well-formed records of every type itself', (v) => {
    const raw = asParsed(v);
    expect(RecordSchema.safeParse(raw).success).toBe(true);
    expect(looksValidRecord(raw)).toBe(true);
  });

  it('covers every record type of the output log', () => {
    expect(new Set(TYPES)).toEqual(new Set(RecordSchema.options.map((o) => o.shape.type.value)));
  });

  test.prop([valid])('leaves an accepted record as the schema would read it, the type only swapped for the same text', (v) => {
    const raw = asParsed(v) as Record<string, unknown>;
    const parsed = RecordSchema.parse(raw);
    expect(looksValidRecord(raw)).toBe(true);
    expect(raw).toEqual(parsed);
  });

  // Corners too rare for the random records to reach: each is something the schema rejects.
  it.each([
    ['a time beyond the safe integers', '{"atUs":9007199254740992,"type":"reload.start","n":1}'],
    ['a huge time', '{"atUs":1e300,"type":"note","message":"m"}'],
    ['a negative time', '{"atUs":-1,"type":"note","message":"m"}'],
    ['a fractional count', '{"atUs":1,"type":"reload.end","n":1.5}'],
    ['an own __proto__ field', '{"atUs":1,"type":"reload.start","n":1,"__proto__":{}}'],
    ['a reply of null', '{"atUs":1,"type":"runtime.command","line":"x","outcome":"ok","reply":null}'],
    ['an unknown outcome', '{"atUs":1,"type":"runtime.command","line":"x","outcome":"OK"}'],
    ['an unknown input event', '{"atUs":1,"type":"input","event":"route.upsert ","subject":"a/b"}'],
    ['an unknown reload reason', '{"atUs":1,"type":"reload.request","reason":"Initial"}'],
    ['a violation that is not a string', '{"atUs":1,"type":"invariant","name":"n","violations":["a",2]}'],
    ['a fractional priority', '{"atUs":1,"type":"vrrp.state","node":"a","vrid":1,"vip":"v","from":"INIT","to":"MASTER","priority":1.5}'],
    ['a negative simulated time', '{"atUs":1,"type":"run.end","events":1,"simulatedMs":-1}'],
    ['an extra field', '{"atUs":1,"type":"vrrp.stats","advertsSent":1,"packetsSent":1,"deliveries":1,"dropped":0,"extra":1}'],
    ['a count that is not a number', '{"atUs":1,"type":"runtime.counts","ok":{"set server":"3"}}'],
    ['a negative count', '{"atUs":1,"type":"runtime.counts","ok":{"set server":-1}}'],
    ['counts that are an array', '{"atUs":1,"type":"runtime.counts","ok":[3]}'],
    ['folded requests of an unknown reason', '{"atUs":1,"type":"reload.counts","requests":{"endpoint-change":3}}'],
    ['folded requests counted as text', '{"atUs":1,"type":"reload.counts","requests":{"endpoints-change":"3"}}'],
    ['a record that is an array', '[{"atUs":1,"type":"note","message":"m"}]'],
  ])('rejects %s as the schema does', (_what, line) => {
    const raw: unknown = JSON.parse(line);
    expect(RecordSchema.safeParse(raw).success).toBe(false);
    expect(looksValidRecord(raw)).toBe(false);
  });

  // And values no JSON line can be, for callers that hand in objects.
  it.each([
    ['an infinite simulated time', { atUs: 1, type: 'run.end', events: 1, simulatedMs: Infinity }],
    ['a simulated time of NaN', { atUs: 1, type: 'run.end', events: 1, simulatedMs: NaN }],
    ['an infinite time', { atUs: Infinity, type: 'note', message: 'm' }],
    ['an array with the fields of a record', Object.assign([], { atUs: 1, type: 'note', message: 'm' })],
  ])('rejects %s as the schema does', (_what, raw) => {
    expect(RecordSchema.safeParse(raw).success).toBe(false);
    expect(looksValidRecord(raw)).toBe(false);
  });
});
