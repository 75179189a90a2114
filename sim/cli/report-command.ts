import type { Command } from 'commander';
import { projectReport } from '../../reports/project-report.ts';
import { renderSummaryTable } from '../../reports/render/terminal.ts';
import { InputError } from '../eventlog/input-error.ts';
import { readOutputLog } from '../output/output-log-reader.ts';
import { judge } from '../run.ts';
import { EXIT } from './exit-codes.ts';
import { writeFileAtomic } from './write-outputs.ts';

/** `routerbench report <output-log>`: the report rebuilt from the output log alone, no simulation. */
export function registerReportCommand(program: Command): Command {
  return program
    .command('report')
    .description('rebuild report.json from a run\'s output log without simulating again; exit 0 pass, 1 fail, 2 bad input')
    .argument('<output-log>', 'the output.jsonl a run wrote')
    .option('--out <file>', 'write report.json here')
    .option('--json', 'print the report as JSON instead of the table')
    .action((file: string, opts: { out?: string; json?: boolean }) => {
      const { header, records } = readOutputLog(file);
      let projected: ReturnType<typeof projectReport>;
      try {
        projected = projectReport(header, records);
      } catch (err) {
        if (err instanceof InputError) throw err;
        // A log cut short (a crashed or killed run) has no run.end record to report from.
        throw new InputError(file, (err as Error).message);
      }
      const report = judge(projected, header.budgets);
      const json = JSON.stringify(report, null, 2) + '\n';
      if (opts.out !== undefined) writeFileAtomic(opts.out, json);
      process.stdout.write(opts.json ? json : renderSummaryTable([report]));
      process.exitCode = report.pass ? EXIT.pass : EXIT.fail;
    });
}
