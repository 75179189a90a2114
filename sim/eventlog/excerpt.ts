/**
 * What a message may quote of the user's input. Input can hold a 10 MB name or raw NUL bytes; echoed whole
 * into stderr it floods the terminal or a CI log and its control bytes drive the terminal. A message keeps
 * both ends of what it would quote and says how much it left out, with control characters escaped.
 */
export const MESSAGE_MAX_CHARS = 1000;

/**
 * C0 controls except none, DEL, C1 controls, and the line and paragraph separators (which end a line in some
 * terminals and editors): each shown as \xNN or \uNNNN. Newlines and tabs too: a message is one line.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** At most `max` characters of `text` (its start and end), control characters escaped. */
export function excerpt(text: string, max = MESSAGE_MAX_CHARS): string {
  if (text.length > max) {
    const keep = Math.max(1, Math.floor((max - 40) / 2));
    const left = text.length - 2 * keep;
    text = `${text.slice(0, keep)}…(${left} characters left out)…${text.slice(text.length - keep)}`;
  }
  // Escaping after cutting keeps the work bounded; it can lengthen the text at most fourfold.
  return escapeControl(text);
}
