import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { appendStepSummary, writeFileAtomic } from './gate-outputs.ts';

const dir = mkdtempSync(join(tmpdir(), 'routerbench-gate-'));

test('writeFileAtomic creates directories and leaves no temporary file', () => {
  writeFileAtomic(join(dir, 'out', 'summary.md'), '# hi\n');
  expect(readFileSync(join(dir, 'out', 'summary.md'), 'utf8')).toBe('# hi\n');
  expect(readdirSync(join(dir, 'out'))).toEqual(['summary.md']);
});

test('appendStepSummary appends only when GITHUB_STEP_SUMMARY is set', () => {
  const file = join(dir, 'step-summary.md');
  writeFileSync(file, 'before\n');
  expect(appendStepSummary('table', { GITHUB_STEP_SUMMARY: file })).toBe(true);
  expect(readFileSync(file, 'utf8')).toBe('before\ntable\n');
  expect(appendStepSummary('table', {})).toBe(false);
  expect(existsSync(join(dir, 'none'))).toBe(false);
});
