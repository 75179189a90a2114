/** Shared by the loader's tests and the CLI exit-code test. */
const ROUTE = '{ at: 0, type: route.upsert, route: { namespace: a, name: r, host: h.example.com, service: s } }';

/**
 * Bad scenario files: each gives exactly one InputError naming the file, line, column and key.
 * [what, yaml, line, column, field, message pattern]
 */
export const BAD_SCENARIOS: Array<[string, string, number, number, string | undefined, RegExp]> = [
  ['YAML syntax error: bad indentation', `router:\n  strategy: dcm-slots\n maxDynamicServers: 3\n`, 3, 1, undefined, /YAML: All mapping items must start at the same column/],
  ['YAML syntax error: tab indentation', `name: x\n\tseed: 1\n`, 2, 1, undefined, /YAML: Tabs are not allowed/],
  ['duplicate key', `name: a\nname: b\nevents: []\n`, 2, 1, undefined, /YAML: Map keys must be unique/],
  ['empty file', ``, 1, 1, undefined, /empty scenario/],
  ['a list instead of a mapping', `- name: a\n`, 1, 1, undefined, /is a mapping of keys/],
  ['unknown top-level key', `name: a\nbudget: {}\nevents: []\n`, 2, 1, 'budget', /unknown key 'budget' \(did you mean 'budgets'\?\)/],
  ['unknown router key', `router:\n  maxDynamicServer: 4\nevents: []\n`, 2, 3, 'router.maxDynamicServer', /did you mean 'maxDynamicServers'/],
  ['wrong type', `seed: abc\nevents: []\n`, 1, 7, 'seed', /expected number, got string "abc"/],
  ['impossible value: zero slots', `router:\n  maxDynamicServers: 0\nevents: []\n`, 2, 22, 'router.maxDynamicServers', /must be at least 1, got 0/],
  ['YAML infinity where a number must be finite', `router:\n  maxDynamicServers: .inf\nevents: []\n`, 2, 22, 'router.maxDynamicServers', /expected number, got infinity \(\.inf\)/],
  ['negative settle time', `sim: { settleMs: -5 }\nevents: []\n`, 1, 18, 'sim.settleMs', /must be at least 0, got -5/],
  ['unknown strategy', `router: { strategy: reload-never }\nevents: []\n`, 1, 21, 'router.strategy', /expected one of "reload-always", "dcm-slots", "dcm-add-del"; got "reload-never"/],
  ['unknown event type', `events:\n  - ${ROUTE}\n  - { at: 5, type: route.upsertt }\n`, 3, 20, 'events[1].type', /unknown event type "route.upsertt"; one of route.upsert, /],
  ['event missing a field', `events:\n  - { at: 0, type: route.delete, namespace: a }\n`, 2, 5, 'events[0].name', /missing \(expected string\)/],
  ['events going backwards', `events:\n  - { at: 10, type: network.heal }\n  - { at: 5, type: network.heal }\n`, 3, 11, 'events[1].at', /time goes backwards/],
  ['a bad endpoint IP', `events:\n  - { at: 0, type: endpoints.set, namespace: a, service: s, endpoints: [{ ip: 10.0.0.300, port: 80 }] }\n`, 2, 79, 'events[0].endpoints[0].ip', /IPv/],
  // Column 72 is the host's value: the line's text before it is 71 characters long.
  ['a route host with a space', `events:\n  - { at: 0, type: route.upsert, route: { namespace: a, name: r, host: "x y.com", service: s } }\n`, 2, 72, 'events[0].route.host', /DNS-1123 subdomain .*; got "x y.com"/],
  ['an upper-case blueprint host', `events:\n  - { at: 0, type: blueprint.upsert, route: { namespace: a, name: r, host: Shop.example.com, service: s } }\n`, 2, 76, 'events[0].route.host', /lowercase letters/],
  // floor((2^53 - 1) / 1000) = 9007199254740: one more and at × 1000 is past the safe integers.
  ['an inline time past the µs clock', `events:\n  - { at: 9007199254741, type: network.heal }\n`, 2, 11, 'events[0].at', /must be at most 9007199254740 ms \(the simulated clock counts microseconds.*got 9007199254741$/],
  // The name names an output directory and a row of the summary table: the field is named, not the path.
  ['a 300-character scenario name', `name: ${'n'.repeat(300)}\nevents: []\n`, 1, 7, 'name', /a scenario name is at most 100 characters .*; got 300$/],
  ['a newline in a scenario name', `name: "web\\nshop"\nevents: []\n`, 1, 7, 'name', /one line of printable text/],
  // Aliases that expand without bound ("billion laughs"): the message points at the first alias.
  ['a YAML alias bomb', `a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\nevents: []\n`, 2, 8, undefined, /YAML: Excessive alias count/],
  ['a !!binary scenario name', `name: !!binary aGVsbG8=\nevents: []\n`, 1, 16, 'name', /expected string, got binary data \(a !!binary value\)/],
  // With a cluster of a and b: the duplicate is the file's one mistake (with none, the missing cluster is another).
  ['a node in two partition groups', `cluster: { nodes: [{ name: a, ip: 10.0.0.1 }, { name: b, ip: 10.0.0.2 }], ipfailover: { virtualIps: 10.0.0.100 } }\nevents:\n  - { at: 0, type: network.partition, groups: [[a, b], [b]] }\n`, 3, 57, 'events[0].groups[1][0]', /node 'b' is in groups\[0\] and groups\[1\]; a node is in one group/],
  // Kubernetes names: a namespace is a DNS-1123 label, an object's name a DNS-1123 subdomain.
  ['a namespace with a slash', `events:\n  - { at: 0, type: route.delete, namespace: "shop/x", name: r }\n`, 2, 45, 'events[0].namespace', /DNS-1123 label .*; got "shop\/x"/],
  ['a service name with a space', `events:\n  - { at: 0, type: endpoints.delete, namespace: a, service: "web shop" }\n`, 2, 61, 'events[0].service', /DNS-1123 subdomain .*; got "web shop"/],
  ['events of the wrong shape', `events: 42\n`, 1, 9, 'events', /expected string or array or object, got number 42/],
  ['event log path without .jsonl', `events: churn.txt\n`, 1, 9, 'events', /must end in \.jsonl/],
  ['missing event log file', `events:\n  file: nowhere.jsonl\n`, 2, 9, 'events', /event log not found/],
  ['budget bound not a string', `events: []\nbudgets:\n  reloads.total: 2\n`, 3, 3, 'budgets.reloads.total', /quoted string such as "<= 2"/],
  ['budget bound without operator', `events: []\nbudgets:\n  reloads.total: "2"\n`, 3, 3, 'budgets.reloads.total', /must start with one of/],
  ['budget on an unknown metric', `events: []\nbudgets:\n  reloads.count: "<= 2"\n`, 3, 3, 'budgets.reloads.count', /unknown metric 'reloads.count'/],
  ['nothing to run', `name: idle\n`, 1, 1, undefined, /nothing to run/],
  ['generators without a horizon', `generate:\n  routes: { createPerHour: 5 }\n`, 2, 3, 'generate', /generate.durationMs or sim.durationMs/],
  ['scale bounds inverted', `sim: { durationMs: 1000 }\ngenerate:\n  scale: { min: 5, max: 2 }\n`, 3, 17, 'generate.scale.min', /min must not exceed max/],
  ['route mix with no weight', `sim: { durationMs: 1000 }\ngenerate:\n  routes: { mix: { http: 0 } }\n`, 3, 18, 'generate.routes.mix', /at least one weight/],
  ['an inline node event without a cluster', `events:\n  - ${ROUTE}\n  - { at: 5, type: node.fail, node: infra-1 }\n`, 3, 20, 'events[1].type', /node.fail needs router nodes, and the scenario has no `cluster` section/],
  [
    'an inline event on an unknown node',
    `cluster: { nodes: [{ name: infra-1, ip: 10.0.0.1 }], ipfailover: { virtualIps: 10.0.0.100 } }\nevents:\n  inline:\n    - { at: 5, type: router.fail, node: infra-2 }\n`,
    4,
    41,
    'events.inline[0].node',
    /unknown router node 'infra-2'; known: infra-1/,
  ],
  [
    'a partition naming an unknown node',
    `cluster: { nodes: [{ name: infra-1, ip: 10.0.0.1 }], ipfailover: { virtualIps: 10.0.0.100 } }\nevents:\n  - { at: 5, type: node.join, node: infra-3, ip: 10.0.0.3 }\n  - { at: 6, type: network.partition, groups: [[infra-1, infra-3], [infra-4]] }\n`,
    4,
    47,
    'events[1].groups',
    /unknown router node 'infra-4'; known: infra-1, infra-3/,
  ],
  [
    'fault on an unknown node',
    `sim: { durationMs: 1000 }\ncluster: { nodes: [{ name: infra-1, ip: 10.0.0.1 }], ipfailover: { virtualIps: 10.0.0.100 } }\ngenerate:\n  faults:\n    schedule:\n      - { at: 0, type: node.fail, node: infra-9 }\n`,
    6,
    41,
    'generate.faults.schedule[0].node',
    /unknown router node 'infra-9'; known: infra-1/,
  ],
  [
    'a fault scheduled past the µs clock',
    `sim: { durationMs: 1000 }\ncluster: { nodes: [{ name: infra-1, ip: 10.0.0.1 }], ipfailover: { virtualIps: 10.0.0.100 } }\ngenerate:\n  faults:\n    schedule:\n      - { at: 9007199254741, type: node.fail, node: infra-1 }\n`,
    6,
    15,
    'generate.faults.schedule[0].at',
    /must be at most 9007199254740 ms/,
  ],
  // 9007199254740 + 1: the window's end is one past the bound though each number alone is within it.
  ['a generator window past the µs clock', `sim: { durationMs: 9007199254740 }\ngenerate:\n  startMs: 1\n  routes: { createPerHour: 1 }\n`, 1, 20, 'sim.durationMs', /generators would run until 9007199254741 ms \(generate.startMs \+ sim.durationMs\); event times must be at most 9007199254740 ms/],
  ['a generated host domain in upper case', `sim: { durationMs: 1000 }\ngenerate:\n  world: { domain: Apps.Example.com }\n`, 3, 20, 'generate.world.domain', /domain of the generated route hosts .*; got "Apps.Example.com"/],
  ['two YAML documents', `name: a\nevents: []\n---\nname: b\nevents: []\n`, 3, 1, undefined, /^[^:]*:3:1: a scenario file holds one YAML document, and a second one starts here; remove the document marker/],
  ['fault rates with no nodes', `sim: { durationMs: 1000 }\ngenerate:\n  faults: { nodeFailPerHour: 2 }\n`, 3, 11, 'generate.faults', /need router nodes/],
  ['cluster without VRRP instances', `cluster:\n  nodes: [{ name: infra-1, ip: 10.0.0.1 }]\nevents: []\n`, 2, 3, 'cluster.keepalived.instances', /no VRRP instances/],
  ['a fractional count', `sim: { durationMs: 1000 }\ngenerate:\n  world: { services: 2.5 }\n`, 3, 22, 'generate.world.services', /expected a whole number, got number 2.5/],
  ['a union of literals', `cluster:\n  nodes: [{ name: a, ip: 10.0.0.1 }]\n  ipfailover: { virtualIps: 10.0.0.100 }\n  keepalived: { version: 4 }\nevents: []\n`, 4, 26, 'cluster.keepalived.version', /expected one of 2, 3; got 4/],
  ['an empty name', `name: ""\nevents: []\n`, 1, 7, 'name', /must not be empty/],
  ['churn without services', `sim: { durationMs: 1000 }\ngenerate:\n  world: { services: 0 }\n  scale: { perHour: 5 }\n`, 3, 22, 'generate.world.services', /scale need services to act on/],
  ['probability above 1', `sim: { durationMs: 1000 }\ngenerate:\n  routes: { customCertificates: 1.5 }\n`, 3, 33, 'generate.routes.customCertificates', /must be at most 1, got 1.5/],
];

