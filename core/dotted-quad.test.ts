import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { dottedQuadValue, isDottedQuad } from './dotted-quad.ts';

// The rule written as a pattern (zod's IPv4 pattern) and the number by a split: the hand-written loop must agree.
const DOTTED_QUAD = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const octet = fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.constantFrom('00', '010', '1000', ''));
const text = fc.oneof(fc.tuple(octet, octet, octet, octet).map((o) => o.join('.')), fc.ipV4(), fc.string({ maxLength: 16 }));

test.prop([text], { numRuns: 5000 })('reads a dotted quad, and its number, as the pattern and a split do', (s) => {
  const quad = DOTTED_QUAD.test(s);
  expect(isDottedQuad(s)).toBe(quad);
  expect(dottedQuadValue(s)).toBe(quad ? s.split('.').reduce((n, o) => n * 256 + Number(o), 0) : -1);
});
