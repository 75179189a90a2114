import type { RuntimeCommand } from '../haproxy/commands.ts';
import type { HaproxyConfig } from '../haproxy/config-model.ts';
import { decodeReply, encodeCommand } from '../haproxy/runtime-codec.ts';
import type { TransportResult } from '../runtime-effect.ts';

/**
 * A deliberately small stand-in for HAProxy's runtime API, for core's unit tests only (the simulation uses
 * sim/haproxy's MockHaproxy). It answers the commands the config managers send with 2.6-shaped replies and
 * exposes its state for assertions. Maps are named by `<mapDir>/<file>` as HAProxy names them by path.
 */
export interface FakeServer {
  name: string;
  address: string;
  port: number;
  weight: number;
  /** Admin state bits: 0x01 forced maint, 0x04 config maint. */
  admin: number;
  dynamic: boolean;
  /** `check` configured (on the server line, or `check` in `add server`). */
  check: boolean;
}

export interface FakeBackend {
  name: string;
  balance: string;
  servers: FakeServer[];
  cookieKey?: string;
  dynamicCookies: boolean;
}

export class FakeHaproxy {
  backends = new Map<string, FakeBackend>();
  maps = new Map<string, { ref: number; key: string; value: string }[]>();
  commands: string[] = [];
  private nextRef = 1;

  constructor(readonly mapDir = '/var/lib/haproxy/conf') {}

  load(cfg: HaproxyConfig): void {
    this.backends.clear();
    this.maps.clear();
    for (const b of cfg.backends) {
      const be: FakeBackend = {
        name: b.name,
        balance: b.balance,
        servers: b.servers.map((s) => ({ name: s.name, address: s.address, port: s.port, weight: s.weight, admin: s.disabled ? 0x04 : 0, dynamic: false, check: s.check })),
        dynamicCookies: b.dynamicCookieKey !== undefined,
      };
      if (b.dynamicCookieKey !== undefined) be.cookieKey = b.dynamicCookieKey;
      this.backends.set(b.name, be);
    }
    for (const [file, entries] of Object.entries(cfg.maps)) {
      this.maps.set(`${this.mapDir}/${file}`, entries.map((e) => ({ ref: this.nextRef++, key: e.key, value: e.value })));
    }
  }

  /** It answers text: commands cross as the wire would carry them. */
  send(command: RuntimeCommand): TransportResult {
    const line = encodeCommand(command);
    this.commands.push(line);
    return { ok: true, reply: decodeReply(command, this.execute(line)) };
  }

  /** Ready (admin state 0) servers of a backend. */
  ready(backend: string): string[] {
    return (this.backends.get(backend)?.servers ?? []).filter((s) => s.admin === 0).map((s) => `${s.address}:${s.port}`);
  }

  /** First entry matching `subject` in a map (regex keys, file order), as map_reg would answer. */
  lookup(file: string, subject: string): string | undefined {
    for (const e of this.maps.get(`${this.mapDir}/${file}`) ?? []) if (new RegExp(e.key).test(subject)) return e.value;
    return undefined;
  }

  execute(line: string): string {
    const w = line.split(' ');
    const head = `${w[0]} ${w[1]}`;
    if (line === 'show backend') return `# name\n${[...this.backends.keys()].join('\n')}\n\n`;
    if (head === 'show servers' && w[2] === 'state') {
      const be = this.backends.get(w[3] ?? '');
      if (be === undefined) return "Can't find backend.\n\n";
      const rows = be.servers.map(
        (s, i) => `1 ${be.name} ${i + 1} ${s.name} ${s.address} ${s.admin === 0 ? 2 : 0} ${s.admin} ${s.weight} ${s.weight} 0 1 0 0 0 0 0 0 - ${s.port} - 0 0 - - 0`,
      );
      return `1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr srv_agent_port\n${rows.join('\n')}\n\n`;
    }
    if (head === 'set server') return this.setServer(w);
    if (head === 'set dynamic-cookie-key') {
      const be = this.backends.get(w[3] ?? '');
      if (be === undefined) return 'No such backend.\n\n';
      be.cookieKey = w[4];
      return '\n';
    }
    if (head === 'enable dynamic-cookie') {
      const be = this.backends.get(w[3] ?? '');
      if (be === undefined) return 'No such backend.\n\n';
      be.dynamicCookies = true;
      return '\n';
    }
    if (line === 'show map') {
      const rows = [...this.maps.keys()].map((f, i) => `${i} (${f}) pattern loaded from file '${f}'`);
      return `# id (file) description\n${rows.join('\n')}\n\n`;
    }
    if (head === 'show map') {
      const m = this.maps.get(w[2] ?? '');
      if (m === undefined) return 'Unknown map identifier. Please use #<id> or <file>.\n\n';
      return `${m.map((e) => `0x${e.ref.toString(16)} ${e.key} ${e.value}`).join('\n')}${m.length > 0 ? '\n' : ''}\n`;
    }
    if (head === 'add map') {
      const m = this.maps.get(w[2] ?? '');
      if (m === undefined) return 'Unknown map identifier. Please use #<id> or <file>.\n\n';
      m.push({ ref: this.nextRef++, key: unescapeCli(w[3] ?? ''), value: w[4] ?? '' });
      return '\n';
    }
    if (head === 'del map') {
      const m = this.maps.get(w[2] ?? '');
      if (m === undefined) return 'Unknown map identifier. Please use #<id> or <file>.\n\n';
      const arg = w[3] ?? '';
      const before = m.length;
      const keep = arg.startsWith('#') ? m.filter((e) => `#0x${e.ref.toString(16)}` !== arg) : m.filter((e) => e.key !== unescapeCli(arg));
      this.maps.set(w[2]!, keep);
      return keep.length === before ? 'Key not found.\n\n' : '\n';
    }
    if (head === 'add server') {
      const [bn, sn] = (w[2] ?? '').split('/');
      const be = this.backends.get(bn ?? '');
      if (be === undefined) return 'No such backend.\n\n';
      if (be.servers.some((s) => s.name === sn)) return `Already exists a server with the same name in backend.\n\n`;
      const [ip, port] = (w[3] ?? '').split(':');
      const wi = w.indexOf('weight');
      be.servers.push({ name: sn!, address: ip!, port: Number(port), weight: wi > 0 ? Number(w[wi + 1]) : 1, admin: 0x01, dynamic: true, check: w.includes('check') });
      return 'New server registered.\n\n';
    }
    if (head === 'del server') {
      const [bn, sn] = (w[2] ?? '').split('/');
      const be = this.backends.get(bn ?? '');
      if (be === undefined) return 'No such backend.\n\n';
      const i = be.servers.findIndex((s) => s.name === sn);
      if (i < 0) return 'No such server.\n\n';
      if ((be.servers[i]!.admin & 0x05) === 0) return 'Only a server in maintenance mode can be deleted.\n\n';
      be.servers.splice(i, 1);
      return 'Server deleted.\n\n';
    }
    if (head === 'enable health' || head === 'disable health') {
      const [bn, sn] = (w[2] ?? '').split('/');
      const be = this.backends.get(bn ?? '');
      if (be === undefined) return 'No such backend.\n\n';
      const srv = be.servers.find((s) => s.name === sn);
      if (srv === undefined) return 'No such server.\n\n';
      // HAProxy 2.6.12, measured: enabling checks on a server without `check` is refused.
      return srv.check || head === 'disable health' ? '\n' : 'Health check was not configured on this server, cannot enable.\n\n';
    }
    return 'Unknown command.\n\n';
  }

  private setServer(w: string[]): string {
    const [bn, sn] = (w[2] ?? '').split('/');
    const be = this.backends.get(bn ?? '');
    if (be === undefined) return 'No such backend.\n\n';
    const s = be.servers.find((x) => x.name === sn);
    if (s === undefined) return 'No such server.\n\n';
    switch (w[3]) {
      case 'state':
        if (w[4] === 'ready') s.admin = 0;
        else if (w[4] === 'maint') s.admin |= 0x01;
        else if (w[4] === 'drain') s.admin = 0x08;
        else return "'set server <srv> state' expects 'ready', 'drain' and 'maint'.\n\n";
        return '\n';
      case 'weight': {
        const v = w[4] ?? '';
        s.weight = v.endsWith('%') ? s.weight : Number(v);
        return '\n';
      }
      case 'addr': {
        const ip = w[4] ?? '';
        const port = w[5] === 'port' ? Number(w[6]) : s.port;
        let msg = ip !== s.address ? `IP changed from '${s.address}' to '${ip}'` : 'no need to change the addr';
        if (w[5] === 'port') msg += port !== s.port ? `, port changed from '${s.port}' to '${port}'` : ', no need to change the port';
        s.address = ip;
        s.port = port;
        return `${msg} by 'stats socket command'\n\n`;
      }
      default:
        return 'unknown set server option\n\n';
    }
  }
}

/** The CLI's one level of backslash unescaping. */
export function unescapeCli(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) {
      out += s[i + 1];
      i++;
    } else out += s[i];
  }
  return out;
}
