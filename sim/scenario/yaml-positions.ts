import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import type { z } from 'zod';
import { closestName } from '../../core/closest-name.ts';
import { fieldName, type Path } from '../eventlog/field-name.ts';
import { InputError, inputErrorOf } from '../eventlog/input-error.ts';

/**
 * Line and column (1-based) of the node at `path` in a YAML document; with `atKey`, of the mapping key
 * that holds it. A path that does not exist (a missing key) resolves to the deepest node that does.
 */
export function positionOf(doc: Document, lines: LineCounter, path: Path, atKey = false): { line: number; column: number } {
  let node: unknown = doc.contents;
  let keyNode: unknown = undefined;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && keyText(p.key) === String(seg));
      if (pair === undefined) break;
      keyNode = pair.key;
      node = pair.value ?? pair.key;
    } else if (isSeq(node) && typeof seg === 'number' && node.items[seg] !== undefined) {
      keyNode = undefined;
      node = node.items[seg];
    } else {
      break;
    }
  }
  const target = (atKey && keyNode !== undefined ? keyNode : node) as Node | null | undefined;
  const offset = target?.range?.[0] ?? 0;
  const { line, col } = lines.linePos(offset);
  return { line, column: col };
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return typeof key === 'string' ? key : undefined;
}

type Issue = z.core.$ZodIssue;

/**
 * The issue that best explains a failure. For a union, the branch whose shape fits the input (its errors
 * are not a type mismatch at the union itself), so `events: [{...bad}]` reports the bad event rather than
 * "expected string".
 */
export function explainIssue(issue: Issue, root: unknown): Issue {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  const here = valueAt(root, issue.path);
  // A union of literals (`version: 2 | 3`): one "expected one of" for all of them.
  const literalBranches = issue.errors.every((b) => b.length === 1 && b[0]!.code === 'invalid_value' && b[0]!.path.length === 0);
  if (literalBranches) {
    const values = issue.errors.flatMap((b) => (b[0] as { values: unknown[] }).values);
    return { code: 'invalid_value', values, path: issue.path, message: '', input: here } as unknown as Issue;
  }
  const fits = issue.errors.filter((branch) => !branch.some((e) => e.path.length === 0 && e.code === 'invalid_type'));
  if (fits.length === 0) {
    // Discriminated union of events: zod reports no branch; keep the union issue (names the discriminator).
    if (here !== null && typeof here === 'object' && !Array.isArray(here) && 'type' in here) return issue;
    const expected = issue.errors.map((b) => b.find((e) => e.code === 'invalid_type')).map((e) => (e as { expected?: string } | undefined)?.expected);
    return { ...issue, message: `expected ${[...new Set(expected.filter(Boolean))].join(' or ')}, got ${describe(here)}` } as Issue;
  }
  const branch = fits[0]!;
  const inner = branch[0]!;
  return explainIssue({ ...inner, path: [...issue.path, ...inner.path] } as Issue, root);
}

/**
 * Every issue that explains a failure: as explainIssue, but a union's fitting branch gives all its issues
 * (a list of events with two bad events: both), each explained in turn.
 */
export function explainIssues(issue: Issue, root: unknown): Issue[] {
  const first = explainIssue(issue, root);
  if (issue.code !== 'invalid_union' || first === issue || first.code === 'invalid_value') return [first];
  const fits = issue.errors.filter((branch) => !branch.some((e) => e.path.length === 0 && e.code === 'invalid_type'));
  if (fits.length === 0) return [first];
  return fits[0]!.flatMap((inner) => explainIssues({ ...inner, path: [...issue.path, ...inner.path] } as Issue, root));
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  // YAML's own tags: text is what a name wants, not the bytes of a !!binary or the members of a !!set.
  if (v instanceof Uint8Array) return 'binary data (a !!binary value)';
  if (v instanceof Set) return 'a set (a !!set value)';
  if (v instanceof Date) return 'a timestamp (a !!timestamp value)';
  if (typeof v === 'object') return 'a mapping';
  // JSON has no infinity or NaN (YAML's .inf, .nan): JSON.stringify would call them null.
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? 'not-a-number (.nan)' : `${v < 0 ? 'minus ' : ''}infinity (${v < 0 ? '-' : ''}.inf)`;
  return `${typeof v} ${JSON.stringify(v)}`;
}

export function valueAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg as string];
  }
  return v;
}

/**
 * One readable InputError for every zod issue, each located in the YAML source (InputErrors when there are
 * several: all the file's mistakes at once, in file order, up to MAX_REPORTED_PROBLEMS).
 */
export function issueToInputError(
  error: z.ZodError,
  root: unknown,
  file: string,
  doc: Document,
  lines: LineCounter,
  jsonSchema?: unknown,
): InputError {
  const problems = error.issues.flatMap((i) => explainIssues(i, root)).flatMap((issue) =>
    // Each unknown key is a mistake of its own, at its own line.
    issue.code === 'unrecognized_keys' ? issue.keys.map((key) => locateIssue({ ...issue, keys: [key] }, root, file, doc, lines, jsonSchema)) : [locateIssue(issue, root, file, doc, lines, jsonSchema)],
  );
  return inputErrorOf(problems);
}

function locateIssue(issue: Issue, root: unknown, file: string, doc: Document, lines: LineCounter, jsonSchema: unknown): InputError {
  let path: PropertyKey[] = [...issue.path];
  let atKey = false;
  let message = issue.message;
  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = issue.keys[0]!;
      path = [...path, key];
      atKey = true;
      message = `unknown key '${key}'${suggestion(key, allowedKeysAt(jsonSchema, issue.path))}`;
      break;
    }
    case 'invalid_type': {
      // A schema's own message (e.g. how to write a budget bound) says more than the generic one.
      if (!issue.message.startsWith('Invalid input')) break;
      const got = valueAt(root, path);
      const expected = issue.expected === 'int' ? 'a whole number' : issue.expected;
      message = got === undefined ? `missing (expected ${expected})` : `expected ${expected}, got ${describe(got)}`;
      break;
    }
    case 'invalid_value': {
      const got = valueAt(root, path);
      message = `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}; got ${got === undefined ? 'nothing' : JSON.stringify(got)}`;
      break;
    }
    case 'too_small':
    case 'too_big': {
      if (issue.message !== '' && !/^Too (small|big)/.test(issue.message)) break;
      message = boundMessage(issue, valueAt(root, path));
      break;
    }
    case 'invalid_union': {
      const disc = (issue as { discriminator?: string; options?: unknown[] }).discriminator;
      if (disc !== undefined && path[path.length - 1] === disc) {
        const value = valueAt(root, path);
        const options = (issue as { options?: unknown[] }).options ?? [];
        message =
          value === undefined
            ? `missing '${disc}'; one of ${options.join(', ')}`
            : `unknown event ${disc} ${JSON.stringify(value)}; one of ${options.join(', ')}`;
        break;
      }
      const ev = valueAt(root, path);
      const type = ev !== null && typeof ev === 'object' ? (ev as { type?: unknown }).type : undefined;
      if (type !== undefined) {
        path = [...path, 'type'];
        message = `unknown event type ${JSON.stringify(type)}`;
      } else if (ev !== null && typeof ev === 'object' && !Array.isArray(ev)) {
        message = "missing 'type'";
      }
      break;
    }
    default:
      break;
  }
  // Budget issues concern the metric named by the key: point at the key.
  if (path[0] === 'budgets' && path.length === 2) atKey = true;
  const { line, column } = positionOf(doc, lines, path, atKey);
  return new InputError(file, message, line, fieldName(path) || undefined, column);
}

function boundMessage(issue: Extract<Issue, { code: 'too_small' | 'too_big' }>, got: unknown): string {
  const small = issue.code === 'too_small';
  const limit = Number(small ? (issue as { minimum: number | bigint }).minimum : (issue as { maximum: number | bigint }).maximum);
  const inclusive = issue.inclusive !== false;
  if (issue.origin === 'array' || issue.origin === 'set') {
    return small ? `needs at least ${inclusive ? limit : limit + 1} item(s)` : `allows at most ${inclusive ? limit : limit - 1} item(s)`;
  }
  if (issue.origin === 'string') {
    return small ? (limit <= 1 ? 'must not be empty' : `needs at least ${limit} characters`) : `allows at most ${limit} characters`;
  }
  const bound = small ? (inclusive ? `at least ${limit}` : `above ${limit}`) : inclusive ? `at most ${limit}` : `below ${limit}`;
  return `must be ${bound}, got ${JSON.stringify(got)}`;
}

/** Lists the keys the schema accepts there, and the closest one when the key looks misspelt. */
export function suggestion(key: string, known: readonly string[] | undefined): string {
  if (known === undefined || known.length === 0) return '';
  const close = closestName(key, known);
  const hint = close !== undefined ? ` (did you mean '${close}'?)` : '';
  return `${hint}; allowed: ${known.join(', ')}`;
}

type JsonSchema = { properties?: Record<string, JsonSchema>; items?: JsonSchema; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; $ref?: string };

/** The property names a JSON Schema allows at `path` (following arrays and the object branch of unions). */
export function allowedKeysAt(schema: unknown, path: Path): string[] | undefined {
  // Draft 7 keeps shared schemas under `definitions`, 2020-12 under `$defs`.
  const root = schema as { $defs?: Record<string, JsonSchema>; definitions?: Record<string, JsonSchema> } | undefined;
  const defs = { ...root?.definitions, ...root?.$defs };
  const deref = (x: JsonSchema | undefined): JsonSchema | undefined => {
    const m = x?.$ref === undefined ? null : /^#\/(?:\$defs|definitions)\/(.+)$/.exec(x.$ref);
    return m === null ? x : defs[m[1]!];
  };
  let s = schema as JsonSchema | undefined;
  // Through a union: the branch that has the next step; at the end, the only object branch (else unknown).
  const branch = (y: JsonSchema | undefined, seg?: PropertyKey): JsonSchema | undefined => {
    const x = deref(y);
    const alts = x?.anyOf ?? x?.oneOf;
    if (alts === undefined) return x;
    const all = alts.map((a) => deref(a) ?? a);
    if (typeof seg === 'number') return all.find((a) => a.items !== undefined);
    if (typeof seg === 'string') return all.find((a) => a.properties !== undefined && seg in a.properties);
    const objects = all.filter((a) => a.properties !== undefined);
    return objects.length === 1 ? objects[0] : undefined;
  };
  for (const seg of path) {
    s = branch(s, seg);
    if (s === undefined) return undefined;
    s = typeof seg === 'number' ? s.items : s.properties?.[String(seg)];
  }
  s = branch(s);
  return s?.properties === undefined ? undefined : Object.keys(s.properties);
}
