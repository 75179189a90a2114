import { INPUT_EVENT_TYPES } from '../../core/events.ts';
import { RELOAD_REASONS } from '../../core/reload-reason.ts';
import { hasOnly } from '../eventlog/key-count.ts';
import type { OutputRecord } from './records.ts';

/**
 * The output log reader's hot path. Checking every line with the strict zod schema of
 * output-log-reader.ts doubled the time `routerbench report` takes on a large log, so every line is first
 * checked by this hand-written test of the well-formed case, as the event log reader does with
 * sim/eventlog/fast-event-check.ts. It may say "not sure" (false) for a valid record — the schema then
 * decides and words the error — but it never accepts what the schema rejects: a property test
 * (fast-record-check.test.ts) holds it to that. Keep the two in step: a field added to the schema and not
 * here makes records that carry it fall back to zod (slower, still right); a field added here and not to
 * the schema is what the property test is there to catch.
 *
 * A record it accepts gets its `type` (and the enum values `event` and `reason`) replaced by the same
 * text as a constant. `JSON.parse` internalizes only strings of up to 10 characters, so "runtime.command"
 * arrives as a fresh string on every line, and every `switch` on the type downstream (the report
 * projections) then compares it character by character; the constant compares by identity.
 */
export function looksValidRecord(raw: unknown): raw is OutputRecord {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const r = raw as Record<string, unknown>;
  // Number.isSafeInteger is zod's `.int()`: an integer the double holds exactly (2^53 and 1e300 are not).
  const atUs = r['atUs'];
  if (typeof atUs !== 'number' || !Number.isSafeInteger(atUs) || atUs < 0) return false;
  switch (r['type']) {
    case 'runtime.command': {
      const outcome = r['outcome'];
      if (typeof r['line'] !== 'string' || (outcome !== 'ok' && outcome !== 'refused' && outcome !== 'reset' && outcome !== 'timeout' && outcome !== 'unavailable' && outcome !== 'broken-pipe')) return false;
      return optionalString(r, 'reply', 4) && typed(r, 'runtime.command');
    }
    case 'input': {
      const event = INPUT_EVENTS.get(r['event'] as string);
      if (event === undefined || typeof r['subject'] !== 'string' || !hasOnly(r, 4)) return false;
      r['event'] = event;
      return typed(r, 'input');
    }
    case 'reload.request': {
      const reason = RELOAD_REASON.get(r['reason'] as string);
      if (reason === undefined || !optionalString(r, 'detail', 3)) return false;
      r['reason'] = reason;
      return typed(r, 'reload.request');
    }
    case 'reload.start':
      return count(r['n']) && hasOnly(r, 3) && typed(r, 'reload.start');
    case 'reload.end':
      return count(r['n']) && hasOnly(r, 3) && typed(r, 'reload.end');
    case 'note':
      return typeof r['message'] === 'string' && hasOnly(r, 3) && typed(r, 'note');
    case 'warning':
      return typeof r['message'] === 'string' && hasOnly(r, 3) && typed(r, 'warning');
    case 'input.counts':
      return inputCounts(r['events']) && hasOnly(r, 3) && typed(r, 'input.counts');
    case 'runtime.counts':
      return counts(r['ok']) && hasOnly(r, 3) && typed(r, 'runtime.counts');
    case 'reload.counts':
      return reasonCounts(r['requests']) && hasOnly(r, 3) && typed(r, 'reload.counts');
    case 'runtime.error':
      return typeof r['detail'] === 'string' && hasOnly(r, 3) && typed(r, 'runtime.error');
    case 'invariant':
      return typeof r['name'] === 'string' && strings(r['violations']) && hasOnly(r, 4) && typed(r, 'invariant');
    case 'vrrp.state':
      return (
        typeof r['node'] === 'string' &&
        count(r['vrid']) &&
        typeof r['vip'] === 'string' &&
        vrrpState(r['from']) &&
        vrrpState(r['to']) &&
        Number.isSafeInteger(r['priority']) &&
        optionalString(r, 'cause', 8) &&
        typed(r, 'vrrp.state')
      );
    case 'vrrp.garp': {
      if (typeof r['node'] !== 'string' || !count(r['vrid']) || typeof r['vip'] !== 'string') return false;
      const reason = r['reason'];
      if (reason === undefined) return hasOnly(r, 5) && typed(r, 'vrrp.garp');
      return (reason === 'master' || reason === 'repeat' || reason === 'lower-prio' || reason === 'reload') && hasOnly(r, 6) && typed(r, 'vrrp.garp');
    }
    case 'vrrp.node':
      return typeof r['node'] === 'string' && typeof r['live'] === 'boolean' && typeof r['cause'] === 'string' && hasOnly(r, 5) && typed(r, 'vrrp.node');
    case 'vrrp.membership': {
      const change = r['change'];
      if (typeof r['node'] !== 'string' || (change !== 'join' && change !== 'leave' && change !== 'peers-updated')) return false;
      // A join's own settings (priority 1..255, preempt, preemptDelayMs), each optional.
      let n = 4;
      const priority = r['priority'];
      if (priority !== undefined && !(typeof priority === 'number' && Number.isInteger(priority) && priority >= 1 && priority <= 255 && n++)) return false;
      const preempt = r['preempt'];
      if (preempt !== undefined && !(typeof preempt === 'boolean' && n++)) return false;
      const delay = r['preemptDelayMs'];
      if (delay !== undefined && !(count(delay) && n++)) return false;
      return optionalString(r, 'ip', n) && typed(r, 'vrrp.membership');
    }
    case 'vrrp.address': {
      const change = r['change'];
      if (typeof r['node'] !== 'string' || !count(r['vrid']) || typeof r['vip'] !== 'string' || typeof r['cause'] !== 'string') return false;
      return (change === 'added' || change === 'removed' || change === 'stale') && hasOnly(r, 7) && typed(r, 'vrrp.address');
    }
    case 'vrrp.exposure':
      return typeof r['node'] === 'string' && typeof r['open'] === 'boolean' && count(r['vips']) && hasOnly(r, 5) && typed(r, 'vrrp.exposure');
    case 'vrrp.stats': {
      if (!count(r['advertsSent']) || !count(r['packetsSent']) || !count(r['deliveries']) || !count(r['dropped'])) return false;
      let n = 6;
      const mode = r['mode'];
      if (mode !== undefined) {
        if (mode !== 'multicast' && mode !== 'unicast') return false;
        n++;
      }
      for (const key of STATS_OPTIONAL_COUNTS) {
        const v = r[key];
        if (v !== undefined) {
          if (!count(v)) return false;
          n++;
        }
      }
      return hasOnly(r, n) && typed(r, 'vrrp.stats');
    }
    case 'run.end': {
      const ms = r['simulatedMs'];
      // JSON has no NaN or Infinity, but a caller handing in an object might: `ms >= 0` is false for NaN, isFinite rules out Infinity.
      return count(r['events']) && typeof ms === 'number' && ms >= 0 && Number.isFinite(ms) && hasOnly(r, 4) && typed(r, 'run.end');
    }
    default:
      return false;
  }
}

/** Each input event type and reload reason as the constant itself, so a parsed copy can be swapped for it. */
const INPUT_EVENTS: ReadonlyMap<string, string> = new Map(INPUT_EVENT_TYPES.map((t) => [t, t]));
const RELOAD_REASON: ReadonlyMap<string, string> = new Map(RELOAD_REASONS.map((t) => [t, t]));
const STATS_OPTIONAL_COUNTS = ['nodes', 'instances', 'intervalDrops'] as const;

/** Puts the constant in place of the parsed copy of the same text (see above); always true. */
function typed(r: Record<string, unknown>, type: OutputRecord['type']): true {
  r['type'] = type;
  return true;
}

/** `n` required keys, plus the optional string `key` when present, and nothing else. */
function optionalString(r: Record<string, unknown>, key: string, n: number): boolean {
  const v = r[key];
  if (v === undefined) return hasOnly(r, n);
  return typeof v === 'string' && hasOnly(r, n + 1);
}

/** The schema's `count`: a non-negative safe integer. */
function count(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** The schema's `z.record(z.string(), count)`: a plain object whose every value is a count. */
function counts(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  for (const k in v) if (!count((v as Record<string, unknown>)[k])) return false;
  return true;
}

/** The schema's `z.partialRecord(z.enum(RELOAD_REASONS), count)`: counts keyed by reload reasons only. */
function reasonCounts(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  for (const k in v) if (!RELOAD_REASON.has(k) || !count((v as Record<string, unknown>)[k])) return false;
  return true;
}

/** The schema's `z.partialRecord(z.enum(COUNTED_INPUTS), count)`. */
function inputCounts(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  for (const k in v) if ((k !== 'endpoints.set' && k !== 'endpoints.delete') || !count((v as Record<string, unknown>)[k])) return false;
  return true;
}

function vrrpState(v: unknown): boolean {
  return v === 'INIT' || v === 'BACKUP' || v === 'MASTER' || v === 'FAULT';
}

function strings(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
}
