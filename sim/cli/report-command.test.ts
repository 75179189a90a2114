import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rebuildReport } from './report-command.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'routerbench.js');
const SCENARIOS = join(import.meta.dirname, '..', '..', 'scenarios');
const dir = mkdtempSync(join(tmpdir(), 'rb-report-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('routerbench report', () => {
  const out = join(dir, 'all');

  it('rebuilds, byte for byte, the report.json of every bundled scenario from the output log run wrote', () => {
    const run = cli('run', SCENARIOS, '--out', out, '--no-progress');
    expect(run.code, run.err).toBe(0);
    const runs = readdirSync(out, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    const yamls = readdirSync(SCENARIOS).filter((f) => f.endsWith('.yaml'));
    expect(runs.length).toBe(yamls.length);
    for (const name of runs) {
      expect(rebuildReport(join(out, name, 'output.jsonl')).json, name).toBe(readFileSync(join(out, name, 'report.json'), 'utf8'));
    }
    // And through the command itself, --out included.
    const again = join(dir, 'route-burst.report.json');
    expect(cli('report', join(out, 'route-burst', 'output.jsonl'), '--out', again).code).toBe(0);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(join(out, 'route-burst', 'report.json'), 'utf8'));
  }, 120_000);

  it('2, not an internal error, for the broken logs of the audit; the message names file, line and field', () => {
    const lines = readFileSync(join(out, 'route-burst', 'output.jsonl'), 'utf8').trimEnd().split('\n');
    const header = JSON.parse(lines[0]!) as Record<string, unknown>;
    const write = (name: string, l: readonly string[]): string => {
      const file = join(dir, name);
      writeFileSync(file, l.join('\n') + '\n');
      return file;
    };
    const five = write('budgets-5.jsonl', [JSON.stringify({ ...header, budgets: 5 }), ...lines.slice(1)]);
    expect(cli('report', five)).toMatchObject({ code: 2, err: expect.stringContaining(`${five}:1: field 'budgets': `) });
    const typo = write('budget-typo.jsonl', [JSON.stringify({ ...header, budgets: ['reloads.totl <= 2'] }), ...lines.slice(1)]);
    expect(cli('report', typo)).toMatchObject({ code: 2, err: expect.stringContaining(`${typo}:1: field 'budgets[0]': bad budget 'reloads.totl <= 2'`) });
    // run.end is the last line, lines.length (1-based).
    const end = write('end.jsonl', [...lines.slice(0, -1), '{"atUs":"x","type":"run.end","simulatedMs":5}']);
    const r = cli('report', end);
    expect(r).toMatchObject({ code: 2, err: expect.stringContaining(`${end}:${lines.length}: field 'atUs': run.end record: `) });
    expect(r.out).toBe('');
    const bare = write('bare.jsonl', [lines[0]!, '{"type":"reload.start"}', ...lines.slice(1)]);
    expect(cli('report', bare)).toMatchObject({ code: 2, err: expect.stringContaining(`${bare}:2: field 'atUs': reload.start record: missing`) });
  }, 120_000);
});
