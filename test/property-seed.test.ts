import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { propertySeed } from './property-seed.ts';

describe('the property tests\' seed (ROUTERBENCH_PROPERTY_SEED)', () => {
  test('unset or empty: none, so each run draws new cases', () => {
    expect(propertySeed(undefined)).toBeUndefined();
    expect(propertySeed('')).toBeUndefined();
    expect(propertySeed('  ')).toBeUndefined();
  });

  test('an integer, as .ci/run derives it from the commit (its first 8 hex digits, up to 2^32 - 1)', () => {
    expect(propertySeed('42')).toBe(42);
    expect(propertySeed(' -7 ')).toBe(-7);
    // 0xffffffff folded into 32 bits is -1, as `seed | 0` in fast-check.
    expect(propertySeed(String(0xffffffff))).toBe(-1);
  });

  test('anything else is refused, naming the variable', () => {
    for (const bad of ['abc', '1.5', '0x10', '12abc']) expect(() => propertySeed(bad)).toThrow(/ROUTERBENCH_PROPERTY_SEED: '.*' is not an integer/);
  });

  test('the setup file hands the seed to fast-check: the global seed is the variable\'s, or none when unset', () => {
    expect(fc.readConfigureGlobal().seed).toBe(propertySeed(process.env['ROUTERBENCH_PROPERTY_SEED']));
  });
});

