/** A zod issue's path, or a YAML node's. */
export type Path = ReadonlyArray<PropertyKey>;

/**
 * `events[3].route.host`: how every message names a field, whichever file it is in, so that a user who
 * meets the same field in a scenario, an event log and a sweep directory reads it the same way.
 */
export function fieldName(path: Path, prefix = ''): string {
  let out = prefix;
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}
