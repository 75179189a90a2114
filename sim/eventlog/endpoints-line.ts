import type { Endpoint } from '../../core/endpoint.ts';
import { isAllowedIpv4 } from '../../core/endpoint-address-filter.ts';
import { VouchedEndpointsSet } from '../../core/vouched-endpoints-set.ts';
import type { InputEvent } from '../../core/events.ts';
import { MAX_AT_MS } from './event-time.ts';
import { LABEL_MAX_LENGTH, SUBDOMAIN_MAX_LENGTH } from './k8s-names.ts';

/**
 * Reads an `endpoints.set` line written the way routerbench writes one, straight from the file's bytes,
 * checking it as it goes. JSON.parse and then the fast check read every character twice and make a key
 * string per field; endpoints.set lines are nearly all of a churned log. This reads each byte once and
 * builds the event the two would have built: the same values, the fields in the line's order, `type` as
 * the constant.
 *
 * It gives up (undefined) at the first thing it does not expect: a space, an escape, a number written any
 * other way than plain digits, fields in another order, an unknown or repeated field, a name the schema
 * would refuse, a byte outside ASCII. JSON.parse and the schema then decide, and word the error. So it
 * never accepts a line they reject, and what it accepts is what they give: endpoints-line.test.ts holds it
 * to both.
 *
 * The line is `t` from `from` to `to`. What follows it ("\r", "\n" or the end of the bytes) is in no rule
 * here, so no match runs past it, and the closing brace must be the line's last byte.
 *
 * Reading each address as a number on the way, it also sees whether the endpoints come in the router's
 * order (compareEndpoints: port, port name, address) and whether the endpoint address filter keeps every
 * address; when both hold it says so by the event's class (VouchedEndpointsSet), which spares admission
 * and the state update reading every address again.
 *
 * Each name is decoded on its own, as JSON.parse copies each: a name cut from a decoded line would be a
 * view of it in V8 (a sliced string for 13 characters or more), which every comparison downstream then
 * reads through, at about eight times the cost, and which keeps its whole line alive.
 */
export function scanEndpointsSet(t: Buffer, from: number, to: number): InputEvent | undefined {
  if (!has(t, from, AT)) return undefined;
  let i = from + AT.length;
  let at = t[i++]! - 48;
  if (!(at >= 0 && at <= 9)) return undefined;
  // "0" is a whole number; JSON allows no digit after a leading 0.
  if (at !== 0) {
    for (let d = t[i]! - 48; d >= 0 && d <= 9; d = t[i]! - 48) {
      at = at * 10 + d;
      // Past MAX_AT_MS the schema refuses the time; stopping here also keeps the sum exact.
      if (at > MAX_AT_MS) return undefined;
      i++;
    }
  }
  if (!has(t, i, TYPE_NAMESPACE)) return undefined;
  i += TYPE_NAMESPACE.length;
  let end = labelEnd(t, i);
  if (end < 0) return undefined;
  const namespace = text(t, i, end);
  if (!has(t, end, SERVICE)) return undefined;
  i = end + SERVICE.length;
  end = subdomainEnd(t, i);
  if (end < 0) return undefined;
  const service = text(t, i, end);
  if (!has(t, end, ENDPOINTS)) return undefined;
  i = end + ENDPOINTS.length;
  const endpoints: Endpoint[] = [];
  // The last endpoint's sort key, while every endpoint so far is in the router's order and kept by the filter.
  let vouched = true;
  let lastPort = 0;
  let lastPortName = '';
  let lastQuad = 0;
  if (t[i]! === 93) {
    i++;
  } else {
    for (;;) {
      if (!has(t, i, IP)) return undefined;
      i += IP.length;
      end = dottedQuadEnd(t, i);
      if (end < 0) return undefined;
      const address = quad;
      const ip = text(t, i, end);
      if (!has(t, end, PORT)) return undefined;
      i = end + PORT.length;
      let port = t[i++]! - 48;
      if (!(port >= 1 && port <= 9)) return undefined;
      for (let d = t[i]! - 48; d >= 0 && d <= 9; d = t[i]! - 48) {
        port = port * 10 + d;
        if (port > 65535) return undefined;
        i++;
      }
      let endpoint: Endpoint;
      // Objects made whole from a literal, with the fields JSON.parse would give them, in its order: fields
      // added one by one would go to a separate property store, which every later read goes through.
      if (has(t, i, NAME_FIRST)) {
        i += NAME_FIRST.length;
        end = subdomainEnd(t, i);
        if (end < 0) return undefined;
        endpoint = { ip, port, name: text(t, i, end) };
        i = end + 1;
      } else {
        endpoint = { ip, port };
      }
      // Any other optional fields in any order, each at most once: the generator and the importer differ.
      while (t[i]! === 44) {
        i++;
        if (has(t, i, NAME)) {
          if (endpoint.name !== undefined) return undefined;
          i += NAME.length;
          end = subdomainEnd(t, i);
          if (end < 0) return undefined;
          endpoint.name = text(t, i, end);
          i = end + 1;
        } else if (has(t, i, PORT_NAME)) {
          if (endpoint.portName !== undefined) return undefined;
          i += PORT_NAME.length;
          end = labelEnd(t, i);
          if (end < 0) return undefined;
          endpoint.portName = text(t, i, end);
          i = end + 1;
        } else if (has(t, i, READY)) {
          if (endpoint.ready !== undefined) return undefined;
          i += READY.length;
          if (has(t, i, TRUE)) {
            endpoint.ready = true;
            i += 4;
          } else if (has(t, i, FALSE)) {
            endpoint.ready = false;
            i += 5;
          } else {
            return undefined;
          }
        } else {
          return undefined;
        }
      }
      if (t[i++]! !== 125) return undefined;
      if (vouched) {
        const portName = endpoint.portName ?? '';
        if (endpoints.length > 0 && (port !== lastPort ? port < lastPort : portName !== lastPortName ? portName < lastPortName : address < lastQuad)) vouched = false;
        else if (!isAllowedIpv4(address)) vouched = false;
        lastPort = port;
        lastPortName = portName;
        lastQuad = address;
      }
      endpoints.push(endpoint);
      const c = t[i++]!;
      if (c === 93) break;
      if (c !== 44) return undefined;
    }
  }
  if (i !== to - 1 || t[i]! !== 125) return undefined;
  return vouched ? new VouchedEndpointsSet(at, namespace, service, endpoints) : { at, type: 'endpoints.set', namespace, service, endpoints };
}


const TRUE = ascii('true');
const FALSE = ascii('false');
const AT = ascii('{"at":');
const TYPE_NAMESPACE = ascii(',"type":"endpoints.set","namespace":"');
const SERVICE = ascii('","service":"');
const ENDPOINTS = ascii('","endpoints":[');
const IP = ascii('{"ip":"');
const PORT = ascii('","port":');
const NAME = ascii('"name":"');
const NAME_FIRST = ascii(',"name":"');
const PORT_NAME = ascii('"portName":"');
const READY = ascii('"ready":');

interface Literal {
  readonly length: number;
  /**
   * Its bytes four at a time, little-endian, at `offsets`: every fourth byte from the first, and the last
   * four (overlapping the word before when the length is not a multiple of 4), so no byte is left over.
   */
  readonly words: Uint32Array;
  readonly offsets: Uint32Array;
}

function ascii(s: string): Literal {
  if (s.length < 4) throw new Error(`a literal of at least 4 bytes, not ${JSON.stringify(s)}`);
  const bytes = Uint8Array.from(s, (c) => c.charCodeAt(0));
  const view = new DataView(bytes.buffer);
  const offsets: number[] = [];
  for (let k = 0; k + 4 <= s.length; k += 4) offsets.push(k);
  if (s.length % 4 !== 0) offsets.push(s.length - 4);
  return { length: s.length, words: Uint32Array.from(offsets, (k) => view.getUint32(k, true)), offsets: Uint32Array.from(offsets) };
}

/** A view of the last bytes scanned, for reading four at a time (a new one per buffer the cursor fills). */
let viewed: Buffer | undefined;
let view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

/**
 * Whether the bytes from `i` on are `literal`'s, compared four at a time: the fixed text between the values
 * is about half of an endpoints.set line, and reading the line's bytes one by one for it made reading the
 * churn log 10% slower (1,326-1,332 against 1,174-1,218 ms of CPU, 2 Dec 2026).
 */
function has(t: Buffer, i: number, literal: Literal): boolean {
  if (i + literal.length > t.length) return false;
  if (t !== viewed) {
    viewed = t;
    view = new DataView(t.buffer, t.byteOffset, t.byteLength);
  }
  const words = literal.words;
  const offsets = literal.offsets;
  for (let k = 0; k < words.length; k++) if (view.getUint32(i + offsets[k]!, true) !== words[k]) return false;
  return true;
}

/**
 * The bytes from `i` to `end` as a string of their own. Up to 16 bytes (nearly every name and address) by
 * `String.fromCharCode` with one argument per byte, which makes the string without leaving JavaScript:
 * 10 to 20 ns against about 50 for Buffer's decoder, whose every call crosses into C++. Longer ones by the
 * decoder.
 */
function text(t: Buffer, i: number, end: number): string {
  switch (end - i) {
    case 1:
      return char(t[i]!);
    case 2:
      return char(t[i]!, t[i + 1]!);
    case 3:
      return char(t[i]!, t[i + 1]!, t[i + 2]!);
    case 4:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!);
    case 5:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!, t[i + 4]!);
    case 6:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!, t[i + 4]!, t[i + 5]!);
    case 7:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!, t[i + 4]!, t[i + 5]!, t[i + 6]!);
    case 8:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!, t[i + 4]!, t[i + 5]!, t[i + 6]!, t[i + 7]!);
    case 9:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!, t[i + 4]!, t[i + 5]!, t[i + 6]!, t[i + 7]!, t[i + 8]!);
    case 10:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!, t[i + 4]!, t[i + 5]!, t[i + 6]!, t[i + 7]!, t[i + 8]!, t[i + 9]!);
    case 11:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!, t[i + 4]!, t[i + 5]!, t[i + 6]!, t[i + 7]!, t[i + 8]!, t[i + 9]!, t[i + 10]!);
    case 12:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!, t[i + 4]!, t[i + 5]!, t[i + 6]!, t[i + 7]!, t[i + 8]!, t[i + 9]!, t[i + 10]!, t[i + 11]!);
    case 13:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!, t[i + 4]!, t[i + 5]!, t[i + 6]!, t[i + 7]!, t[i + 8]!, t[i + 9]!, t[i + 10]!, t[i + 11]!, t[i + 12]!);
    case 14:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!, t[i + 4]!, t[i + 5]!, t[i + 6]!, t[i + 7]!, t[i + 8]!, t[i + 9]!, t[i + 10]!, t[i + 11]!, t[i + 12]!, t[i + 13]!);
    case 15:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!, t[i + 4]!, t[i + 5]!, t[i + 6]!, t[i + 7]!, t[i + 8]!, t[i + 9]!, t[i + 10]!, t[i + 11]!, t[i + 12]!, t[i + 13]!, t[i + 14]!);
    case 16:
      return char(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!, t[i + 4]!, t[i + 5]!, t[i + 6]!, t[i + 7]!, t[i + 8]!, t[i + 9]!, t[i + 10]!, t[i + 11]!, t[i + 12]!, t[i + 13]!, t[i + 14]!, t[i + 15]!);
    default:
      return t.toString('latin1', i, end);
  }
}

const char = String.fromCharCode;

/** Where the DNS-1123 label starting at `i` ends at a closing quote, or -1. */
function labelEnd(t: Uint8Array, i: number): number {
  const start = i;
  for (;; i++) {
    const c = t[i]!;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) continue;
    if (c === 45 && i > start) continue;
    if (c !== 34) return -1;
    break;
  }
  const n = i - start;
  return n >= 1 && n <= LABEL_MAX_LENGTH && t[i - 1]! !== 45 ? i : -1;
}

/** Where the DNS-1123 subdomain starting at `i` ends at a closing quote, or -1. */
function subdomainEnd(t: Uint8Array, i: number): number {
  const start = i;
  let labelStart = i;
  for (;; i++) {
    const c = t[i]!;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) continue;
    if (c === 45 && i > labelStart) continue;
    if (c !== 46 && c !== 34) return -1;
    const n = i - labelStart;
    if (n < 1 || n > LABEL_MAX_LENGTH || t[i - 1]! === 45) return -1;
    if (c === 34) break;
    labelStart = i + 1;
  }
  return i - start <= SUBDOMAIN_MAX_LENGTH ? i : -1;
}

/** The address the last dottedQuadEnd read, as dottedQuadValue gives it (a module variable: no object per address). */
let quad = 0;

/**
 * Where the dotted quad (core/dotted-quad.ts's rule) starting at `i` ends at a closing quote, or -1; its
 * value goes to `quad`.
 */
function dottedQuadEnd(t: Uint8Array, i: number): number {
  let address = 0;
  for (let octet = 1; ; octet++) {
    let value = t[i++]! - 48;
    if (!(value >= 0 && value <= 9)) return -1;
    if (value !== 0) {
      let d = t[i]! - 48;
      if (d >= 0 && d <= 9) {
        value = value * 10 + d;
        i++;
        d = t[i]! - 48;
        if (d >= 0 && d <= 9) {
          value = value * 10 + d;
          i++;
          if (value > 255) return -1;
        }
      }
    }
    address = address * 256 + value;
    if (octet === 4) {
      quad = address;
      return t[i]! === 34 ? i : -1;
    }
    if (t[i++]! !== 46) return -1;
  }
}
