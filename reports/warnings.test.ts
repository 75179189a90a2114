import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadRunInput } from '../sim/load-input.ts';
import type { OutputHeader, OutputRecord } from '../sim/output/records.ts';
import { runOne } from '../sim/run.ts';
import { projectReport } from './project-report.ts';
import { sampleReport } from './report-fixture.ts';
import { WARNINGS_LISTED, type Report } from './report.ts';
import { renderJUnit } from './render/junit.ts';
import { renderMarkdownSummary } from './render/markdown.ts';
import { renderSummaryTable } from './render/terminal.ts';

const HEADER = { routerbench: 'outputlog', version: 1, scenario: 's', seed: 1, strategy: 'reload-always', settings: {}, budgets: [], reproduce: 'r' } as unknown as OutputHeader;
const warning = (atUs: number, message: string): OutputRecord => ({ atUs, type: 'warning', message });
const END: OutputRecord = { atUs: 9_000_000, type: 'run.end', events: 3, simulatedMs: 9000 };

describe('report.json warnings', () => {
  test('each distinct message once, at its first time, with its count', () => {
    const r = projectReport(HEADER, [warning(1000, 'a'), warning(2000, 'b'), warning(3000, 'a'), END]);
    expect(r.warnings).toEqual({
      total: 3,
      list: [
        { atMs: 1, message: 'a', count: 2 },
        { atMs: 2, message: 'b', count: 1 },
      ],
    });
    // A warning is not a failure.
    expect(r.pass).toBe(true);
  });

  test(`lists the first ${WARNINGS_LISTED} distinct messages and counts the rest`, () => {
    // WARNINGS_LISTED + 5 distinct messages, the first one repeated once more after the list is full.
    const records = Array.from({ length: WARNINGS_LISTED + 5 }, (_, i) => warning(i * 1000, `m${i}`));
    records.push(warning(99_000, 'm0'), END);
    const r = projectReport(HEADER, records);
    expect(r.warnings.total).toBe(WARNINGS_LISTED + 6);
    expect(r.warnings.list.map((w) => w.message)).toEqual(Array.from({ length: WARNINGS_LISTED }, (_, i) => `m${i}`));
    expect(r.warnings.list[0]!.count).toBe(2);
  });

  test('a cluster event naming no cluster node, from an event log, ends up in the report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-warn-'));
    const log = join(dir, 'churn.jsonl');
    const cluster = { nodes: [{ name: 'infra-1', ip: '198.18.0.11' }, { name: 'infra-2', ip: '198.18.0.12' }], ipfailover: { virtualIps: '198.18.0.100' } };
    writeFileSync(
      log,
      [
        JSON.stringify({ routerbench: 'eventlog', version: 1, cluster }),
        '{"at":1000,"type":"node.fail","node":"infra-9"}',
        '{"at":2000,"type":"node.fail","node":"infra-9"}',
        '',
      ].join('\n'),
    );
    const { report } = runOne(loadRunInput(log));
    expect(report.warnings).toEqual({ total: 2, list: [{ atMs: 1000, message: "node.fail: no cluster node 'infra-9'; ignored", count: 2 }] });
  });

  test('node events in a log replayed without any cluster warn too (a heal, naming nobody, does not)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-warn-'));
    const log = join(dir, 'bare.jsonl');
    writeFileSync(log, ['{"routerbench":"eventlog","version":1}', '{"at":0,"type":"network.heal"}', '{"at":1000,"type":"router.fail","node":"infra-1"}', ''].join('\n'));
    const { report } = runOne(loadRunInput(log));
    expect(report.warnings).toEqual({ total: 1, list: [{ atMs: 1000, message: 'router.fail: this run has no keepalived cluster; ignored', count: 1 }] });
  });
});

describe('warnings in the renderers', () => {
  const warned: Report = sampleReport({
    scenario: 'w',
    warnings: { total: 4, list: [{ atMs: 1000, message: "node.fail: no cluster node '<b>x</b>'; ignored", count: 3 }] },
  });

  test('the terminal table prints each one, and says how many more there were', () => {
    const out = renderSummaryTable([warned, sampleReport()]);
    // 4 warnings, 3 of them listed: one more.
    expect(out.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([
      "warning: w: node.fail: no cluster node '<b>x</b>'; ignored (at 1000 ms, 3 times)",
      'warning: w: … 1 more (report.json lists the first 1 distinct messages)',
    ]);
  });

  test('summary.md and junit.xml show them escaped', () => {
    const md = renderMarkdownSummary([{ report: warned }]);
    expect(md).toContain('Warnings (4):');
    expect(md).toContain('- node.fail: no cluster node &#39;&lt;b&gt;x&lt;/b&gt;&#39;; ignored (at 1000 ms, 3 times)');
    const xml = renderJUnit([{ report: warned }, { report: sampleReport() }]);
    expect(xml).toContain("<system-err>warning: node.fail: no cluster node &#39;&lt;b&gt;x&lt;/b&gt;&#39;; ignored (at 1000 ms, 3 times)</system-err>");
    expect(xml.match(/<system-err>/g)).toHaveLength(1);
  });
});
