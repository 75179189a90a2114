import { join } from 'node:path';
import { renderSweepHtml } from '../../reports/render/sweep-html.ts';
import { formatNumber } from '../../reports/render/escape.ts';
import { closestPoint } from '../../reports/sweep/closest.ts';
import type { SweepJson, SweepResult } from '../sweep/outputs.ts';
import { describePoint } from '../sweep/plan.ts';
import { EXIT, EXIT_INTERRUPTED } from './exit-codes.ts';
import { checkOutDir, checkOutputFiles, writeFileAtomic } from './write-outputs.ts';

/*
 * How a sweep ends, whether it ran (`sweep`) or was combined from shards (`merge`): the files it writes,
 * the outcome it prints and its exit code.
 */

/** A sweep stopped with Ctrl-C exits with it, after it wrote the finished rows. */
export { EXIT_INTERRUPTED };

/** What a sweep (or a merge) writes in its --out directory. */
export const SWEEP_FILES = ['runs.csv', 'runs.json', 'sweep.json', 'sweep.html'] as const;

/** --out checked before any run: a long sweep must not end on a directory standing where a file goes. */
export function checkSweepOut(out: string | undefined): void {
  if (out === undefined) return;
  checkOutDir(out);
  checkOutputFiles(SWEEP_FILES.map((f) => join(out, f)));
}

/** Writes the outputs, prints the outcome and returns the exit code (shared with merge). */
export function finishSweep(result: SweepResult, opts: { out?: string; json?: boolean }): number {
  if (opts.out !== undefined) {
    for (const [name, text] of Object.entries(result.files)) writeFileAtomic(join(opts.out, name), text);
    writeFileAtomic(join(opts.out, 'sweep.html'), renderSweepHtml(result.json));
  }
  if (opts.json) process.stdout.write(result.files['sweep.json']);
  else process.stdout.write(describeOutcome(result.json, opts.out));
  return exitCodeOf(result.json);
}

export function exitCodeOf(json: SweepJson): number {
  if (json.interrupted === true) return EXIT_INTERRUPTED;
  if (json.verdict === 'none-meets-budget') return EXIT.fail;
  return EXIT.pass;
}

export function describeOutcome(json: SweepJson, out: string | undefined): string {
  const d = json.definition;
  const lines = [`${d.scenario.name}: ${json.points.length} complete points, ${json.runs.completed} of ${json.runs.expected} runs`];
  const r = json.recommendation;
  if (json.verdict === 'recommended' && r !== null) {
    lines.push(`recommendation: ${describePoint(r.settings)}`);
    for (const c of r.checks) {
      const interval = `${c.lower === null ? 'unbounded' : formatNumber(c.lower)} – ${c.upper === null ? 'unbounded' : formatNumber(c.upper)}`;
      // Only a side that is actually unbounded needs explaining (a quantile's bound needs enough seeds).
      const why = c.lower === null || c.upper === null ? '; too few seeds leave a side unbounded' : '';
      lines.push(`  ${c.budget}: ${c.statistic} = ${formatNumber(c.value)} (its confidence interval: ${interval}${why})`);
    }
    lines.push(`  cost: ${r.cost.slotServers} empty slot servers, ${r.cost.poolBackends} pool backends, about ${formatNumber(r.cost.mib)} MiB`);
  } else if (json.verdict === 'none-meets-budget') {
    lines.push(`no point of the grid meets the budget (${d.budgets.join(', ')}) at the ${d.statistic.kind === 'quantile' ? `p${formatNumber(d.statistic.q * 100)} across seeds` : `${formatNumber(d.statistic.level * 100)}% confidence bound`}: widen the grid`);
    const closest = closestPoint(json.points);
    if (closest !== undefined) {
      lines.push(`  closest: ${describePoint(closest.settings)}: ${closest.checks.map((c) => `${c.metric} ${c.statistic} = ${formatNumber(c.value)} (${c.pass ? 'meets' : 'misses'} ${c.budget})`).join('; ')}`);
    }
  } else if (json.verdict === 'no-budget') {
    lines.push('no budget (give --budget or budgets in the scenario): no recommendation');
  } else if (json.shard !== undefined) {
    lines.push(`shard ${json.shard.index}/${json.shard.count} done: combine the shards with routerbench merge DIR... --out DIR`);
  } else {
    lines.push('stopped before every run finished: the finished rows are kept, no recommendation');
  }
  if (out !== undefined) lines.push(`wrote ${join(out, 'runs.csv')}, runs.json, sweep.json, sweep.html`);
  lines.push(`reproduce: ${json.reproduce}`);
  return lines.join('\n') + '\n';
}
