import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchCommand, isMainModule, parseBenchArgs } from './lib/cli.ts';

/**
 * Machine instructions of one command under valgrind's cachegrind, summed per kind of work. Shared by
 * `npm run bench:instructions` (per replayed event) and bench/sweep-instructions.ts (per sweep run).
 */

/** Functions of V8's compilers and JavaScript parser: on a normal run they work off the main thread or once. */
const COMPILER =
  /compiler::|maglev|turboshaft|Scanner|Parser<|ParserBase|PreParser|interpreter::|Bytecode|AstNode|Zone|Compiler::|CompilationJob|CodeGenerator|InstructionSelector|RegisterAllocat|LiveRange|Assembler/;
/** Where the rest goes, for the breakdown (first match wins). */
const CATEGORIES: Array<[string, RegExp]> = [
  // The output log's records that are not written by hand go through JSON.stringify: not reading.
  ['JSON.stringify', /JsonStringifier/],
  ['JSON.parse', /Json/],
  ['garbage collection', /Scaveng|Heap::|Marking|Sweep|Evacuat|MemoryAllocator|RememberedSet|SlotSet|MinorMC|MarkCompact/],
  ['JavaScript (JIT code)', /^\?\?\?$|^0x/],
  ['V8 built-ins', /^Builtins_/],
  ['strings and objects (V8 runtime)', /String|Factory|Intern|Transition|Map::|JSObject|Handle/],
];

export interface Count {
  /** Everything but the compilers. */
  total: number;
  byCategory: Map<string, number>;
  /** V8's compilers and parser, counted apart. */
  compiler: number;
  /** Every other function's instructions by name (JIT code is one unnamed entry: valgrind cannot name it). */
  byFunction: Map<string, number>;
}

export function requireValgrind(): void {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    console.error('valgrind is not installed; on Debian or Ubuntu: apt-get install -y valgrind');
    process.exit(2);
  }
}

/** Runs `node <nodeArgs>` under cachegrind (writing `out`) and sums its instructions. */
export function countInstructions(nodeArgs: readonly string[], out: string): Count {
  execFileSync('valgrind', ['--tool=cachegrind', '--cache-sim=no', `--cachegrind-out-file=${out}`, process.execPath, ...nodeArgs], {
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 26,
  });
  const byCategory = new Map<string, number>(CATEGORIES.map(([name]) => [name, 0]));
  byCategory.set('other', 0);
  let total = 0;
  let compiler = 0;
  const byFunction = perFunction(readFileSync(out, 'utf8'));
  for (const [fn, n] of byFunction) {
    if (COMPILER.test(fn) && !fn.includes('Json')) {
      compiler += n;
      byFunction.delete(fn);
      continue;
    }
    total += n;
    const name = CATEGORIES.find(([, re]) => re.test(fn))?.[0] ?? 'other';
    byCategory.set(name, byCategory.get(name)! + n);
  }
  return { total, byCategory, compiler, byFunction };
}

/** Sums a cachegrind output file's instruction counts per function name. */
function perFunction(text: string): Map<string, number> {
  const sums = new Map<string, number>();
  let fn = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) fn = line.slice(3);
    else if (/^\d/.test(line)) {
      const n = Number(line.slice(line.indexOf(' ') + 1));
      if (Number.isFinite(n)) sums.set(fn, (sums.get(fn) ?? 0) + n);
    }
  }
  return sums;
}

// Run as a script: one command's count.
if (isMainModule(import.meta.url)) {
  const cli = parseBenchArgs(
    benchCommand(
      'cachegrind.ts',
      'machine instructions of one node command under valgrind\'s cachegrind, by kind of work: the counter behind npm run bench:instructions and bench/sweep-instructions.ts (needs valgrind)',
      'the command\'s instructions with V8\'s compilers left out, the share of each kind of work, and the compilers\' instructions apart',
    )
      .usage('[options] -- <node-args...>')
      .argument('<node-args...>', 'what node runs, after --, e.g. -- --single-threaded --import tsx bench/sweep-tasks.ts 10'),
  );
  requireValgrind();
  const dir = mkdtempSync(join(tmpdir(), 'routerbench-cachegrind-'));
  try {
    const count = countInstructions(cli.args, join(dir, 'cachegrind.out'));
    console.log(`instructions, compilers excluded: ${count.total.toLocaleString('en-US')}`);
    for (const [name, n] of count.byCategory) console.log(`  ${name.padEnd(34)} ${n.toLocaleString('en-US').padStart(16)} ${((n / count.total) * 100).toFixed(1).padStart(5)}%`);
    console.log(`V8's compilers: ${count.compiler.toLocaleString('en-US')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
