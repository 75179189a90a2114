import type { Command } from 'commander';
import { projectReport } from '../../reports/project-report.ts';
import type { Report } from '../../reports/report.ts';
import { renderSummaryTable } from '../../reports/render/terminal.ts';
import { readOutputLog } from '../output/output-log-reader.ts';
import { judge } from '../run.ts';
import { EXIT } from './exit-codes.ts';
import { writeFileAtomic } from './write-outputs.ts';

/** `routerbench report <output-log>`: the report rebuilt from the output log alone, no simulation. */
export function registerReportCommand(program: Command): Command {
  return program
    .command('report')
    .description('rebuild report.json from a run\'s output log without simulating again; exit 0 pass, 1 fail, 2 bad input (the log is checked line by line)')
    .argument('<output-log>', 'the output.jsonl a run wrote')
    .option('--out <file>', 'write report.json here')
    .option('--json', 'print the report as JSON instead of the table')
    .action((file: string, opts: { out?: string; json?: boolean }) => {
      const { report, json } = rebuildReport(file);
      if (opts.out !== undefined) writeFileAtomic(opts.out, json);
      process.stdout.write(opts.json ? json : renderSummaryTable([report]));
      process.exitCode = report.pass ? EXIT.pass : EXIT.fail;
    });
}

/**
 * The report and the report.json text `run` wrote for this log. The reader checks every line (a log cut
 * short included) and throws InputError naming file, line and field; anything else thrown while folding
 * is a routerbench bug and must stay exit 3, not be passed off as bad input.
 */
export function rebuildReport(file: string): { report: Report; json: string } {
  const { header, records } = readOutputLog(file);
  const report = judge(projectReport(header, records), header.budgets);
  return { report, json: JSON.stringify(report, null, 2) + '\n' };
}
