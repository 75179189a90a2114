import { InvalidArgumentError } from 'commander';
import { TRACE_NAMES, type TraceName } from '../output/records.ts';

/** Options shared by commands that load a scenario: `--seed N`, `--set key=value` (repeatable). */
export function parseSeed(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 2 ** 32 - 1) throw new InvalidArgumentError('the seed is an integer from 0 to 4294967295');
  return Number(value);
}

export function collectSet(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value, e.g. router.maxDynamicServers=5 (got '${value}')`);
  return { ...previous, [value.slice(0, eq).trim()]: value.slice(eq + 1).trim() };
}

export function collectList(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--trace runtime,inputs` (repeatable, or comma-separated): what the output log records in full. */
export function collectTrace(value: string, previous: TraceName[] = []): TraceName[] {
  const names = value.split(',').map((s) => s.trim());
  for (const n of names) {
    if (!(TRACE_NAMES as readonly string[]).includes(n)) throw new InvalidArgumentError(`unknown trace '${n}' (known: ${TRACE_NAMES.join(', ')})`);
  }
  return [...new Set([...previous, ...(names as TraceName[])])];
}

/** The help text of `--trace`, the same on every command that takes it. */
export const TRACE_HELP =
  'record in full in output.jsonl (comma-separated or repeated): runtime = every runtime API command with its reply (by default only failed attempts are written; successful ones are counted per verb and simulated second); inputs = every endpoints.set and endpoints.delete as an input line (by default counted per simulated second; other inputs are always lines); report.json is the same either way';
