import { expect, test } from 'vitest';
import { sampleReport } from '../report-fixture.ts';
import { renderCompareTable } from './compare-table.ts';

test('one column per strategy; only the reload reasons some strategy asked for; warnings counted', () => {
  const a = sampleReport({ strategy: 'reload-always', reloads: { total: 3, perHour: 1.5, requests: { initial: 1, 'route-change': 4 } } });
  const b = sampleReport({
    strategy: 'dcm-slots',
    reloads: { total: 1, perHour: 0.5, requests: { initial: 1 } },
    runtimeApi: { commands: 12, errors: 0 },
    warnings: { total: 2, list: [{ atMs: 5, message: 'x', count: 2 }] },
    pass: false,
  });
  // The label column is as wide as its longest label, '  requests: route-change' (24); the others as their header.
  expect(renderCompareTable([a, b]).split('\n')).toEqual([
    '                          reload-always  dcm-slots',
    '------------------------  -------------  ---------',
    'reloads run                           3          1',
    'reloads per hour                    1.5        0.5',
    '  requests: initial                   1          1',
    // dcm-slots asked for no route-change reload: 0, not blank.
    '  requests: route-change              4          0',
    'runtime API commands                 10         12',
    'runtime API errors                    1          0',
    'invariant violations                  0          0',
    'warnings                              0          2',
    'verdict                            pass       FAIL',
    '',
  ]);
});
