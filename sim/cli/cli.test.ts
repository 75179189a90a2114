import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../reports/report.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'routerbench.js');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'rb-cli-'));
const HEADER = '{"routerbench":"eventlog","version":1}';
const ROUTE = '{"at":0,"type":"route.upsert","route":{"namespace":"shop","name":"web","host":"web.example.com","service":"web"}}';
const EPS = (at: number, n: number) =>
  JSON.stringify({ at, type: 'endpoints.set', namespace: 'shop', service: 'web', endpoints: Array.from({ length: n }, (_, i) => ({ ip: `10.128.0.${i + 1}`, port: 8080 })) });
const good = join(dir, 'good.jsonl');
writeFileSync(good, [HEADER, ROUTE, EPS(0, 1), EPS(10_000, 2), EPS(20_000, 3)].join('\n') + '\n');
const bad = join(dir, 'bad.jsonl');
writeFileSync(bad, [HEADER, ROUTE, '{"at":5,"type":"endpoints.set","namespace":"shop"}'].join('\n') + '\n');

describe('routerbench CLI exit codes', () => {
  it('0 when every budget holds; writes report.json and the output log', () => {
    const out = join(dir, 'pass');
    // reload-always: the initial reload at 0, then one per endpoint change 10 s apart (interval 5 s) = 3.
    const r = cli('run', good, '--out', out, '--budget', 'reloads.total<=3');
    expect(r.code).toBe(0);
    // 4 events (a route, three endpoint sets), last at 20 s + 60 s settle = 80 s simulated.
    expect(r.out).toMatch(/good\s+reload-always\s+4\s+80s\s+3\s+-\s+-\s+pass/);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(report).toMatchObject({ routerbench: 'report', version: 1, reloads: { total: 3, requests: { initial: 1, 'endpoints-change': 2 } }, pass: true });
    expect(existsSync(join(out, 'output.jsonl'))).toBe(true);
    // Last, where it all went.
    expect(r.out.trimEnd().split('\n').pop()).toBe(`wrote ${join(out, 'report.json')}, output.jsonl, report.html, summary.md, junit.xml`);
  });

  it('1 when a budget breaks, naming it and printing the reproduce line', () => {
    const r = cli('run', good, '--budget', 'reloads.total<=2');
    expect(r.code).toBe(1);
    expect(r.out).toContain('budget reloads.total <= 2: actual 3');
    expect(r.out).toMatch(/reproduce: routerbench run .*good\.jsonl --seed 1 --budget 'reloads\.total<=2'/);
  });

  it('2 on a bad event log line, naming file, line and field, and writes nothing', () => {
    const out = join(dir, 'bad-out');
    const r = cli('run', bad, '--out', out);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${bad}:3: field 'service'`);
    expect(existsSync(join(out, 'report.json'))).toBe(false);
    expect(existsSync(out)).toBe(false);
  });

  it('2 on an unknown --set key or a bad value', () => {
    expect(cli('run', good, '--set', 'router.maxDynamicServer=3').err).toContain("unknown setting 'router.maxDynamicServer'");
    // A key through Object.prototype's names must not walk onto the prototype and pass.
    expect(cli('run', good, '--set', '__proto__.toString=1')).toMatchObject({ code: 2 });
    expect(cli('run', good, '--set', 'router.__proto__.strategy=x').err).toContain("unknown setting 'router.__proto__.strategy'");
    const r = cli('run', good, '--set', 'router.strategy=fastest');
    expect(r.code).toBe(2);
    expect(r.err).toContain("field 'router.strategy'");
  });

  it('2 on a missing file and on usage errors', () => {
    expect(cli('run', join(dir, 'nope.jsonl')).code).toBe(2);
    expect(cli('run').code).toBe(2);
    expect(cli('frobnicate').code).toBe(2);
  });

  it('several inputs: a line per finished run on stderr, none with --no-progress', () => {
    const progress = /^\[\d\/2\] good pass /m;
    expect(cli('run', good, good).err).toMatch(progress);
    const quiet = cli('run', good, good, '--no-progress');
    expect(quiet.code).toBe(0);
    expect(quiet.err).not.toMatch(progress);
    const many = cli('run', good, good, '--no-progress', '--out', join(dir, 'many'));
    expect(many.out.trimEnd().split('\n').pop()).toBe(`wrote ${join(dir, 'many', 'summary.md')}, junit.xml, index.html and 2 run directories (report.json, output.jsonl, report.html in each)`);
  });

  it('2, naming the path, when a path given is missing, a directory or in the way', () => {
    const r = cli('report', join(dir, 'no-such.jsonl'));
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${join(dir, 'no-such.jsonl')}: no such file or directory`);
    expect(cli('report', dir)).toMatchObject({ code: 2 });
    expect(cli('run', good, '--out', good).err).toContain(`${good}: exists and is not a directory (--out)`);
  });

  it('--env with a name routerbench does not read warns; --tolerance without --baseline is a usage error', () => {
    const out = join(dir, 'env-typo');
    const typo = cli('run', good, '--env', 'ROUTER_MAX_DYNAMIC_SERVER=3', '--out', out);
    expect(typo.code).toBe(0);
    expect(typo.err).toContain('warning: --env ROUTER_MAX_DYNAMIC_SERVER: not a router variable routerbench reads');
    // The run keeps it too, where a `warnings.total` budget can see it.
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(report.warnings.total).toBe(1);
    expect(report.warnings.list[0]).toMatchObject({ atMs: 0, count: 1, message: expect.stringMatching(/^--env ROUTER_MAX_DYNAMIC_SERVER: not a router variable/) });
    expect(cli('run', good, '--env', 'ROUTER_MAX_DYNAMIC_SERVERS=3').err).not.toContain('not a router variable');
    expect(cli('run', good, '--tolerance', 'failover.p99=5%')).toMatchObject({ code: 2, err: expect.stringContaining('--tolerance: applies to a comparison with baselines') });
  });

  it('2 for a bad --tolerance before any run; a $GITHUB_STEP_SUMMARY that cannot be written is said, not a failure', () => {
    expect(cli('run', good, '--out', join(dir, 'tol'), '--no-progress').code).toBe(0);
    expect(cli('run', good, '--baseline', join(dir, 'tol', 'report.json'), '--tolerance', 'reloads.totl=5%')).toMatchObject({
      code: 2,
      err: expect.stringContaining("--tolerance: bad tolerance 'reloads.totl=5%': unknown metric 'reloads.totl'"),
    });
    const r = spawnSync(process.execPath, [BIN, 'run', good, '--no-progress'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, GITHUB_STEP_SUMMARY: dir } });
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`cannot append the summary to $GITHUB_STEP_SUMMARY (${dir}): EISDIR`);
  });

  it('0 for --help on every command; 2 for no command at all', () => {
    for (const c of [[], ['run'], ['report'], ['expand'], ['import'], ['mock-haproxy'], ['compare'], ['sweep'], ['merge'], ['baseline', 'update']]) {
      const r = cli(...c, '--help');
      expect(r.code, c.join(' ')).toBe(0);
      expect(r.out).toContain('Usage: routerbench');
    }
    const none = cli();
    expect(none.code).toBe(2);
    expect(none.err).toContain('Usage: routerbench');
    expect(cli('compare', good, '--set', 'router.strategy=dcm-slots')).toMatchObject({ code: 2, err: expect.stringContaining('router.strategy cannot be set too') });
  });

  it('report rebuilds report.json from the output log alone', () => {
    const out = join(dir, 'again');
    expect(cli('run', good, '--out', out).code).toBe(0);
    const r = cli('report', join(out, 'output.jsonl'), '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')));
  });

  it('report: 2 for an output log cut short or holding a line that is not a record', () => {
    const out = join(dir, 'cut');
    expect(cli('run', good, '--out', out).code).toBe(0);
    const lines = readFileSync(join(out, 'output.jsonl'), 'utf8').trimEnd().split('\n');
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, lines.slice(0, 3).join('\n') + '\n');
    expect(cli('report', cut)).toMatchObject({ code: 2, err: expect.stringContaining(`${cut}: the output log has no run.end record`) });
    const odd = join(dir, 'odd.jsonl');
    writeFileSync(odd, [lines[0], 'null'].join('\n') + '\n');
    expect(cli('report', odd)).toMatchObject({ code: 2, err: expect.stringContaining(`${odd}:2: field 'type'`) });
  });

  it('2 for a --router-deployment that is not a Deployment or not YAML, naming the file', () => {
    const notDeploy = join(dir, 'configmap.yaml');
    writeFileSync(notDeploy, 'kind: ConfigMap\ndata:\n  a: b\n');
    const r = cli('run', good, '--router-deployment', notDeploy, '--out', join(dir, 'nd'));
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${notDeploy}: not a Deployment`);
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'spec:\n  template: [\n');
    const b = cli('run', good, '--router-deployment', broken, '--out', join(dir, 'nb'));
    expect(b.code).toBe(2);
    // The place is given once, as file:line:column, and the message is whole (the library's ends "at line 3, column 1:").
    expect(b.err).toContain(`${broken}:3:1: Flow sequence in block collection must be sufficiently indented and end with a ]\n`);
    expect(existsSync(join(dir, 'nd'))).toBe(false);
  });
});
