import { appendFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * File output for the gate (CLI code: it does I/O). Every file is written to a temporary sibling and
 * renamed, so an error never leaves a half-written report behind.
 */
export function writeFileAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Appends summary.md to GitHub's step summary when `GITHUB_STEP_SUMMARY` is set; returns whether it did. */
export function appendStepSummary(markdown: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const file = env['GITHUB_STEP_SUMMARY'];
  if (file === undefined || file === '') return false;
  appendFileSync(file, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
  return true;
}
