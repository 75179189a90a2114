import { expect, test } from 'vitest';
import type { InputEvent } from '../../core/events.ts';
import { firstEventNodeIssue } from './event-nodes.ts';

const churn: InputEvent = { at: 0, type: 'route.delete', namespace: 'a', name: 'r' };

test('churn alone needs no cluster', () => {
  expect(firstEventNodeIssue([churn], undefined)).toBeUndefined();
});

test('without a cluster the first event naming nodes is the problem (a heal names none)', () => {
  expect(firstEventNodeIssue([churn, { at: 1, type: 'network.heal' }, { at: 2, type: 'node.fail', node: 'a' }], undefined)).toEqual({
    path: [2, 'type'],
    message: 'node.fail needs router nodes, and the scenario has no `cluster` section',
  });
  expect(firstEventNodeIssue([{ at: 1, type: 'network.partition', groups: [['a'], ['b']] }], undefined)?.path).toEqual([0, 'type']);
});

test('a node joined anywhere in the list is known, whatever its time', () => {
  const events: InputEvent[] = [
    { at: 1, type: 'router.fail', node: 'late' },
    { at: 2, type: 'node.join', node: 'late', ip: '10.0.0.9' },
    { at: 3, type: 'network.partition', groups: [['a'], ['late']] },
  ];
  expect(firstEventNodeIssue(events, ['a'])).toBeUndefined();
});

test('the first unknown name wins, as a node or in a partition group', () => {
  const events: InputEvent[] = [
    { at: 1, type: 'node.stall', node: 'a', durationMs: 5 },
    { at: 2, type: 'network.partition', groups: [['a'], ['b', 'c']] },
    { at: 3, type: 'node.fail', node: 'd' },
  ];
  expect(firstEventNodeIssue(events, ['a', 'b'])).toEqual({ path: [1, 'groups'], message: "unknown router node 'c'; known: a, b" });
  expect(firstEventNodeIssue(events.filter((e) => e.type !== 'network.partition'), ['a', 'b'])).toEqual({
    path: [1, 'node'],
    message: "unknown router node 'd'; known: a, b",
  });
});

test("with an event log beside them, names are left to the run (the log's node.join lines are read only then)", () => {
  const events: InputEvent[] = [{ at: 5, type: 'node.fail', node: 'from-the-log' }];
  expect(firstEventNodeIssue(events, ['a'], { withLogFile: true })).toBeUndefined();
  expect(firstEventNodeIssue(events, ['a'])?.path).toEqual([0, 'node']);
  // No cluster at all is still wrong: the log cannot add one.
  expect(firstEventNodeIssue(events, undefined, { withLogFile: true })?.path).toEqual([0, 'type']);
});
