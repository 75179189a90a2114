/**
 * HAProxy 2.6's CLI help: the usage lines it prints (captured from a running 2.6.12 at admin level, in its
 * sorted order) and the "Unknown command" reply, including the fuzzy suggestions it makes when some words
 * of the line look like a known command. The reply an unknown line gets is part of the runtime API's
 * observable behaviour: clients such as the router's config manager see it for typos and version skew.
 */

/** Usage lines as HAProxy prints them after two spaces, without `help`, `prompt` and `quit`. */
const USAGE_LINES: readonly string[] = [
  'abort ssl ca-file <cafile>              : abort a transaction for a CA file',
  'abort ssl cert <certfile>               : abort a transaction for a certificate file',
  'abort ssl crl-file <crlfile>            : abort a transaction for a CRL file',
  'add acl [@<ver>] <acl> <pattern>        : add an acl entry',
  'add map [@<ver>] <map> <key> <val>      : add a map entry (payload supported instead of key/val)',
  'add server <bk>/<srv>                   : create a new server',
  'add ssl crt-list <list> <cert> [opts]*  : add to crt-list file <list> a line <cert> or a payload',
  'clear acl [@<ver>] <acl>                : clear the contents of this acl',
  'clear counters [all]                    : clear max statistics counters (or all counters)',
  'clear map [@<ver>] <map>                : clear the contents of this map',
  'clear table <table> [<filter>]*         : remove an entry from a table (filter: data/key)',
  'commit acl @<ver> <acl>                 : commit the ACL at this version',
  'commit map @<ver> <map>                 : commit the map at this version',
  'commit ssl ca-file <cafile>             : commit a CA file',
  'commit ssl cert <certfile>              : commit a certificate file',
  'commit ssl crl-file <crlfile>           : commit a CRL file',
  'del acl <acl> [<key>|#<ref>]            : delete acl entries matching <key>',
  'del map <map> [<key>|#<ref>]            : delete map entries matching <key>',
  'del server <bk>/<srv>                   : remove a dynamically added server',
  'del ssl ca-file <cafile>                : delete an unused CA file',
  'del ssl cert <certfile>                 : delete an unused certificate file',
  'del ssl crl-file <crlfile>              : delete an unused CRL file',
  'del ssl crt-list <list> <cert[:line]>   : delete a line <cert> from crt-list file <list>',
  'disable agent                           : disable agent checks',
  'disable dynamic-cookie backend <bk>     : disable dynamic cookies on a specific backend',
  'disable frontend <frontend>             : temporarily disable specific frontend',
  'disable health                          : disable health checks',
  'disable server (DEPRECATED)             : disable a server for maintenance (use \'set server\' instead)',
  'enable agent                            : enable agent checks',
  'enable dynamic-cookie backend <bk>      : enable dynamic cookies on a specific backend',
  'enable frontend <frontend>              : re-enable specific frontend',
  'enable health                           : enable health checks',
  'enable server  (DEPRECATED)             : enable a disabled server (use \'set server\' instead)',
  'get acl <acl> <value>                   : report the patterns matching a sample for an ACL',
  'get map <acl> <value>                   : report the keys and values matching a sample for a map',
  'get var <name>                          : retrieve contents of a process-wide variable',
  'get weight <bk>/<srv>                   : report a server\'s current weight',
  'new ssl ca-file <cafile>                : create a new CA file to be used in a crt-list',
  'new ssl cert <certfile>                 : create a new certificate file to be used in a crt-list or a directory',
  'new ssl crlfile <crlfile>               : create a new CRL file to be used in a crt-list',
  'operator                                : lower the level of the current CLI session to operator',
  'prepare acl <acl>                       : prepare a new version for atomic ACL replacement',
  'prepare map <acl>                       : prepare a new version for atomic map replacement',
  'set dynamic-cookie-key backend <bk> <k> : change a backend secret key for dynamic cookies',
  'set map <map> [<key>|#<ref>] <value>    : modify a map entry',
  'set maxconn frontend <frontend> <value> : change a frontend\'s maxconn setting',
  'set maxconn global <value>              : change the per-process maxconn setting',
  'set maxconn server <bk>/<srv>           : change a server\'s maxconn setting',
  'set profiling <what> {auto|on|off}      : enable/disable resource profiling (tasks,memory)',
  'set rate-limit <setting> <value>        : change a rate limiting value',
  'set server <bk>/<srv> [opts]            : change a server\'s state, weight, address or ssl',
  'set severity-output [none|number|string]: set presence of severity level in feedback information',
  'set ssl ca-file <cafile> <payload>      : replace a CA file',
  'set ssl cert <certfile> <payload>       : replace a certificate file',
  'set ssl crl-file <crlfile> <payload>    : replace a CRL file',
  'set ssl ocsp-response <resp|payload>    : update a certificate\'s OCSP Response from a base64-encode DER',
  'set ssl tls-key [id|file] <key>         : set the next TLS key for the <id> or <file> listener to <key>',
  'set table <table> key <k> [data.* <v>]* : update or create a table entry\'s data',
  'set timeout [cli] <delay>               : change a timeout setting',
  'set weight <bk>/<srv>  (DEPRECATED)     : change a server\'s weight (use \'set server\' instead)',
  'show acl [@<ver>] <acl>]                : report available acls or dump an acl\'s contents',
  'show activity                           : show per-thread activity stats (for support/developers)',
  'show backend                            : list backends in the current running config',
  'show cache                              : show cache status',
  'show cli level                          : display the level of the current CLI session',
  'show cli sockets                        : dump list of cli sockets',
  'show env [var]                          : dump environment variables known to the process',
  'show errors [<px>] [request|response]   : report last request and/or response errors for each proxy',
  'show events [<sink>] [-w] [-n]          : show event sink state',
  'show fd [num]                           : dump list of file descriptors in use or a specific one',
  'show info [desc|json|typed|float]*      : report information about the running process',
  'show libs                               : show loaded object files and libraries',
  'show map [@ver] [map]                   : report available maps or dump a map\'s contents',
  'show peers [dict|-] [section]           : dump some information about all the peers or this peers section',
  'show pools                              : report information about the memory pools usage',
  'show profiling [<what>|<#lines>|byaddr]*: show profiling state (all,status,tasks,memory)',
  'show resolvers [id]                     : dumps counters from all resolvers section and associated name servers',
  'show schema json                        : report schema used for stats',
  'show servers conn [<backend>]           : dump server connections status (all or for a single backend)',
  'show servers state [<backend>]          : dump volatile server information (all or for a single backend)',
  'show sess [id]                          : report the list of current sessions or dump this exact session',
  'show ssl ca-file [<cafile>[:<index>]]   : display the SSL CA files used in memory, or the details of a <cafile>, or a single certificate of index <index> of a CA file <cafile>',
  'show ssl cert [<certfile>]              : display the SSL certificates used in memory, or the details of a file',
  'show ssl crl-file [<crlfile[:<index>>]] : display the SSL CRL files used in memory, or the details of a <crlfile>, or a single CRL of index <index> of CRL file <crlfile>',
  'show ssl crt-list [-n] [<list>]         : show the list of crt-lists or the content of a crt-list file <list>',
  'show ssl ocsp-response [id]             : display the IDs of the OCSP responses used in memory, or the details of a single OCSP response',
  'show ssl providers                      : show loaded SSL providers',
  'show startup-logs                       : report logs emitted during HAProxy startup',
  'show stat [desc|json|no-maint|typed|up]*: report counters for each proxy and server',
  'show table <table> [<filter>]*          : report table usage stats or dump this table\'s contents (filter: data/key)',
  'show tasks                              : show running tasks',
  'show threads                            : show some threads debugging information',
  'show tls-keys [id|*]                    : show tls keys references or dump tls ticket keys when id specified',
  'show trace [<module>]                   : show live tracing state',
  'show version                            : show version of the current process',
  'shutdown frontend <frontend>            : stop a specific frontend',
  'shutdown session [id]                   : kill a specific session',
  'shutdown sessions server <bk>/<srv>     : kill sessions on a server',
  'trace [<module>|0] [cmd [args...]]      : manage live tracing (empty to list, 0 to stop all)',
  'user                                    : lower the level of the current CLI session to user',];

/**
 * The same commands in the order HAProxy 2.6 registers them (by source file in link order, then by their
 * place in each file's table). It decides which of several equally close suggestions are kept.
 */
const REGISTRATION_ORDER: readonly string[] = [
  'show tls-keys',
  'set ssl tls-key',
  'set ssl ocsp-response',
  'show ssl ocsp-response',
  'show ssl providers',
  'add ssl crt-list',
  'del ssl crt-list',
  'show ssl crt-list',
  'new ssl cert',
  'set ssl cert',
  'commit ssl cert',
  'abort ssl cert',
  'del ssl cert',
  'show ssl cert',
  'new ssl ca-file',
  'set ssl ca-file',
  'commit ssl ca-file',
  'abort ssl ca-file',
  'del ssl ca-file',
  'show ssl ca-file',
  'new ssl crl-file',
  'set ssl crl-file',
  'commit ssl crl-file',
  'abort ssl crl-file',
  'del ssl crl-file',
  'show ssl crl-file',
  'show sess',
  'shutdown session',
  'shutdown sessions server',
  'clear counters',
  'show info',
  'show stat',
  'show schema json',
  'disable agent',
  'disable health',
  'disable server',
  'enable agent',
  'enable health',
  'enable server',
  'set maxconn server',
  'set server',
  'get weight',
  'set weight',
  'add server',
  'del server',
  'clear table',
  'set table',
  'show table',
  'show peers',
  'show resolvers',
  'set maxconn global',
  'set rate-limit',
  'set severity-output',
  'set timeout',
  'show env',
  'show cli sockets',
  'show cli level',
  'show fd',
  'show activity',
  'show version',
  'operator',
  'user',
  'disable frontend',
  'enable frontend',
  'set maxconn frontend',
  'show servers conn',
  'show servers state',
  'show backend',
  'shutdown frontend',
  'set dynamic-cookie-key backend',
  'enable dynamic-cookie backend',
  'disable dynamic-cookie backend',
  'show errors',
  'show cache',
  'get var',
  'show libs',
  'show threads',
  'show events',
  'add acl',
  'clear acl',
  'commit acl',
  'del acl',
  'get acl',
  'prepare acl',
  'show acl',
  'add map',
  'clear map',
  'commit map',
  'del map',
  'get map',
  'prepare map',
  'set map',
  'show map',
  'show pools',
  'trace',
  'show trace',
  'set profiling',
  'show profiling',
  'show tasks',
  'show startup-logs',
];

/** Always appended: HAProxy prints these three itself rather than from its keyword table. */
const TRAILER =
  '  help [<command>]                        : list matching or all commands\n' +
  '  prompt                                  : toggle interactive mode with prompt\n' +
  '  quit                                    : disconnect\n';

/** Up to this many words of a line are matched against a keyword (CLI_PREFIX_KW_NB). */
const PREFIX_WORDS_MAX = 5;
/** Fuzzy suggestions kept (CLI_MAX_MATCHES). */
const MATCHES_MAX = 5;

interface Keyword {
  words: readonly string[];
  /** Undefined for commands HAProxy never lists (they still count when measuring the matching prefix). */
  line?: string;
}

/**
 * The keyword words of a usage line are its leading plain words, up to the first placeholder. One usage
 * text misspells its own keyword (`new ssl crlfile` is registered as `crl-file`).
 */
function keywordOf(line: string): Keyword {
  const usage = line.slice(0, 40).trimEnd();
  const words: string[] = [];
  for (const w of usage.split(' ')) {
    if (w === '') continue;
    const c = w.charCodeAt(0);
    // '<' '[' '(' '{' '@' open a placeholder, an option list, a version or a note.
    if (c === 0x3c || c === 0x5b || c === 0x28 || c === 0x7b || c === 0x40) break;
    words.push(w === 'crlfile' ? 'crl-file' : w);
  }
  return { words, line };
}

const HIDDEN: readonly Keyword[] = [['help'], ['prompt'], ['quit'], ['_getsocks'], ['expert-mode'], ['experimental-mode'], ['mcli-debug-mode']].map(
  (words) => ({ words }),
);
const registrationIndex = (kw: Keyword): number => {
  const i = REGISTRATION_ORDER.indexOf(kw.words.join(' '));
  return i < 0 ? REGISTRATION_ORDER.length : i;
};
const KEYWORDS: readonly Keyword[] = [...USAGE_LINES.map(keywordOf), ...HIDDEN].sort((a, b) => registrationIndex(a) - registrationIndex(b));

/**
 * A word's fingerprint counts its letter-class transitions (letters, digits, other, plus begin and end
 * markers) in a 32x32 table; the distance of two fingerprints is the sum of absolute differences. HAProxy
 * uses this to rank keywords that look like a mistyped command.
 */
function addFingerprint(fp: Int32Array, word: string): void {
  const BOUNDARY = 28;
  let from = BOUNDARY;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i) | 0x20;
    let to: number;
    if (c >= 0x61 && c <= 0x7a && isLetter(word.charCodeAt(i))) to = c - 0x61 + 1;
    else if (word.charCodeAt(i) >= 0x30 && word.charCodeAt(i) <= 0x39) to = 27;
    else to = BOUNDARY;
    // Row 0 doubles as a set of the letter classes present.
    fp[to] = 1;
    fp[32 * from + to]! += 1;
    from = to;
  }
  fp[32 * from + BOUNDARY]! += 1;
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function fingerprintDistance(a: Int32Array, b: Int32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i]! - b[i]!);
  return d;
}

/**
 * The candidate closest to `word` by fingerprint, if close enough: HAProxy's suggestion for a mistyped
 * keyword (at most twice the length of either word apart).
 */
export function bestFingerprintMatch(word: string, candidates: readonly string[]): string | undefined {
  const sig = new Int32Array(1024);
  addFingerprint(sig, word);
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    const other = new Int32Array(1024);
    addFingerprint(other, c);
    const d = fingerprintDistance(sig, other);
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  if (best === undefined || bestDist > 2 * word.length || bestDist > 2 * best.length) return undefined;
  return best;
}

/** Number of leading words of `args` that some keyword matches exactly. */
function matchedPrefixLength(args: readonly string[]): number {
  let length = 0;
  for (const kw of KEYWORDS) {
    for (let i = 0; i < PREFIX_WORDS_MAX && i < kw.words.length; i++) {
      const a = args[i];
      if (a === undefined || a === '' || kw.words[i] !== a) break;
      if (i + 1 > length) length = i + 1;
    }
  }
  return length;
}

function matchesPrefix(kw: Keyword, args: readonly string[], length: number): boolean {
  for (let i = 0; i < length; i++) {
    const w = kw.words[i];
    const a = args[i];
    if (w === undefined || a === undefined || a === '' || w !== a) return false;
  }
  return true;
}

/**
 * The reply to a line whose words are no command (`help` gives the same listing under another title).
 * Ends with the CLI's own end-of-output newline.
 */
export function usageReply(argsIn: readonly string[]): string {
  let args = argsIn;
  const isHelp = args[0] === 'help';
  if (isHelp) args = args.slice(1);
  const length = matchedPrefixLength(args);
  let out: string;
  if (isHelp) out = 'The following commands are valid at this level:\n';
  else if (length === 0 && (args[0] === undefined || args[0] === '')) out = 'Unknown command. Please enter one of the following commands only:\n';
  else out = 'Unknown command, but maybe one of the following ones is a better match:\n';

  const matches: { kw: Keyword; dist: number }[] = [];
  const next = args[length];
  if (next !== undefined && next !== '') {
    const wordSig = new Int32Array(1024);
    let argsLen = 0;
    for (let i = length; i < PREFIX_WORDS_MAX && args[i] !== undefined && args[i] !== ''; i++) {
      addFingerprint(wordSig, args[i]!);
      argsLen += args[i]!.length;
    }
    for (const kw of KEYWORDS) {
      if (kw.line === undefined || !matchesPrefix(kw, args, length)) continue;
      const listSig = new Int32Array(1024);
      let totalLen = argsLen;
      for (let i = length; i < PREFIX_WORDS_MAX && i < kw.words.length; i++) {
        addFingerprint(listSig, kw.words[i]!);
        totalLen += kw.words[i]!.length;
      }
      const dist = fingerprintDistance(wordSig, listSig);
      const worst = matches.length < MATCHES_MAX ? Infinity : matches[MATCHES_MAX - 1]!.dist;
      if (dist < Math.trunc((5 * totalLen) / 2) && dist < worst) {
        // Keep the best few; an equal distance does not displace an earlier keyword.
        if (matches.length === MATCHES_MAX) matches.pop();
        let at = matches.length;
        while (at > 0 && matches[at - 1]!.dist > dist) at--;
        matches.splice(at, 0, { kw, dist });
      }
    }
  }

  const entries: string[] = [];
  if (matches.length > 0) {
    const best = matches[0]!.dist;
    for (const m of matches) {
      if (m.dist > Math.trunc((5 * best) / 2)) break;
      entries.push(m.kw.line!);
    }
  } else {
    for (const kw of KEYWORDS) if (kw.line !== undefined && matchesPrefix(kw, args, length)) entries.push(kw.line);
  }
  entries.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const e of entries) out += `  ${e}\n`;
  return `${out}${TRAILER}\n`;
}
