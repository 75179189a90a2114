import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { routeRegexp, sniRegexp } from '../../core/haproxy/route-regexp.ts';
import { routeKeyMatch } from './route-key-match.ts';

// Characters that matter to the shapes: dots, ports, slashes, line terminators, regex syntax, letters, digits.
const char = fc.constantFrom('a', 'b', 'z', '0', '9', '.', ':', '/', '-', '*', '?', '(', ')', '[', ']', '\\', '$', '^', '|', '+', '{', '}', ' ', '\n', '\r', '\u2028', 'É');
const text = (maxLength: number) => fc.array(char, { maxLength }).map((cs) => cs.join(''));
const host = fc.tuple(fc.constantFrom('a', 'www', 'x-1'), fc.array(fc.constantFrom('example', 'com', 'a.b', 'c*', 'd?'), { minLength: 0, maxLength: 3 }), text(3)).map(([h, labels, odd]) => [h, ...labels].join('.') + odd);
const path = fc.oneof(fc.constant(undefined), fc.constantFrom('', '/', '//', '/p', '/p/', '/a.b', '/x y', '/(q)'), text(6).map((t) => `/${t}`));
const key = fc.oneof(
  fc.tuple(host, path, fc.boolean()).map(([h, p, w]) => routeRegexp(h, p, w)),
  fc.tuple(host, fc.boolean()).map(([h, w]) => sniRegexp(h, w)),
);
/** Inputs near a match: a host (the key's, or with a first label), a dot, a port, a path and a tail, then edited. */
const input = fc
  .tuple(host, fc.constantFrom('', 'w', 'x.y'), fc.constantFrom('', '.'), fc.constantFrom('', ':', ':8', ':443', ':44a'), path, text(4), fc.nat(), text(2))
  .map(([h, label, dot, port, p, tail, at, edit]) => {
    const s = `${label === '' ? '' : `${label}.`}${h}${dot}${port}${p ?? ''}${tail}`;
    const i = at % (s.length + 1);
    return s.slice(0, i) + edit + s.slice(i);
  });

describe('routeKeyMatch', () => {
  test.prop([key, fc.array(input, { minLength: 1, maxLength: 8 })], { numRuns: 3000 })('answers as the compiled key does, for every key the router writes', (k, inputs) => {
    const match = routeKeyMatch(k);
    const re = new RegExp(k);
    // A key it does not read is compiled by its caller: only escaped whitespace (`\x20`, `\n`) is outside its shapes.
    if (match === undefined) expect(k).toMatch(/\\[xtrn]/);
    for (const s of [...inputs, k.slice(1, -1).replaceAll('\\', '')]) if (match !== undefined) expect(match(s)).toBe(re.test(s));
  });

  it('reads the matches the regex makes by backtracking into the optional dot and port', () => {
    const k = routeRegexp('h.com', '/:1', false);
    const match = routeKeyMatch(k)!;
    // `:1` is the path, not a port: the port group must match nothing.
    expect(match('h.com/:1')).toBe(true);
    expect(match('h.com:80/:1/x')).toBe(true);
    expect(match('h.com.:80/:1x')).toBe(false);
    // A path starting with digits after a port: the port gives some of its digits back.
    const digits = routeKeyMatch(routeRegexp('h', '9', false))!;
    expect(digits('h:19')).toBe(new RegExp(routeRegexp('h', '9', false)).test('h:19'));
    expect(digits('h:19')).toBe(true);
  });

  it('leaves keys of other shapes to the regex', () => {
    for (const k of ['h', '^h', '^h\\.?(:[0-9]+)?', '^h.*$', '^(a|b)$', '^[^\\.]*h$', '^a\\d$', '^h\\.?(:[0-9]+)?/p(/.*)?']) expect(routeKeyMatch(k)).toBeUndefined();
  });
});
