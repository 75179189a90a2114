import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ClusterSchema } from '../sim/cluster/cluster-schema.ts';
import { resolveCluster } from '../sim/cluster/resolve.ts';
import { RandomStreams } from '../sim/random-streams.ts';
import { renderKeepalivedConf } from './keepalived-conf.ts';

const nodes = [
  { name: 'infra-1', ip: '198.18.0.11' },
  { name: 'infra-2', ip: '198.18.0.12' },
  { name: 'infra-3', ip: '198.18.0.13' },
];

function resolved(cluster: Record<string, unknown>) {
  return resolveCluster(ClusterSchema.parse({ nodes, ...cluster }), new RandomStreams(1));
}

const explicit = resolved({
  keepalived: {
    instances: [
      { vip: '198.18.0.100', vrid: 51, priorities: { 'infra-1': 150, 'infra-2': 100 }, track: [{ script: 'router-check' }] },
      { vip: '198.18.0.101', vrid: 52, priorities: { 'infra-2': 150 }, preempt: false },
      { vip: '198.18.0.102', vrid: 53, preemptDelayMs: 1500 },
    ],
  },
});

describe('renderKeepalivedConf', () => {
  test("an instance's own version and advert interval, and `state MASTER` on its master nodes", () => {
    const r = resolved({
      keepalived: {
        instances: [
          { vip: '198.18.0.100', vrid: 51, masterNodes: ['infra-2'] },
          { vip: '198.18.0.101', vrid: 52, version: 3, advertIntervalMs: 200 },
        ],
      },
    });
    const block = (conf: string, vrid: number) => conf.slice(conf.indexOf(`vrrp_instance VI_${vrid} {`)).split('\n}')[0]!;
    expect(block(renderKeepalivedConf(r, 'infra-2'), 51)).toContain('  state MASTER\n');
    expect(block(renderKeepalivedConf(r, 'infra-1'), 51)).toContain('  state BACKUP\n');
    const v3 = block(renderKeepalivedConf(r, 'infra-1'), 52);
    expect(v3).toContain('  version 3\n');
    expect(v3).toContain('  advert_int 0.2\n');
    expect(block(renderKeepalivedConf(r, 'infra-1'), 51)).not.toContain('version');
  });

  test('one vrrp_instance per VIP with the node priority, preemption and the router check', () => {
    const conf = renderKeepalivedConf(explicit, 'infra-1', { scriptCommand: (s, n) => `/usr/bin/test ! -e /run/x/${n}.${s}` });
    expect(conf).toBe(`# Rendered by routerbench (fidelity/keepalived-conf.ts) for node infra-1 (198.18.0.11).
global_defs {
  router_id infra-1
  vrrp_version 2
  script_user root
  enable_script_security
}

vrrp_script chk_router_check {
  script "/usr/bin/test ! -e /run/x/infra-1.router-check"
  interval 1
  weight 0
  fall 1
  rise 1
}

vrrp_instance VI_51 {
  state BACKUP
  interface eth0
  virtual_router_id 51
  priority 150
  advert_int 1
  garp_master_delay 5
  virtual_ipaddress {
    198.18.0.100/32 dev eth0
  }
  track_script {
    chk_router_check
  }
}

vrrp_instance VI_52 {
  state BACKUP
  interface eth0
  virtual_router_id 52
  priority 100
  advert_int 1
  nopreempt
  garp_master_delay 5
  virtual_ipaddress {
    198.18.0.101/32 dev eth0
  }
}

vrrp_instance VI_53 {
  state BACKUP
  interface eth0
  virtual_router_id 53
  priority 100
  advert_int 1
  preempt_delay 1.5
  garp_master_delay 5
  virtual_ipaddress {
    198.18.0.102/32 dev eth0
  }
}
`);
  });

  test('unicast lists every other node; v3 carries centiseconds; down_timer_adverts only when not 3', () => {
    const r = resolved({
      keepalived: { version: 3, advertIntervalMs: 250, downTimerAdverts: 4, unicast: true, instances: [{ vip: '198.18.0.100', vrid: 7 }] },
    });
    const conf = renderKeepalivedConf(r, 'infra-2');
    expect(conf).toContain('vrrp_version 3');
    expect(conf).toContain('  advert_int 0.25\n  down_timer_adverts 4\n');
    expect(conf).toContain('  unicast_src_ip 198.18.0.12\n  unicast_peer {\n    198.18.0.11\n    198.18.0.13\n  }\n');
  });

  test("a misconfigured node's own interval, in the whole seconds VRRPv2 carries", () => {
    // A v2 interval that is no whole second (1.4 s, which keepalived would round to 1 s) is refused by the
    // cluster schema (RFC 3768 §5.3.7: Adver Int in seconds), so only whole seconds reach the conf.
    expect(() => resolved({ keepalived: { advertIntervalMs: 1400, instances: [{ vip: '198.18.0.100', vrid: 7 }] } })).toThrow(/VRRPv2 carries the advert interval in whole seconds/);
    const r = resolved({ keepalived: { advertIntervalMs: 1000, advertIntervalMsByNode: { 'infra-3': 2000 }, instances: [{ vip: '198.18.0.100', vrid: 7 }] } });
    expect(renderKeepalivedConf(r, 'infra-1')).toContain('advert_int 1\n');
    expect(renderKeepalivedConf(r, 'infra-3')).toContain('advert_int 2\n');
  });

  test('ipfailover: priorities from the generator, its check script at its interval, preempt_delay 300 but none for preferred masters', () => {
    const r = resolved({ ipfailover: { virtualIps: '198.18.0.100-101' } });
    for (const n of nodes) {
      const conf = renderKeepalivedConf(r, n.name);
      r.instances.forEach((spec, i) => {
        expect(conf).toContain(`virtual_router_id ${spec.vrid}\n  priority ${r.priorityFor(n.name, n.ip, i)}\n`);
      });
      expect(conf).toContain('interval 2\n');
      const preferred = r.instances.filter((s) => s.initialMasterNodes.includes(n.name)).length;
      expect(conf.split('preempt_delay 300').length - 1).toBe(r.instances.length - preferred);
    }
  });

  test('ipfailover VIP groups: one instance per group, listing every VIP of it', () => {
    const r = resolved({ ipfailover: { virtualIps: '198.18.0.100-104', vipGroups: 2 } });
    const conf = renderKeepalivedConf(r, 'infra-1');
    expect(conf.split('vrrp_instance ').length - 1).toBe(2);
    // 5 VIPs in 2 groups: 3, then 2.
    expect(conf).toContain('  virtual_ipaddress {\n    198.18.0.100/32 dev eth0\n    198.18.0.101/32 dev eth0\n    198.18.0.102/32 dev eth0\n  }');
    expect(conf).toContain('  virtual_ipaddress {\n    198.18.0.103/32 dev eth0\n    198.18.0.104/32 dev eth0\n  }');
  });

  test('refuses an unknown node', () => {
    expect(() => renderKeepalivedConf(explicit, 'nope')).toThrow(/unknown node 'nope'/);
  });
});

const keepalivedMissing = spawnSync('keepalived', ['-v'], { encoding: 'utf8' }).error !== undefined;

describe.skipIf(keepalivedMissing)('real keepalived accepts the rendered configs (keepalived -t)', () => {
  // Skipped when the keepalived binary is absent: `apt-get install -y keepalived` (CI's .ci/run does).
  const cases: Array<[string, ReturnType<typeof resolved>]> = [
    ['explicit instances, v2, multicast', explicit],
    ['v3, unicast, down_timer_adverts', resolved({ keepalived: { version: 3, advertIntervalMs: 250, downTimerAdverts: 4, unicast: true, instances: [{ vip: '198.18.0.100', vrid: 7, preemptDelayMs: 2500 }] } })],
    ['ipfailover', resolved({ ipfailover: { virtualIps: '198.18.0.100-102' } })],
    ['ipfailover with VIP groups', resolved({ ipfailover: { virtualIps: '198.18.0.100-104', vipGroups: 2 } })],
  ];
  test.each(cases)('%s', (_name, r) => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-kconf-'));
    try {
      for (const n of r.nodes) {
        const file = join(dir, `${n.name}.conf`);
        writeFileSync(file, renderKeepalivedConf(r, n.name, { scriptCommand: () => '/usr/bin/test -e /etc/hostname' }));
        const res = spawnSync('keepalived', ['-t', '-f', file], { encoding: 'utf8', timeout: 10_000 });
        expect({ node: n.name, status: res.status, stderr: res.stderr }).toEqual({ node: n.name, status: 0, stderr: expect.any(String) });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
