/**
 * The VRRP benchmark: 50 nodes, 200 VIPs (one instance per node per VIP: 10,000 instances), multicast,
 * one simulated hour. Expected work: 200 masters × 3600 adverts = 720,000 adverts, each delivered to 49 peers
 * (≈ 35.3 million deliveries). Target: under 15 s of wall time on one core (≥ 240× real time).
 *
 *   npx tsx bench/vrrp.ts [nodes] [vips] [simulated seconds] [--unicast]
 *
 * Measured 2026-11-29 on this 2-core machine while other work kept the load average at 9–18 (wall time is
 * inflated 2–4×; CPU time is the figure to compare), timed from construction of the 10,000 instances:
 * 719,400 adverts, 35,250,600 deliveries (all on the fast path), 400 machine transitions,
 * 13.3 s CPU / 40.8 s wall at load 10.6 (271× real time per CPU second).
 */
import { ClusterSchema } from '../sim/cluster/cluster-schema.ts';
import { ClusterSim } from '../sim/cluster/cluster-sim.ts';
import { Engine } from '../sim/engine.ts';
import { RandomStreams } from '../sim/random-streams.ts';
import { benchCommand, intIn, parseBenchArgs } from './lib/cli.ts';

const cli = parseBenchArgs(
  benchCommand(
    'vrrp.ts',
    'the VRRP benchmark: keepalived on every node, one instance per node per VIP, steady state for a simulated time (target: 50 nodes, 200 VIPs, one hour in under 15 s)',
    'wall and CPU time, adverts and packets sent, deliveries (and how many took the fast path), machine events, output records, simulated time over wall and CPU time, and the load average',
  )
    .argument('[nodes]', 'router nodes (default: 50)', intIn(1, 10_000))
    .argument('[vips]', 'VIPs, at most 255 (distinct vrids) (default: 200)', intIn(1, 255))
    .argument('[seconds]', 'simulated seconds (default: 3600)', intIn(1, 10_000_000))
    .option('--unicast', 'unicast peers instead of multicast'),
);
const [nodesArg, vipsArg, secondsArg] = cli.processedArgs as (number | undefined)[];
const unicast = cli.opts<{ unicast?: boolean }>().unicast === true;
const nodes = nodesArg ?? 50;
const vips = vipsArg ?? 200;
const seconds = secondsArg ?? 3600;

const cluster = ClusterSchema.parse({
  nodes: Array.from({ length: nodes }, (_, i) => ({ name: `node-${i + 1}`, ip: `198.18.${Math.floor((i + 1) / 250)}.${((i + 1) % 250) + 1}` })),
  network: { delayMs: 0.2, jitterMs: 0.1, loss: 0 },
  keepalived: {
    unicast,
    instances: Array.from({ length: vips }, (_, v) => ({
      vip: `10.0.${Math.floor(v / 250)}.${(v % 250) + 1}`,
      vrid: (v % 255) + 1,
      // Spread masters: node (v mod n) gets the top priority for VIP v.
      priorities: Object.fromEntries(Array.from({ length: nodes }, (_, i) => [`node-${i + 1}`, i === v % nodes ? 200 : 100 + ((i + v) % 50)])),
    })),
  },
});
// vrids repeat beyond 255 VIPs; the schema rejects duplicates, so the default bench stays at ≤ 255 VIPs.

// Timed from construction (10,000 instances) to the final stats.
const t0 = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
const engine = new Engine();
const streams = new RandomStreams(1);
let records = 0;
const sim = new ClusterSim(cluster, engine, streams, () => void records++);
sim.start();
const result = engine.run([], () => {}, { settleUs: 0, durationUs: seconds * 1_000_000 });
sim.finish();
const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
const cpu = process.cpuUsage(cpu0);
const cpuMs = (cpu.user + cpu.system) / 1000;
const c = sim.counters();
const simS = result.endUs / 1e6;
console.log(`VRRP benchmark: ${nodes} nodes, ${vips} VIPs, ${unicast ? 'unicast' : 'multicast'}, ${simS} s simulated`);
console.log(`  wall time        ${(wallMs / 1000).toFixed(2)} s`);
console.log(`  CPU time         ${(cpuMs / 1000).toFixed(2)} s (wall time is inflated when other processes share the cores)`);
console.log(`  adverts sent     ${c.advertsSent.toLocaleString('en')}`);
console.log(`  packets sent     ${c.packetsSent.toLocaleString('en')}`);
console.log(`  deliveries       ${c.deliveries.toLocaleString('en')}  (fast path ${c.fastAdverts.toLocaleString('en')})`);
console.log(`  machine events   ${c.slowEvents.toLocaleString('en')}`);
console.log(`  output records   ${records.toLocaleString('en')}`);
console.log(`  sim/wall ratio   ${((simS * 1000) / wallMs).toFixed(0)}×   sim/CPU ratio ${((simS * 1000) / cpuMs).toFixed(0)}×`);
console.log(`  load average     ${(await import('node:os')).loadavg()[0]!.toFixed(1)} on ${(await import('node:os')).cpus().length} cores`);
