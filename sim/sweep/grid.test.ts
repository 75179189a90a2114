import { describe, expect, test } from 'vitest';
import { InputError } from '../eventlog/input-error.ts';
import { parseGrid, parseGridAxis, pointAt, pointCount } from './grid.ts';
import { parseShard, shardTasks, type SweepDefinition } from './plan.ts';

describe('--grid', () => {
  test('ranges, stepped ranges, lists and mixtures, in the order written', () => {
    expect(parseGridAxis('router.blueprintPoolSize=0..3').values).toEqual([0, 1, 2, 3]);
    expect(parseGridAxis('router.blueprintPoolSize=0..20:5').values).toEqual([0, 5, 10, 15, 20]);
    expect(parseGridAxis('router.maxDynamicServers=1,2,5,10').values).toEqual([1, 2, 5, 10]);
    expect(parseGridAxis('router.blueprintPoolSize=0..2,10,20..22:2').values).toEqual([0, 1, 2, 10, 20, 22]);
    expect(parseGridAxis('router.strategy=dcm-slots,reload-always').values).toEqual(['dcm-slots', 'reload-always']);
  });

  const bad: Array<[string, RegExp]> = [
    ['router.poolSize=1..3', /unknown setting 'router.poolSize'/],
    ['router.maxDynamicServers=0..2', /value 0: Too small/],
    ['router.blueprintPoolSize=5..1', /range '5..1' is empty/],
    ['router.blueprintPoolSize=0..4:0', /step must be at least 1/],
    ['router.blueprintPoolSize=1.5..3', /not a range/],
    ['router.blueprintPoolSize=1,,2', /empty item/],
    ['router.blueprintPoolSize=1,1', /appears twice/],
    ['router.strategy=dcm-slot', /value "dcm-slot"/],
    ['seed=1..3', /--seeds/],
    ['router.blueprintPoolSize', /expected key=values/],
    ['router.blueprintPoolSize=0..100000', /more than 10000 values/],
    // 2^53 + 1: the loop's `v += 1` would stand still there.
    ['router.blueprintPoolSize=9007199254740993..9007199254740993', /integers below 2\^53/],
  ];
  test.each(bad)('%s is an input error naming --grid', (flag, message) => {
    let err: unknown;
    try {
      parseGridAxis(flag);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/^--grid: /);
    expect((err as Error).message).toMatch(message);
  });

  test('a key given twice is an input error', () => {
    expect(() => parseGrid(['router.blueprintPoolSize=1', 'router.blueprintPoolSize=2'])).toThrow(/given twice/);
  });

  test('points: cartesian, first axis slowest', () => {
    const axes = parseGrid(['router.blueprintPoolSize=0..2', 'router.maxDynamicServers=1,5']);
    expect(pointCount(axes)).toBe(6);
    expect(Array.from({ length: 6 }, (_, i) => pointAt(axes, i))).toEqual([
      [0, 1], [0, 5], [1, 1], [1, 5], [2, 1], [2, 5],
    ]);
    expect(pointCount([])).toBe(1);
  });
});

describe('--shard', () => {
  test('i/n, 0-based, as $JOB_COMPLETION_INDEX', () => {
    expect(parseShard('0/4')).toEqual({ index: 0, count: 4 });
    expect(parseShard('3/4')).toEqual({ index: 3, count: 4 });
    for (const t of ['4/4', '1/0', '-1/2', 'a/b', '1']) expect(() => parseShard(t)).toThrow(/--shard: expected i\/n/);
  });

  test('shards partition the runs: every run in exactly one shard', () => {
    const def = { grid: parseGrid(['router.blueprintPoolSize=0..6']), seeds: [1, 2, 3] } as unknown as SweepDefinition;
    const all = [0, 1, 2, 3].flatMap((i) => shardTasks(def, { index: i, count: 4 }));
    expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: 21 }, (_, k) => k));
    expect(shardTasks(def, { index: 1, count: 4 })).toEqual([1, 5, 9, 13, 17]);
  });
});
