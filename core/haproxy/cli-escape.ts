/**
 * The stats socket's CLI consumes one level of backslash escaping in arguments, so a map key sent with
 * `add map` is escaped first: every `\` doubled, then every `.` prefixed with `\` (the 2018 manager's
 * escapeKeyExpr). The CLI turns `\\` back into `\` and `\.` into `.`, so HAProxy stores the key unchanged.
 */
export function escapeCliKey(key: string): string {
  let out = '';
  for (let i = 0; i < key.length; i++) {
    const c = key[i]!;
    if (c === '\\') out += '\\\\';
    else if (c === '.') out += '\\.';
    else out += c;
  }
  return out;
}
