import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
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
