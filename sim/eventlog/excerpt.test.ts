import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { escapeControl, excerpt, MESSAGE_MAX_CHARS } from './excerpt.ts';
import { InputError } from './input-error.ts';

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

describe('what a message quotes of the input', () => {
  test.prop([fc.string({ unit: 'binary', maxLength: 3000 }), fc.integer({ min: 50, max: 2000 })])('is bounded and holds no control character', (text, max) => {
    const e = excerpt(text, max);
    expect(CONTROL.test(e)).toBe(false);
    // Cut to at most `max` characters, then escaping lengthens a character to at most six (\u2028).
    expect(e.length).toBeLessThanOrEqual(6 * max);
    if (text.length <= max && !CONTROL.test(text)) expect(e).toBe(text);
  });

  it('keeps both ends of a long text and says how much it left out', () => {
    const name = `start${'x'.repeat(10_000_000)}end`;
    const e = excerpt(name, 100);
    // (100 − 40) / 2 = 30 characters kept at each end of the 10,000,008.
    expect(e).toBe(`start${'x'.repeat(25)}…(9999948 characters left out)…${'x'.repeat(27)}end`);
  });

  it('escapes NUL, newlines and escape sequences so that they reach no terminal raw', () => {
    expect(escapeControl('a\u0000b\nc\u001b[31md\u2028')).toBe('a\\x00b\\nc\\x1b[31md\\u2028');
  });

  it('an input error never carries more than a bounded message, whatever it quotes', () => {
    const err = new InputError('watch.json', `unknown name ${'n'.repeat(10_000_000)}\u0000`, 3, 'metadata.name');
    expect(err.message.length).toBeLessThan(MESSAGE_MAX_CHARS + 100);
    expect(err.message.startsWith("watch.json:3: field 'metadata.name': unknown name nnn")).toBe(true);
    expect(err.message.endsWith('nnn\\x00')).toBe(true);
  });
});
