import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../reports/report.ts';

/** What `run` prints and writes when a baseline comparison decides the verdict, and what it refuses up front. */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'routerbench.js');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args, '--no-progress'], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'rb-run-outputs-'));
const HEADER = '{"routerbench":"eventlog","version":1,"scenario":"web"}';
const ROUTE = '{"at":0,"type":"route.upsert","route":{"namespace":"shop","name":"web","host":"web.example.com","service":"web"}}';
const EPS = (at: number, n: number) =>
  JSON.stringify({ at, type: 'endpoints.set', namespace: 'shop', service: 'web', endpoints: Array.from({ length: n }, (_, i) => ({ ip: `10.128.0.${i + 1}`, port: 8080 })) });
// reload-always: the initial reload, then one per endpoint change (10 s apart, beyond the 5 s interval).
const twoChanges = join(dir, 'two.jsonl');
writeFileSync(twoChanges, [HEADER, ROUTE, EPS(0, 1), EPS(10_000, 2), EPS(20_000, 3)].join('\n') + '\n');
const fourChanges = join(dir, 'four.jsonl');
writeFileSync(fourChanges, [HEADER, ROUTE, EPS(0, 1), EPS(10_000, 2), EPS(20_000, 3), EPS(30_000, 4), EPS(40_000, 5)].join('\n') + '\n');

// The baseline: 1 + 2 = 3 reloads (requests: initial 1, endpoints-change 2).
const baseline = join(dir, 'baseline.json');
const written = cli('run', twoChanges, '--out', join(dir, 'base'));
writeFileSync(baseline, readFileSync(join(dir, 'base', 'report.json')));

describe('run --baseline', () => {
  it('--json prints JSON alone, and report.json holds the same verdict and comparison', () => {
    expect(written.code).toBe(0);
    const out = join(dir, 'worse');
    // 1 + 4 = 5 reloads against the baseline's 3: a regression, so exit 1.
    const r = cli('run', fourChanges, '--baseline', baseline, '--json', '--out', out);
    expect(r.code).toBe(1);
    // A list even for one input (docs/commands.md: one shape whatever the number of inputs).
    const [printed, ...others] = JSON.parse(r.out) as Report[];
    expect(others).toEqual([]);
    expect(printed!.pass).toBe(false);
    expect(printed!.baseline).toMatchObject({ file: baseline, regressions: 3, pass: false });
    expect(printed!.baseline!.rows.filter((m) => m.verdict === 'regressed').map((m) => m.path)).toEqual(['reloads.total', 'reloads.perHour', 'reloads.requests.endpoints-change']);
    // The reproduce line compares again; the scenario's own line would pass.
    expect(printed!.reproduce).toMatch(/ --baseline \S*baseline\.json$/);
    expect(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'))).toEqual(printed);
    // Every output carries that line, escaped as each format escapes.
    const esc = printed!.reproduce.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    expect(readFileSync(join(out, 'junit.xml'), 'utf8')).toContain(`reproduce: ${esc}\n`);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain(`Reproduce: \`${printed!.reproduce}\``);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain(`Reproduce: <code>${esc}</code>`);
  });

  it('the table names each regression; a tolerance on reloads.total covers its rate and reasons', () => {
    const r = cli('run', fourChanges, '--baseline', baseline);
    expect(r.code).toBe(1);
    expect(r.out).toContain('baseline reloads.total: 3 → 5');
    expect(r.out).toContain('baseline reloads.requests.endpoints-change: 2 → 4');
    // 5 reloads is 3 + 67%: within 70%, and the rate and the reasons go with the total.
    const tolerated = cli('run', fourChanges, '--baseline', baseline, '--tolerance', 'reloads.total=70%');
    expect(tolerated.code).toBe(0);
    // 60% of 3 is 1.8 < 2 more: the total regresses, and the reproduce line carries the tolerance.
    const over = cli('run', fourChanges, '--baseline', baseline, '--tolerance', 'reloads.total=60%');
    expect(over.code).toBe(1);
    expect(over.out).toContain('--tolerance reloads.total=60%');
  });
});

describe('run --json has one shape whatever the number of inputs', () => {
  it('a list of reports in input order: one element for one input, two for two', () => {
    const one = cli('run', twoChanges, '--json');
    expect(one.code, one.err).toBe(0);
    const two = cli('run', twoChanges, fourChanges, '--json');
    expect(two.code, two.err).toBe(0);
    // reload-always: the initial reload and one per endpoint change, 10 s apart (past the 5 s interval):
    // two.jsonl 1 + 2 = 3, four.jsonl 1 + 4 = 5.
    const totals = (text: string): number[] => (JSON.parse(text) as Report[]).map((r) => r.reloads.total);
    expect(totals(one.out)).toEqual([3]);
    expect(totals(two.out)).toEqual([3, 5]);
  });
});

describe('a reused --out keeps no stale files', () => {
  it("replaces an earlier run's outputs and removes those this run does not write; refuses a foreign file", () => {
    const out = join(dir, 'reused');
    // Two inputs first: both headers name the scenario "web", so their directories are web and web-2.
    expect(cli('run', twoChanges, fourChanges, '--out', out).code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['index.html', 'junit.xml', 'summary.md', 'web', 'web-2']);
    // A kill during a later run would have left a partial log.
    writeFileSync(join(out, 'output.jsonl.partial'), '{"partial":');
    // Then one input into the same directory: its files at the top, the earlier layout gone.
    const one = cli('run', fourChanges, '--out', out);
    expect(one.code, one.err).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['junit.xml', 'output.jsonl', 'report.html', 'report.json', 'summary.md']);
    // reload-always on four.jsonl: 1 + 4 = 5 reloads, the new run's.
    expect(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')).reloads.total).toBe(5);
    // A file of the user's: refused before running (exit 2), naming the directory and the file; nothing changes.
    writeFileSync(join(out, 'notes.txt'), 'mine\n');
    const before = readFileSync(join(out, 'report.json'), 'utf8');
    const refused = cli('run', twoChanges, '--out', out);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`routerbench: ${out}: holds 'notes.txt', which routerbench did not write`);
    expect(readdirSync(out).sort()).toEqual(['junit.xml', 'notes.txt', 'output.jsonl', 'report.html', 'report.json', 'summary.md']);
    expect(readFileSync(join(out, 'report.json'), 'utf8')).toBe(before);
  });
});

describe('run --out refuses what is in the way before running', () => {
  it.each(['report.json', 'output.jsonl', 'summary.md'])('a directory at %s: exit 2 naming it, nothing written', (name) => {
    const out = join(dir, `in-the-way-${name}`);
    mkdirSync(join(out, name), { recursive: true });
    const r = cli('run', twoChanges, '--out', out);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${join(out, name)}: is a directory; a file was expected here (--out)`);
    expect(readdirSync(out)).toEqual([name]);
  });

  it('several inputs, a file where a run directory goes: exit 2, and no run directory is left', () => {
    const out = join(dir, 'multi');
    mkdirSync(out);
    // outputDirNames: a log's directory is its scenario name (both headers say "web"), made unique in order.
    writeFileSync(join(out, 'web-2'), 'in the way\n');
    const r = cli('run', twoChanges, fourChanges, '--out', out);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${join(out, 'web-2')}: exists and is not a directory (--out)`);
    expect(readdirSync(out)).toEqual(['web-2']);
  });

  it('sweep and merge: a directory where an output goes is refused before the first run', () => {
    const out = join(dir, 'sweep-out');
    mkdirSync(join(out, 'sweep.html'), { recursive: true });
    const r = cli('sweep', twoChanges, '--grid', 'router.maxDynamicServers=1,2', '--seeds', '1', '--workers', '0', '--out', out);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${join(out, 'sweep.html')}: is a directory; a file was expected here (--out)`);
    expect(readdirSync(out)).toEqual(['sweep.html']);
    // merge has no progress to turn off.
    const m = spawnSync(process.execPath, [BIN, 'merge', out, '--out', out], { encoding: 'utf8', timeout: 60_000 });
    expect(m.status).toBe(2);
    expect(m.stderr).toContain('sweep.html: is a directory');
  });

  it('an --out under a directory that cannot be written: exit 2 before any run', () => {
    // /proc cannot be written, not even by root (which the permission bits would not stop).
    const r = cli('run', twoChanges, '--out', '/proc/routerbench-out');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/routerbench-out: cannot create it: \/proc is not writable \(--out\)|routerbench-out: .*(permission denied|no such file)/);
    expect(existsSync('/proc/routerbench-out')).toBe(false);
  });
});
