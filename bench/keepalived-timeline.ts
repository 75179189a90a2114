/**
 * A scenario's VRRP cluster on real keepalived, for checking the simulator's timing by eye: starts every node
 * of the scenario's `cluster` in its own network namespace (fidelity/netns-harness.ts; root, iproute2,
 * keepalived, python3), starts each `node.join` node at its event's time (with its own priority and preemption,
 * if the event gives them) with a configuration that lists
 * every node (the others' configurations never list it: no regeneration), freezes each `node.stall` node's
 * VRRP process (SIGSTOP, then SIGCONT after `durationMs`), cuts nodes off at `network.partition` (bridge
 * ports; see partitionSteps) until `network.heal`, makes a tracked script fail at `script.fail` (each script
 * tests a flag file, created then, removed at `script.recover`), takes the node's carrier away at `link.down`
 * (its bridge port goes down) until `link.up`, rewrites a node's keepalived.conf with the new priority and
 * sends SIGHUP at `keepalived.reload` (its priority and VIP lists), kills keepalived at `keepalived.crash` (SIGKILL, the host
 * runs on) and starts it at `keepalived.restart`, and prints, in seconds from the start, every advert
 * and every burst of gratuitous ARPs seen on the bridge and every VIP added or removed, then each node's last log lines. Other events of the
 * scenario are not applied.
 *
 *   sudo npx tsx bench/keepalived-timeline.ts scenarios/vrrp-interval-mismatch.yaml [--seconds 20]
 *   sudo npx tsx bench/keepalived-timeline.ts scenarios/vrrp-unicast-join.yaml --seconds 30 --join-at 8
 *
 * `--join-at S` starts the joiners S seconds in instead of at their event's time. docs/fidelity-keepalived.md
 * quotes what these two showed on keepalived 2.2.7.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError } from 'commander';
import { vipsOf, type NodeOverrides } from '../core/vrrp/instance-spec.ts';
import { renderKeepalivedConf } from '../fidelity/keepalived-conf.ts';
import { NetnsCluster, netnsUnavailableReason } from '../fidelity/netns-harness.ts';
import { wallUs } from '../fidelity/real-time.ts';
import { ClusterSchema } from '../sim/cluster/cluster-schema.ts';
import { resolveCluster } from '../sim/cluster/resolve.ts';
import { RandomStreams } from '../sim/random-streams.ts';
import { loadScenario } from '../sim/scenario/load-scenario.ts';
import { benchCommand, parseBenchArgs } from './lib/cli.ts';

const cli = parseBenchArgs(
  benchCommand(
    'keepalived-timeline.ts',
    'a scenario\'s VRRP cluster on real keepalived in network namespaces (needs root, iproute2, keepalived, python3), with its node.join, node.stall, network.partition, network.heal, link, script and keepalived.crash/restart/reload events; other events are not applied',
    'in seconds from the start, every advert and every burst of gratuitous ARPs seen on the bridge and every VIP added or removed; then each node\'s last log lines; exit 2 when real keepalived cannot run here',
  )
    .argument('<scenario>', 'a scenario file with a cluster')
    .option('--seconds <s>', 'how long to watch', secondsArg(false), 20)
    .option('--join-at <s>', 'start the joining nodes this many seconds in instead of at their events\' times', secondsArg(true)),
);
const file = cli.args[0]!;
const { seconds, joinAt: joinAtS } = cli.opts<{ seconds: number; joinAt?: number }>();

function secondsArg(zeroAllowed: boolean): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0 || (n === 0 && !zeroAllowed)) throw new InvalidArgumentError(`a number of seconds${zeroAllowed ? ', 0 or more' : ' above 0'}`);
    return n;
  };
}
const unavailable = netnsUnavailableReason();
if (unavailable !== null) {
  console.error(`keepalived-timeline: cannot run real keepalived here: ${unavailable}`);
  process.exit(2);
}

const input = loadScenario(file);
const config = input.cluster;
if (config === undefined) {
  console.error(`${file}: the scenario has no cluster`);
  process.exit(2);
}
const events = [...input.events()];
const joins = events.flatMap((e) =>
  e.type === 'node.join' ? [{ name: e.node, ip: e.ip, atS: joinAtS ?? e.at / 1000, own: { priority: e.priority, preempt: e.preempt, preemptDelayMs: e.preemptDelayMs } }] : [],
);
/**
 * network.partition through the bridge: every node outside the largest group loses its port (so those nodes
 * are also cut off from each other, which a scenario's groups may not intend: said in the step's text);
 * network.heal restores every port cut. One-way partitions are not supported.
 */
function partitionSteps(all: readonly (typeof events)[number][]): { atS: number; text: string; act: () => unknown }[] {
  const cut = new Set<string>();
  return all.flatMap((e) => {
    if (e.type === 'network.partition') {
      if (e.oneWay === true) throw new Error('keepalived-timeline: one-way partitions are not supported');
      const largest = [...e.groups].sort((a, b) => b.length - a.length)[0]!;
      const isolated = e.groups.filter((g) => g !== largest).flat();
      const apart = e.groups.filter((g) => g !== largest).some((g) => g.length > 1) ? ' (each on its own: the bridge cuts whole ports)' : '';
      return [{ atS: e.at / 1000, text: `partition: ${isolated.join(', ')} cut off${apart}`, act: () => isolated.forEach((n) => (cut.add(n), cluster.partition(n))) }];
    }
    if (e.type === 'network.heal') return [{ atS: e.at / 1000, text: 'heal', act: () => [...cut].forEach((n) => (cut.delete(n), cluster.heal(n))) }];
    return [];
  });
}
/** The flag file whose presence makes `script` fail on `node` (the scripts run as root in the node's namespace). */
const flagDir = mkdtempSync(join(tmpdir(), 'routerbench-timeline-'));
const scriptFlag = (node: string, script: string): string => join(flagDir, `${node}.${script.replace(/[^A-Za-z0-9_-]/g, '_')}.down`);
const founders = resolveCluster(ClusterSchema.parse(config), new RandomStreams(input.settings.seed));
const everyone = resolveCluster(ClusterSchema.parse({ ...config, nodes: [...config.nodes, ...joins.map(({ name, ip }) => ({ name, ip }))] }), new RandomStreams(input.settings.seed));
const joiners = new Set(joins.map((j) => j.name));
const reloaded: Record<string, { own: NodeOverrides; vips: Map<number, readonly string[]> }> = {};
function confOf(node: string, own: NodeOverrides | undefined, vipsByVrid?: ReadonlyMap<number, readonly string[]>): string {
  return renderKeepalivedConf(joiners.has(node) ? everyone : founders, node, {
    own,
    ...(vipsByVrid !== undefined && { vipsByVrid }),
    scriptCommand: (script, n) => `/usr/bin/test ! -e ${scriptFlag(n, script)}`,
  });
}
const cluster = await NetnsCluster.create({
  nodes: everyone.nodes,
  vips: [...new Set([...everyone.instances.flatMap((i) => vipsOf(i)), ...events.flatMap((e) => (e.type === 'keepalived.reload' ? (e.instances ?? []).flatMap((i) => i.vips) : []))])],
  conf: (node) => confOf(node, joins.find((j) => j.name === node)?.own),
});
const t0 = wallUs();
const at = (us: number): string => ((us - t0) / 1e6).toFixed(3).padStart(8);
const started: { us: number; text: string }[] = [];
try {
  for (const n of founders.nodes) await cluster.start(n.name);
  const steps: { atS: number; text: string; act: () => Promise<unknown> | unknown }[] = [
    ...joins.map((j) => ({ atS: j.atS, text: `${j.name} starts (join)`, act: () => cluster.start(j.name) })),
    ...events.flatMap((e) =>
      e.type === 'node.stall'
        ? [
            { atS: e.at / 1000, text: `${e.node} stalls (SIGSTOP)`, act: () => cluster.stall(e.node) },
            { atS: (e.at + e.durationMs) / 1000, text: `${e.node} resumes (SIGCONT)`, act: () => cluster.resume(e.node) },
          ]
        : [],
    ),
    ...partitionSteps(events),
    ...events.flatMap((e) =>
      e.type === 'keepalived.reload'
        ? [
            {
              atS: e.at / 1000,
              text: `${e.node}: keepalived reloads${e.priority === undefined ? '' : ` with priority ${e.priority}`}${(e.instances ?? []).map((i) => `, vrid ${i.vrid} VIPs ${i.vips.join(' ')}`).join('')}`,
              act: () => {
                // A node's settings accumulate over its reloads, as its rewritten keepalived.conf would.
                const s = (reloaded[e.node] ??= { own: { ...joins.find((j) => j.name === e.node)?.own }, vips: new Map() });
                if (e.priority !== undefined) s.own.priority = e.priority;
                for (const i of e.instances ?? []) s.vips.set(i.vrid, i.vips);
                return cluster.reload(e.node, confOf(e.node, s.own, s.vips));
              },
            },
          ]
        : e.type === 'keepalived.crash' || e.type === 'keepalived.restart'
        ? [{ atS: e.at / 1000, text: `${e.node}: keepalived ${e.type === 'keepalived.crash' ? 'killed (SIGKILL)' : 'restarts'}`, act: () => (e.type === 'keepalived.crash' ? cluster.crash(e.node) : cluster.start(e.node)) }]
        : e.type === 'link.down' || e.type === 'link.up'
        ? [{ atS: e.at / 1000, text: `${e.node}: carrier ${e.type === 'link.down' ? 'lost' : 'back'}`, act: () => (e.type === 'link.down' ? cluster.carrierDown(e.node) : cluster.carrierUp(e.node)) }]
        : e.type === 'script.fail' || e.type === 'script.recover'
        ? [{ atS: e.at / 1000, text: `${e.node}: ${e.script} ${e.type === 'script.fail' ? 'fails' : 'recovers'}`, act: () => (e.type === 'script.fail' ? writeFileSync(scriptFlag(e.node, e.script), '') : rmSync(scriptFlag(e.node, e.script), { force: true })) }]
        : [],
    ),
  ].sort((a, b) => a.atS - b.atS);
  for (const step of steps) {
    if (step.atS > seconds) break;
    await sleep(Math.max(0, t0 / 1000 + step.atS * 1000 - wallUs() / 1000));
    started.push({ us: wallUs(), text: step.text });
    await step.act();
  }
  await sleep(Math.max(0, t0 / 1000 + seconds * 1000 - wallUs() / 1000));
  const lines = [
    ...started,
    ...cluster.adverts.map((a) => ({ us: a.atUs, text: `advert from ${a.node}, vrid ${a.vrid}, priority ${a.priority}` })),
    ...garpBursts(cluster.garps).map((b) => ({ us: b.atUs, text: `${b.count} gratuitous ARP${b.count === 1 ? '' : 's'} from ${b.node} for ${b.address}` })),
    ...cluster.events.map((e) => ({ us: e.atUs, text: `${e.node} ${e.added ? 'adds' : 'removes'} ${e.address}` })),
  ].sort((a, b) => a.us - b.us);
  for (const l of lines) console.log(`${at(l.us)}  ${l.text}`);
  for (const n of cluster.nodeNames()) console.log(`--- ${n}\n${cluster.logTail(n, 10)}`);
} finally {
  await cluster.destroy();
  rmSync(flagDir, { recursive: true, force: true });
}

/** keepalived sends a burst of GARPs within milliseconds: one line per burst (same node and address, < 100 ms apart). */
function garpBursts(garps: readonly { atUs: number; node: string; address: string }[]): { atUs: number; node: string; address: string; count: number }[] {
  const bursts: { atUs: number; lastUs: number; node: string; address: string; count: number }[] = [];
  for (const g of [...garps].sort((a, b) => a.atUs - b.atUs)) {
    const open = bursts.find((b) => b.node === g.node && b.address === g.address && g.atUs - b.lastUs < 100_000);
    if (open !== undefined) {
      open.count++;
      open.lastUs = g.atUs;
    } else {
      bursts.push({ atUs: g.atUs, lastUs: g.atUs, node: g.node, address: g.address, count: 1 });
    }
  }
  return bursts;
}
