/**
 * Regenerates scenarios/scenario.schema.json from the zod schema:
 *   npx tsx sim/scenario/write-json-schema.ts
 * (scenario-schema.test.ts fails when the committed file and the schema disagree.)
 */
import { renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { scenarioJsonSchema } from './scenario-schema.ts';

export const SCENARIO_JSON_SCHEMA_PATH = fileURLToPath(new URL('../../scenarios/scenario.schema.json', import.meta.url));

export function scenarioJsonSchemaText(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const tmp = `${SCENARIO_JSON_SCHEMA_PATH}.tmp`;
  writeFileSync(tmp, scenarioJsonSchemaText());
  renameSync(tmp, SCENARIO_JSON_SCHEMA_PATH);
  console.log(`wrote ${SCENARIO_JSON_SCHEMA_PATH}`);
}
