import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { OneString } from './one-string.ts';

// Identity of strings cannot be seen from JavaScript, so what is tested is what callers rely on: the answer
// equals the text, whatever was asked before and however often the table started afresh.
test.prop([fc.array(fc.string({ maxLength: 6 }), { maxLength: 200 }), fc.integer({ min: 1, max: 20 })])(
  'answers every text with an equal string, through any number of fresh starts',
  (texts, max) => {
    const one = new OneString(max);
    for (const t of texts) expect(one.of(t)).toBe(t);
  },
);
