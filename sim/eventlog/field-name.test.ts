import { describe, expect, it } from 'vitest';
import { fieldName } from './field-name.ts';

describe('fieldName', () => {
  it('writes keys dotted and list positions in brackets', () => {
    expect(fieldName(['events', 3, 'route', 'host'])).toBe('events[3].route.host');
    expect(fieldName(['endpoints', 0, 'ip'])).toBe('endpoints[0].ip');
  });
  it('starts from a prefix, a bare position included', () => {
    expect(fieldName([0, 'point'], '')).toBe('[0].point');
    expect(fieldName(['point', 'x'], 'rows[2]')).toBe('rows[2].point.x');
    expect(fieldName([], 'seed')).toBe('seed');
  });
});
