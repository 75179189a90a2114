import { escapeCliKey } from './cli-escape.ts';

/**
 * Runtime API command text as the router sends it (HAProxy 2.6 forms). Builders only: no escaping beyond
 * what the router itself does (map keys, see cli-escape.ts).
 */
export type ServerAdminState = 'ready' | 'drain' | 'maint';

export const showBackend = (): string => 'show backend';
export const showServersState = (backend: string): string => `show servers state ${backend}`;
export const showMapList = (): string => 'show map';
export const showMap = (file: string): string => `show map ${file}`;

/** `set server <be>/<srv> addr <ip>[ port <p>]`: the 2018 manager adds ` port` only when the port changed. */
export function setServerAddr(backend: string, server: string, ip: string, port?: number): string {
  return port === undefined ? `set server ${backend}/${server} addr ${ip}` : `set server ${backend}/${server} addr ${ip} port ${port}`;
}
export const setServerState = (backend: string, server: string, state: ServerAdminState): string =>
  `set server ${backend}/${server} state ${state}`;
/** `weight` is a number 0..256 or a relative `N%` (passthrough backends use `100%`). */
export const setServerWeight = (backend: string, server: string, weight: string): string =>
  `set server ${backend}/${server} weight ${weight}`;
export const setDynamicCookieKey = (backend: string, key: string): string => `set dynamic-cookie-key backend ${backend} ${key}`;
export const enableDynamicCookie = (backend: string): string => `enable dynamic-cookie backend ${backend}`;

/** `add map <file> <escaped key> <value>` (the 2018 manager; the key is escaped for the CLI). */
export const addMap = (file: string, key: string, value: string): string => `add map ${file} ${escapeCliKey(key)} ${value}`;
/** `del map <file> #<ref>`: the 2018 manager deletes by the entry's reference from `show map <file>`. */
export const delMapRef = (file: string, ref: string): string => `del map ${file} #${ref}`;

/**
 * `add server <be>/<srv> <ip>:<port> weight <w>[ ssl …] check inter <t>[ maxconn <n>]` (2026 manager,
 * backend.go innerAddServer). Reencrypt options (ssl, alpn, verify) are passed in `extra` by the caller.
 */
export function addServer(backend: string, server: string, ip: string, port: number, weight: number, extra: string): string {
  return `add server ${backend}/${server} ${ip}:${port} weight ${weight}${extra}`;
}
export const delServer = (backend: string, server: string): string => `del server ${backend}/${server}`;
export const enableHealth = (backend: string, server: string): string => `enable health ${backend}/${server}`;
export const disableHealth = (backend: string, server: string): string => `disable health ${backend}/${server}`;
