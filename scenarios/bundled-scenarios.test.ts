import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { InputEventSchema } from '../sim/eventlog/event-schema.ts';
import { loadScenario } from '../sim/scenario/load-scenario.ts';

const dir = fileURLToPath(new URL('.', import.meta.url));
const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();

test.each(files)('bundled scenario %s loads and expands to valid, ordered events', (f) => {
  const input = loadScenario(join(dir, f));
  let last = 0;
  let n = 0;
  for (const e of input.events()) {
    expect(InputEventSchema.safeParse(e).success).toBe(true);
    expect(e.at).toBeGreaterThanOrEqual(last);
    last = e.at;
    n++;
  }
  // Every bundled scenario exercises something: events, or a keepalived cluster left to run (the VRRP
  // steady-state scenarios have no events at all).
  expect(n > 0 || input.cluster !== undefined).toBe(true);
});
