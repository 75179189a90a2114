import { InvalidArgumentError } from 'commander';

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
