import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { layerSettings, setLayer, type LayerError } from './settings-layers.ts';
import { coerceSettingValue, settingText } from './settings.ts';

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

  it('refuses reload and commit intervals under 1 s, as the router refuses to start with them (template.go)', () => {
    expect(() => resolve({ 'router.reloadIntervalMs': '999' })).toThrow(/^router\.reloadIntervalMs: the router refuses a RELOAD_INTERVAL under 1 s/);
    expect(() => resolve({ 'router.commitIntervalMs': '0' })).toThrow(/^router\.commitIntervalMs: the router refuses a COMMIT_INTERVAL under 1 s/);
    expect(resolve({ 'router.reloadIntervalMs': '1000', 'router.commitIntervalMs': '1000' }).router).toMatchObject({ reloadIntervalMs: 1000, commitIntervalMs: 1000 });
  });

  test.prop([fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer())])('read a number as YAML reads the same text', (n) => {
    for (const text of [String(n), n.toExponential(), JSON.stringify(n)]) {
      const yaml = parse(text) as unknown;
      if (typeof yaml === 'number') expect(coerceSettingValue(text)).toBe(yaml);
    }
  });

  it('a value in double quotes is the JSON string it spells, and settingText quotes exactly the strings that need it', () => {
    // A namespace named 007 (ROUTER_BLUEPRINT_ROUTE_NAMESPACE=007): bare, --set reads it as the number 7.
    expect(coerceSettingValue('007')).toBe(7);
    expect(coerceSettingValue('"007"')).toBe('007');
    expect(coerceSettingValue(' "true" ')).toBe('true');
    // Not a JSON string: the text as it stands.
    expect(coerceSettingValue('"a')).toBe('"a');
    expect(coerceSettingValue('"a"b"')).toBe('"a"b"');
    for (const v of ['007', 'true', '1e3', 'shop', '', '"x"', 5, false]) expect(coerceSettingValue(settingText(v))).toEqual(v);
    expect([settingText('007'), settingText('shop'), settingText(5)]).toEqual(['"007"', 'shop', '5']);
  });

  it('leave text that is no number as text', () => {
    for (const text of ['1e', 'e3', '1.2.3', '0x10', 'abc', '']) expect(coerceSettingValue(text)).toBe(text);
  });
});
