import { bestFingerprintMatch } from './cli-help.ts';

/**
 * The keywords a `server` line (and so `add server`) takes in HAProxy 2.6, in registration order, with how
 * many values each consumes (-1: `source`, which takes a variable number) and whether a dynamic server may
 * use it. Read from the 2.6 sources (cfgparse-ssl, server, cfgparse, check, cfgparse-tcp). `add server`
 * answers an unknown word with a "did you mean" from this list, and a known but static-only one with
 * "not accepted for dynamic server".
 */
export type ServerKeyword = readonly [name: string, values: number, dynamic: boolean];

export const SERVER_KEYWORDS: readonly ServerKeyword[] = [
  ['allow-0rtt', 0, true],
  ['alpn', 1, true],
  ['ca-file', 1, true],
  ['check-alpn', 1, true],
  ['check-sni', 1, true],
  ['check-ssl', 0, true],
  ['ciphers', 1, true],
  ['ciphersuites', 1, true],
  ['crl-file', 1, true],
  ['crt', 1, true],
  ['force-sslv3', 0, true],
  ['force-tlsv10', 0, true],
  ['force-tlsv11', 0, true],
  ['force-tlsv12', 0, true],
  ['force-tlsv13', 0, true],
  ['no-check-ssl', 0, false],
  ['no-send-proxy-v2-ssl', 0, false],
  ['no-send-proxy-v2-ssl-cn', 0, false],
  ['no-ssl', 0, false],
  ['no-ssl-reuse', 0, true],
  ['no-sslv3', 0, true],
  ['no-tlsv10', 0, true],
  ['no-tlsv11', 0, true],
  ['no-tlsv12', 0, true],
  ['no-tlsv13', 0, true],
  ['no-tls-tickets', 0, true],
  ['npn', 1, true],
  ['send-proxy-v2-ssl', 0, true],
  ['send-proxy-v2-ssl-cn', 0, true],
  ['sni', 1, true],
  ['ssl', 0, true],
  ['ssl-min-ver', 1, true],
  ['ssl-max-ver', 1, true],
  ['ssl-reuse', 0, false],
  ['tls-tickets', 0, true],
  ['verify', 1, true],
  ['verifyhost', 1, true],
  ['backup', 0, true],
  ['cookie', 1, false],
  ['disabled', 0, true],
  ['enabled', 0, true],
  ['error-limit', 1, true],
  ['ws', 1, true],
  ['id', 1, true],
  ['init-addr', 1, false],
  ['log-proto', 1, false],
  ['maxconn', 1, true],
  ['maxqueue', 1, true],
  ['max-reuse', 1, false],
  ['minconn', 1, true],
  ['namespace', 1, false],
  ['no-backup', 0, true],
  ['no-send-proxy', 0, true],
  ['no-send-proxy-v2', 0, true],
  ['no-tfo', 0, true],
  ['non-stick', 0, false],
  ['observe', 1, true],
  ['on-error', 1, true],
  ['on-marked-down', 1, true],
  ['on-marked-up', 1, true],
  ['pool-low-conn', 1, true],
  ['pool-max-conn', 1, true],
  ['pool-purge-delay', 1, true],
  ['proto', 1, true],
  ['proxy-v2-options', 1, true],
  ['redir', 1, false],
  ['resolve-net', 1, false],
  ['resolve-opts', 1, false],
  ['resolve-prefer', 1, false],
  ['resolvers', 1, false],
  ['send-proxy', 0, true],
  ['send-proxy-v2', 0, true],
  ['slowstart', 1, true],
  ['source', -1, true],
  ['stick', 0, false],
  ['tfo', 0, true],
  ['track', 1, true],
  ['socks4', 1, false],
  ['usesrc', 0, true],
  ['weight', 1, true],
  ['addr', 1, true],
  ['agent-addr', 1, true],
  ['agent-check', 0, true],
  ['agent-inter', 1, true],
  ['agent-port', 1, true],
  ['agent-send', 1, true],
  ['check', 0, true],
  ['check-proto', 1, true],
  ['check-send-proxy', 0, true],
  ['check-via-socks4', 0, true],
  ['no-agent-check', 0, false],
  ['no-check', 0, false],
  ['no-check-send-proxy', 0, false],
  ['rise', 1, true],
  ['fall', 1, true],
  ['inter', 1, true],
  ['fastinter', 1, true],
  ['downinter', 1, true],
  ['port', 1, true],
  ['tcp-ut', 1, false],];

/** Option values HAProxy also offers as suggestions for a mistyped server keyword. */
const EXTRA_SUGGESTIONS = ['ipv4', 'ipv6', 'legacy', 'octet-count', 'fail-check', 'sudden-death', 'mark-down'];

const byName = new Map<string, ServerKeyword>(SERVER_KEYWORDS.map((k) => [k[0], k]));

export function findServerKeyword(word: string): ServerKeyword | undefined {
  return byName.get(word);
}

/** HAProxy's suggestion for an unknown server keyword, if one is close enough. */
export function suggestServerKeyword(word: string): string | undefined {
  return bestFingerprintMatch(word, [...SERVER_KEYWORDS.map((k) => k[0]), ...EXTRA_SUGGESTIONS]);
}
