import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { parseBudget } from '../../reports/budgets.ts';
import { SimSettingsSchema } from '../settings.ts';
import { scenarioJsonSchema } from './scenario-schema.ts';
import { SCENARIO_JSON_SCHEMA_PATH, scenarioJsonSchemaText } from './write-json-schema.ts';
import { allowedKeysAt } from './yaml-positions.ts';

test('the committed scenarios/scenario.schema.json is the one generated from the zod schema', () => {
  // On failure: npx tsx sim/scenario/write-json-schema.ts
  expect(readFileSync(SCENARIO_JSON_SCHEMA_PATH, 'utf8')).toBe(scenarioJsonSchemaText());
});

test('the JSON Schema lists every top-level key and refuses others', () => {
  const schema = scenarioJsonSchema() as { properties: Record<string, unknown>; additionalProperties: boolean };
  expect(Object.keys(schema.properties)).toEqual(['name', 'description', 'seed', 'router', 'cluster', 'events', 'generate', 'budgets', 'sim', 'haproxy']);
  expect(schema.additionalProperties).toBe(false);
});

test('allowedKeysAt follows objects, arrays, unions and $refs', () => {
  const schema = scenarioJsonSchema();
  expect(allowedKeysAt(schema, ['sim'])).toEqual(Object.keys(SimSettingsSchema.shape));
  expect(allowedKeysAt(schema, ['events'])).toEqual(['file', 'inline']);
  expect(allowedKeysAt(schema, ['generate', 'faults', 'schedule', 0])).toEqual(['at', 'type', 'node', 'groups', 'recoverAfterMs']);
  // An inline event is one of many shapes: no single list of keys.
  expect(allowedKeysAt(schema, ['events', 'inline', 0])).toBeUndefined();
});

test('the JSON Schema has an $id and constrains budgets as parseBudget does: known metrics (aliases too) and the bound syntax', () => {
  const schema = scenarioJsonSchema() as { $id: string; properties: { budgets: { propertyNames: { enum: string[] }; additionalProperties: { pattern: string } } } };
  expect(schema.$id).toBe('urn:routerbench:scenario:1');
  const { propertyNames, additionalProperties } = schema.properties.budgets;
  const bound = new RegExp(additionalProperties.pattern);
  for (const [metric, b] of [['reloads.total', '<= 2'], ['failover.p99', '< 4000'], ['reloads.requests.pool-exhausted', '== 0'], ['warnings.total', ' >= -1.5e3 ']]) {
    expect(() => parseBudget(metric!, b)).not.toThrow();
    expect(propertyNames.enum).toContain(metric);
    expect(bound.test(b!)).toBe(true);
  }
  // What parseBudget refuses, the schema refuses too.
  for (const [metric, b] of [['reloads.totl', '<= 2'], ['reloads.requests.made-up', '== 0']]) {
    expect(() => parseBudget(metric!, b)).toThrow();
    expect(propertyNames.enum).not.toContain(metric);
  }
  for (const b of ['2', '=> 2', '= 2', '<= two', '<=', '<= 2 reloads']) {
    expect(() => parseBudget('reloads.total', b)).toThrow();
    expect(bound.test(b)).toBe(false);
  }
});
