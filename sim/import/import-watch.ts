import { serviceKey } from '../../core/route.ts';
import type { Endpoint } from '../../core/endpoint.ts';
import type { InputEvent } from '../../core/events.ts';
import { InputEventSchema } from '../eventlog/event-schema.ts';
import { fieldName } from '../eventlog/field-name.ts';
import { InputError } from '../eventlog/input-error.ts';
import { limit } from '../limits.ts';
import { isStray, JsonObjectSplitter, ObjectTooLarge, StrayTooLong } from './json-stream.ts';
import {
  creationTimeMs,
  endpointsFromObject,
  type EventBody,
  ObjectProblem,
  objectTimeMs,
  resourceOf,
  routeFromObject,
  sliceFromObject,
  type WatchType,
} from './k8s-objects.ts';

/**
 * A Kubernetes watch stream (`kubectl get routes,endpoints -A --watch -o json --output-watch-events`) →
 * v1 events. Times come from the objects (creation, deletion, last managed-fields write) relative to
 * `startEpochMs` (default: the first event's), never going backwards (an earlier time is raised to the
 * previous one: the stream's order is the order the router saw; a time before `startEpochMs` likewise), or
 * are spaced `spacingMs` apart.
 * Problems (malformed JSON, unknown kinds, missing fields) are reported with their position and skipped,
 * or with `strict` thrown as InputError.
 */
export interface ImportOptions {
  /** Names the input in messages. */
  file: string;
  strict?: boolean;
  spacingMs?: number;
  startEpochMs?: number;
  /** The longest object read (default the `importObjectBytes` limit); a longer one is an InputError, skipped or not. */
  maxObjectChars?: number;
}

export interface ImportProblem {
  line: number;
  column: number;
  field?: string;
  message: string;
}

export interface ImportStats {
  objects: number;
  events: number;
  skipped: number;
  /** Objects whose time was earlier than the previous event's and were moved up to it. */
  raisedTimes: number;
  /**
   * Objects whose time was before `startEpochMs` (`--start`), moved up to time 0 or the previous event's
   * time. Counted apart from raisedTimes: the cause is the chosen start, not the stream's order. Optional
   * only so that stats objects written before it existed stay valid; absent means none.
   */
  beforeStart?: number;
}

type Obj = Record<string, unknown>;
const WATCH_TYPES = ['ADDED', 'MODIFIED', 'DELETED'] as const;

export function importWatch(
  chunks: Iterable<string>,
  options: ImportOptions,
  onProblem: (p: ImportProblem) => void = () => {},
  stats: ImportStats = { objects: 0, events: 0, skipped: 0, raisedTimes: 0 },
): Iterable<InputEvent> {
  return {
    *[Symbol.iterator]() {
      const splitter = new JsonObjectSplitter(options.maxObjectChars ?? limit('importObjectBytes'));
      const slices = new Map<string, Map<string, Endpoint[]>>();
      let start = options.startEpochMs;
      let lastAt = 0;
      let index = 0;

      const problem = (p: ImportProblem): void => {
        stats.skipped++;
        if (options.strict) throw new InputError(options.file, p.message, p.line, p.field, p.column);
        onProblem(p);
      };

      /** `t`: the object's own time (objectTimeMs), read before anything else of it so a bad one skips it whole. */
      const stamp = (t: number | undefined): number => {
        if (options.spacingMs !== undefined) return index++ * options.spacingMs;
        if (t === undefined) return lastAt;
        start ??= t;
        const at = Math.round(t - start);
        // Without --start the first object is time 0, so a negative time is only ever earlier than an event before it.
        if (at < 0 && options.startEpochMs !== undefined) {
          stats.beforeStart = (stats.beforeStart ?? 0) + 1;
          return lastAt;
        }
        if (at < lastAt) {
          stats.raisedTimes++;
          return lastAt;
        }
        return at;
      };

      const convert = (type: WatchType, o: Obj): EventBody[] => {
        switch (resourceOf(o)) {
          case 'Route': {
            const route = routeFromObject(o);
            return type === 'DELETED' ? [{ type: 'route.delete', namespace: route.namespace, name: route.name }] : [{ type: 'route.upsert', route }];
          }
          case 'Endpoints': {
            const { namespace, service, endpoints } = endpointsFromObject(o);
            return type === 'DELETED' ? [{ type: 'endpoints.delete', namespace, service }] : [{ type: 'endpoints.set', namespace, service, endpoints }];
          }
          case 'EndpointSlice': {
            // A service's endpoints are the union of its slices; v1 wants the complete set each time.
            const { namespace, service, slice, endpoints } = sliceFromObject(o);
            const key = serviceKey(namespace, service);
            const mine = slices.get(key) ?? new Map<string, Endpoint[]>();
            if (type === 'DELETED') mine.delete(slice);
            else mine.set(slice, endpoints);
            if (mine.size === 0) {
              slices.delete(key);
              return [{ type: 'endpoints.delete', namespace, service }];
            }
            slices.set(key, mine);
            // The router aggregates a service's slices sorted by name (aggregateEndpointSlice).
            const ordered = [...mine.keys()].sort().map((name) => mine.get(name)!);
            return [{ type: 'endpoints.set', namespace, service, endpoints: ordered.flat() }];
          }
          default:
            if (o['apiVersion'] === undefined || o['kind'] === undefined) {
              throw new ObjectProblem(`an object without ${o['apiVersion'] === undefined ? 'apiVersion' : 'kind'}; kubectl's -o json watch output carries both`, o['apiVersion'] === undefined ? 'apiVersion' : 'kind');
            }
            throw new ObjectProblem(`unsupported object ${JSON.stringify(o['apiVersion'])} ${JSON.stringify(o['kind'])}; expected route.openshift.io/v1 Route, v1 Endpoints or discovery.k8s.io/v1 EndpointSlice`, 'kind');
        }
      };

      function* handle(type: WatchType, o: Obj, line: number, column: number, prefix: string): Generator<InputEvent> {
        let bodies: EventBody[];
        let time: number | undefined;
        try {
          time = options.spacingMs === undefined ? objectTimeMs(type, o) : undefined;
          bodies = convert(type, o);
        } catch (err) {
          if (!(err instanceof ObjectProblem)) throw err;
          const field = err.field === undefined ? undefined : `${prefix}${err.field}`;
          problem({ line, column, message: `${describe(o)}: ${err.message}`, ...(field === undefined ? {} : { field }) });
          return;
        }
        const at = stamp(time);
        for (const body of bodies) {
          // The route's age on a shared host is its creation (the router's RouteLessThan), which a watch's
          // initial listing does not give in order: carried over in the log's time. Not with --spacing,
          // whose times are no clock.
          if (body.type === 'route.upsert' && options.spacingMs === undefined && start !== undefined) {
            const created = creationTimeMs(o);
            if (created !== undefined) body.route.createdAt = Math.round(created - start);
          }
          const event = { at, ...body } as InputEvent;
          const checked = InputEventSchema.safeParse(event);
          if (!checked.success) {
            const issue = checked.error.issues[0]!;
            problem({ line, column, message: `${describe(o)}: the resulting ${body.type} event is invalid: ${fieldName(issue.path)}: ${issue.message}` });
            continue;
          }
          lastAt = at;
          stats.events++;
          yield event;
        }
      }

      function* onObject(text: string, line: number, column: number): Generator<InputEvent> {
        stats.objects++;
        let raw: unknown;
        try {
          raw = JSON.parse(text);
        } catch (err) {
          problem({ line, column, message: `not valid JSON (${(err as Error).message})` });
          return;
        }
        const o = raw as Obj;
        if (typeof o['type'] === 'string' && 'object' in o) {
          const type = o['type'];
          if (type === 'BOOKMARK') return;
          if (type === 'ERROR') {
            problem({ line, column, field: 'object', message: `watch error: ${String((o['object'] as Obj | null)?.['message'] ?? 'unknown')}` });
            return;
          }
          if (!(WATCH_TYPES as readonly string[]).includes(type)) {
            problem({ line, column, field: 'type', message: `unknown watch event type ${JSON.stringify(type)}` });
            return;
          }
          if (o['object'] === null || typeof o['object'] !== 'object') {
            problem({ line, column, field: 'object', message: 'watch event without an object' });
            return;
          }
          yield* handle(type as WatchType, o['object'] as Obj, line, column, 'object.');
          return;
        }
        // Without --output-watch-events kubectl prints bare objects (no way to see deletions): read as upserts.
        if (o['kind'] === 'List' && Array.isArray(o['items'])) {
          for (const item of o['items']) yield* handle('ADDED', item as Obj, line, column, 'items[].');
          return;
        }
        yield* handle('ADDED', o, line, column, '');
      }

      const push = (chunk: string): ReturnType<JsonObjectSplitter['push']> => {
        try {
          return splitter.push(chunk);
        } catch (err) {
          if (err instanceof StrayTooLong) {
            throw new InputError(
              options.file,
              `not a watch stream: more than ${err.maxChars} characters from here hold no JSON object and no line break (a binary file?)`,
              err.line,
              undefined,
              err.column,
            );
          }
          if (!(err instanceof ObjectTooLarge)) throw err;
          // Not a problem to skip: finding the object's end would mean holding it all.
          throw new InputError(
            options.file,
            `an object longer than ${err.maxChars} characters starts here, past the limit for one object (docs/limits.md; ROUTERBENCH_MAX_IMPORT_OBJECT_BYTES raises it)`,
            err.line,
            undefined,
            err.column,
          );
        }
      };
      for (const chunk of chunks) {
        for (const piece of push(chunk)) {
          if (isStray(piece)) problem({ line: piece.line, column: piece.column, message: `not a JSON object: ${JSON.stringify(piece.text)}` });
          else yield* onObject(piece.text, piece.line, piece.column);
        }
      }
      for (const piece of splitter.end()) {
        if (isStray(piece)) problem({ line: piece.line, column: piece.column, message: `not a JSON object: ${piece.text}` });
      }
    },
  };
}

function describe(o: Obj): string {
  const meta = (o['metadata'] ?? {}) as Obj;
  const ns = typeof meta['namespace'] === 'string' ? `${meta['namespace']}/` : '';
  const name = typeof meta['name'] === 'string' ? ` ${ns}${meta['name']}` : '';
  return `${String(o['kind'] ?? 'object')}${name}`;
}
