/**
 * C's strtol on a decimal prefix, as HAProxy reads numbers on its CLI: an optional sign, then digits; `digits`
 * counts them (0 means no number at all) and `rest` is where the text after them starts.
 */
export function strtol(text: string): { value: number; digits: number; rest: number } {
  let i = 0;
  let sign = 1;
  if (text[i] === '+' || text[i] === '-') {
    if (text[i] === '-') sign = -1;
    i++;
  }
  const start = i;
  let value = 0;
  while (i < text.length && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) {
    value = value * 10 + (text.charCodeAt(i) - 0x30);
    i++;
  }
  return { value: sign * value, digits: i - start, rest: i };
}
