import { InputError } from '../eventlog/input-error.ts';

/** The InputError `fn` throws, for tests that look at its file, line, field and text; anything else is rethrown. */
export function inputErrorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('expected an InputError');
}
