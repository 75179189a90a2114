import { z } from 'zod';

/**
 * A scenario's name names its output directory (`run --out` with several inputs, baselines) and its row of
 * the summary table, the JUnit test case and the report: one line of printable text, short enough for a
 * file name (255 bytes on most file systems) with room for the numbering of duplicates.
 */
export const SCENARIO_NAME_MAX_LENGTH = 100;

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export const scenarioName = z
  .string()
  .min(1)
  .max(SCENARIO_NAME_MAX_LENGTH, {
    error: (issue) =>
      `a scenario name is at most ${SCENARIO_NAME_MAX_LENGTH} characters (it names the output directory and the summary's row); got ${typeof issue.input === 'string' ? issue.input.length : 'more'}`,
  })
  .refine((s) => !CONTROL.test(s), { error: 'a scenario name is one line of printable text: no newline, tab or other control character' });
