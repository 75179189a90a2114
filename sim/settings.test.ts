import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { layerSettings, setLayer, type LayerError } from './settings-layers.ts';
import { coerceSettingValue } from './settings.ts';

const fail = (e: LayerError): never => {
  throw new Error(`${e.field}: ${e.message}`);
};
const resolve = (set: Record<string, string>) => layerSettings([setLayer(set)], fail).settings;

describe('--set values', () => {
  it('accepts numbers as YAML and JSON write them, and names the key when one is out of range', () => {
    expect(resolve({ 'haproxy.slowRate': '1e-3' }).haproxy.slowRate).toBe(0.001);
    // router.maxDynamicServers allows 1 to 1000: 1e9 is a number, and too large.
    expect(() => resolve({ 'router.maxDynamicServers': '1e9' })).toThrow(/^router\.maxDynamicServers: .*1000/);
  });

  test.prop([fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer())])('read a number as YAML reads the same text', (n) => {
    for (const text of [String(n), n.toExponential(), JSON.stringify(n)]) {
      const yaml = parse(text) as unknown;
      if (typeof yaml === 'number') expect(coerceSettingValue(text)).toBe(yaml);
    }
  });

  it('leave text that is no number as text', () => {
    for (const text of ['1e', 'e3', '1.2.3', '0x10', 'abc', '']) expect(coerceSettingValue(text)).toBe(text);
  });
});
