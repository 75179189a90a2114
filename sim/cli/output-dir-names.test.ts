import { describe, expect, test } from 'vitest';
import type { RunInput } from '../run-input.ts';
import { outputDirNames } from './output-dir-names.ts';

const named = (...names: string[]): RunInput[] => names.map((name) => ({ name }) as RunInput);

describe('outputDirNames', () => {
  test('sanitises names and numbers repeats', () => {
    expect(outputDirNames(named('route burst', 'a/b', 'route burst'))).toEqual(['route-burst', 'a-b', 'route-burst-2']);
  });

  test('a name of dots never names the output directory or its parent', () => {
    // '..' joined under --out would write into --out's parent, '.' into --out itself, '' likewise.
    const dirs = outputDirNames(named('..', '.', ''));
    for (const d of dirs) expect(d).not.toMatch(/^\.*$/);
    expect(new Set(dirs).size).toBe(3);
  });
});
