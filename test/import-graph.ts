import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of the repository's TypeScript modules, read with the compiler's own pre-processor (static
 * imports, `export … from`, `import type`, dynamic `import()`), and the circles in it. Type-only imports count:
 * a circle of types still ties the modules' meanings together, and it is what the next value import closes.
 */

/** Module (path relative to the root) → the repository modules it imports. */
export type ImportGraph = Map<string, string[]>;

function* tsFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* tsFiles(p);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) yield p;
  }
}

/** The graph of every .ts module under `dirs` of `root`; imports leading elsewhere (packages, node:) are left out. */
export function importGraph(root: string, dirs: readonly string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const dir of dirs) {
    for (const file of tsFiles(join(root, dir))) {
      const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = info.importedFiles
        .map((f) => f.fileName)
        .filter((name) => name.startsWith('.'))
        .map((name) => relative(root, resolve(dirname(file), name)));
      graph.set(relative(root, file), [...new Set(targets)]);
    }
  }
  // Keep only edges inside the graph: a circle needs both ends among the modules looked at.
  for (const [from, to] of graph) graph.set(from, to.filter((t) => graph.has(t)));
  return graph;
}

/**
 * Every circle, as the modules of one strongly connected component (Tarjan), sorted; a module importing
 * itself is a circle of one.
 */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
