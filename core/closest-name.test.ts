import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { closestName, editDistance } from './closest-name.ts';

test('edit distance counts insertions, deletions and substitutions', () => {
  // kitten → sitting: k→s, e→i, +g.
  expect(editDistance('kitten', 'sitting')).toBe(3);
  expect(editDistance('', 'abc')).toBe(3);
  expect(editDistance('budgets', 'budget')).toBe(1);
});

test.prop([fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 })])('edit distance is symmetric, zero only for equal strings, at most the longer length', (a, b) => {
  expect(editDistance(a, b)).toBe(editDistance(b, a));
  expect(editDistance(a, b) === 0).toBe(a === b);
  expect(editDistance(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length));
});

test('the closest known name within a quarter of its length, case aside; none when nothing is that close', () => {
  expect(closestName('reloads.totl', ['reloads.total', 'reloads.perHour'])).toBe('reloads.total');
  expect(closestName('MaxDynamicServer', ['maxDynamicServers'])).toBe('maxDynamicServers');
  // The nearer one wins over the first listed.
  expect(closestName('abcd', ['abxy', 'abce'])).toBe('abce');
  expect(closestName('warnings', ['reloads.total'])).toBeUndefined();
});
