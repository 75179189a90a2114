import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { importCycles, importGraph, type ImportGraph } from './import-graph.ts';

const ROOT = join(import.meta.dirname, '..');

describe('import circles', () => {
  test('none among the modules of core/, sim/, reports/, fidelity/, bench/ and scenarios/: every arrow points one way', () => {
    const graph = importGraph(ROOT, ['core', 'sim', 'reports', 'fidelity', 'bench', 'scenarios']);
    // The walk found the tree, not an empty directory: the CLI's command table and its commands are in it.
    expect(graph.get(join('sim', 'cli', 'commands.ts'))?.length).toBeGreaterThan(5);
    expect(importCycles(graph)).toEqual([]);
  });

  test('a circle of three modules and a module importing itself; a module merely reached from a circle is not in it', () => {
    const graph: ImportGraph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });

  test('a circle closed by a type-only import, a re-export and a dynamic import is found; packages and node: are not modules here', () => {
    const root = mkdtempSync(join(tmpdir(), 'import-graph-'));
    try {
      mkdirSync(join(root, 'm', 'sub'), { recursive: true });
      writeFileSync(join(root, 'm', 'a.ts'), "import type { B } from './sub/b.ts';\nimport { readFileSync } from 'node:fs';\nimport { z } from 'zod';\nexport type A = B;\n");
      writeFileSync(join(root, 'm', 'sub', 'b.ts'), "export { c as b } from '../c.ts';\nexport type B = number;\n");
      writeFileSync(join(root, 'm', 'c.ts'), "export const c = async () => (await import('./a.ts')) !== undefined;\n");
      writeFileSync(join(root, 'm', 'd.ts'), "import { c } from './c.ts';\nexport const d = c;\n");
      const graph = importGraph(root, ['m']);
      expect(Object.fromEntries(graph)).toEqual({
        [join('m', 'a.ts')]: [join('m', 'sub', 'b.ts')],
        [join('m', 'c.ts')]: [join('m', 'a.ts')],
        [join('m', 'd.ts')]: [join('m', 'c.ts')],
        [join('m', 'sub', 'b.ts')]: [join('m', 'c.ts')],
      });
      expect(importCycles(graph)).toEqual([[join('m', 'a.ts'), join('m', 'c.ts'), join('m', 'sub', 'b.ts')]]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
