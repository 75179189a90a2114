/**
 * The keepalived fidelity table: runs the comparison plan on real keepalived processes in network namespaces
 * (fidelity/netns-harness.ts; needs root, iproute2, keepalived; python3 for the advert observer), the same
 * faults through the simulator at the same advert phase, and prints the side-by-side table as Markdown (for the
 * docs/fidelity.md and docs/fidelity-keepalived.md), then every incident pair and the masters' measured advert periods.
 *
 *   sudo npx tsx bench/keepalived-fidelity.ts [--quick] [--json FILE]
 *
 * --quick runs one incident of each kind (~45 s) instead of DEFAULT_PLAN (~100 s). Exit 2 when the real
 * keepalived cannot run here (the reason is printed).
 */
import { writeFileSync } from 'node:fs';
import { simulateIncident } from '../fidelity/keepalived-fidelity.ts';
import { DEFAULT_PLAN, measureRealKeepalived, type FidelityPlan } from '../fidelity/keepalived-real.ts';
import { fidelityRows, renderFidelityTable, spreadOf } from '../fidelity/keepalived-table.ts';
import { netnsUnavailableReason } from '../fidelity/netns-harness.ts';
import { benchCommand, parseBenchArgs } from './lib/cli.ts';

const opts = parseBenchArgs(
  benchCommand(
    'keepalived-fidelity.ts',
    'failover latency of real keepalived (network namespaces; needs root, iproute2, keepalived, python3) against the simulator at the same advert phase',
    'progress on stderr; then the side-by-side table as Markdown, every incident pair, the masters\' advert period seen on the bridge and notes; exit 2 when real keepalived cannot run here',
  )
    .option('--quick', 'one incident of each kind (~45 s) instead of the default plan (~100 s)')
    .option('--json <file>', 'also write the measurements and rows as JSON to this file'),
).opts<{ quick?: boolean; json?: string }>();

const unavailable = netnsUnavailableReason();
if (unavailable !== null) {
  console.error(`keepalived-fidelity: cannot run real keepalived here: ${unavailable}`);
  process.exit(2);
}
const quick = opts.quick === true;
const plan: FidelityPlan = quick ? { crash: 1, 'host-loss': 1, shutdown: 1, 'router-fail': 1, partition: 1 } : DEFAULT_PLAN;

const real = await measureRealKeepalived(plan, (line) => console.error(line));
const sim = real.incidents.map((i) => simulateIncident(i));
const rows = fidelityRows(real.incidents, sim);

console.log(`${real.keepalivedVersion} against the simulator: 3 nodes, 2 VIPs, VRRPv2, A = 1 s, priorities 150/100/50, router check every 1 s (${real.realSeconds.toFixed(0)} s of real time).\n`);
console.log(renderFidelityTable(rows));
console.log('| fault | # | VIP | fault after the last advert (ms) | priority-0 advert after (ms) | old master dropped the VIP after (ms) | real (ms) | simulated (ms) | sim − real (ms) |');
console.log('| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
real.incidents.forEach((r, k) => {
  const s = sim[k]!.latencyMs;
  const fmt = (x: number | null) => (x === null ? '–' : x.toFixed(1));
  console.log(`| ${r.kind} | ${r.index} | ${r.vip} | ${fmt(r.sinceAdvertMs)} | ${fmt(r.zeroAdvertMs)} | ${fmt(r.resignMs)} | ${fmt(r.latencyMs)} | ${fmt(s)} | ${s === null || r.latencyMs === null ? '–' : (s - r.latencyMs).toFixed(1)} |`);
});
const p = spreadOf(real.advertPeriodsMs.filter((x) => x > 900 && x < 1100));
if (p.n > 0) console.log(`\nMasters' advert period as observed on the bridge: n = ${p.n}, min ${p.minMs.toFixed(1)} / median ${p.medianMs.toFixed(1)} / max ${p.maxMs.toFixed(1)} ms (the simulator: exactly ${1000} ms).`);
for (const n of real.notes) console.log(`note: ${n}`);
if (opts.json !== undefined) writeFileSync(opts.json, JSON.stringify({ real, sim, rows }, null, 2) + '\n');
