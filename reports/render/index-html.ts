import { escapeHtml as h, formatNumber } from './escape.ts';
import { plural } from './failure-detail.ts';
import { outcomePasses, type ScenarioOutcome } from './outcome.ts';
import { pageHead } from './page-head.ts';

/**
 * index.html beside several runs' directories: a row per scenario (failures first, as in summary.md) with
 * its verdict, what broke, its key figures, and a link to its own report.html. `dirs[i]` is the directory
 * name of `outcomes[i]`, relative to the page. Nothing but links and text: no script.
 */
export function renderIndexHtml(outcomes: readonly ScenarioOutcome[], dirs: readonly string[]): string {
  const order = outcomes.map((o, i) => ({ o, dir: dirs[i]! })).sort((a, b) => Number(outcomePasses(a.o)) - Number(outcomePasses(b.o)));
  const failed = outcomes.filter((o) => !outcomePasses(o)).length;
  const rows = order
    .map(({ o, dir }) => {
      const r = o.report;
      const ok = outcomePasses(o);
      const broke = [
        ...r.budgets.filter((b) => !b.pass).map((b) => `${b.name} = ${formatNumber(b.actual)}, budget ${b.limit}`),
        ...(o.report.baseline?.rows.filter((m) => m.verdict === 'regressed').map((m) => `${m.path} regressed against the baseline`) ?? []),
      ];
      const href = `${encodeURIComponent(dir)}/report.html`;
      return `<tr><td><a href="${h(href)}">${h(r.scenario)}</a></td><td class="${ok ? 'good' : 'bad'}">${ok ? 'pass' : 'FAIL'}</td><td>${h(broke.join('; '))}</td><td>${h(r.strategy)}</td><td class="num">${formatNumber(r.events)}</td><td class="num">${r.reloads.total}</td><td class="num">${formatNumber(r.failover.latencyMs.p99)}</td></tr>`;
    })
    .join('\n');
  const title = `routerbench: ${plural(outcomes.length, 'scenario')}, ${failed === 0 ? 'all passed' : `${formatNumber(failed)} failed`}`;
  return `${pageHead(title, { maxWidthPx: 1100, cellPadding: '.25rem .6rem', css: '' })}
<body>
<h1>${h(title)}</h1>
<table><thead><tr><th>Scenario</th><th>Verdict</th><th>What broke</th><th>Strategy</th><th>Events</th><th>Reloads</th><th>Failover p99 (ms)</th></tr></thead><tbody>
${rows}
</tbody></table>
</body>
</html>
`;
}
