/**
 * The HAProxy configuration a reload writes, reduced to what the runtime API can observe and change:
 * backends with their servers, and map files. The mocked HAProxy rebuilds its whole state from this on
 * every reload, which is how runtime changes get lost exactly as they do in a real HAProxy.
 */
export interface ServerConfig {
  name: string;
  address: string;
  port: number;
  /** 0..256; HAProxy's default is 1. */
  weight: number;
  /** `disabled` on the server line: starts in maintenance (admin state 0x04, config maint). */
  disabled: boolean;
  check: boolean;
  /** Static `cookie <value>` on the server line, if any. */
  cookie?: string;
  /**
   * `ssl` and `port <n>` (the check port) on the server line. Only a parsed haproxy.cfg sets them
   * (`mock-haproxy --config`): `show servers state` prints them, and the router's manager never reads them.
   */
  ssl?: boolean;
  checkPort?: number;
  /**
   * True when `address` is known to be in the form HAProxy prints (a dotted quad, see isDottedQuad), so a
   * reader need not parse it again. A hint from the renderer, which learns it while the address is in the
   * cache; absent means unknown. Rebuilding each backend after a reload read every server's address, cold
   * by then: 2.9% of a dcm-slots replay of the saturated day's first 200,000 events.
   */
  canonicalAddress?: boolean;
}

export type Balance = 'roundrobin' | 'leastconn' | 'source' | 'random' | 'static-rr' | 'first';

export interface BackendConfig {
  name: string;
  mode: 'http' | 'tcp';
  balance: Balance;
  /**
   * `hash-type`: the router template writes `hash-type consistent` on passthrough backends, which makes
   * `balance source` a dynamic algorithm (weights and `add server` allowed). Absent = HAProxy's default, map-based.
   */
  hashType?: 'map-based' | 'consistent';
  /** `cookie <name> insert ... dynamic` on the backend, with `dynamic-cookie-key`. */
  cookieName?: string;
  dynamicCookieKey?: string;
  servers: ServerConfig[];
}

export interface MapEntry {
  key: string;
  value: string;
}

export interface HaproxyConfig {
  backends: BackendConfig[];
  /** Map file name (e.g. `os_http_be.map`) to its entries in file order. */
  maps: Record<string, MapEntry[]>;
}
