/**
 * `show info` and `show version` of HAProxy 2.6 (measured on the Debian 2.6.12 build): every field the
 * process reports, in its order, with the tags, type and description HAProxy gives it. What a real process
 * measures (pid, uptime, memory pools, connection counters, the file-descriptor limit and what it
 * derives from it) comes from `ProcessInfo`: plausible fixed values by default, the real pid, host name and
 * clock when `routerbench mock-haproxy` serves a socket. The conformance test masks those fields.
 */
export interface ProcessInfo {
  version: string;
  releaseDate: string;
  nbthread: number;
  pid: number;
  node: string;
  /** `ulimit -n` as HAProxy raised it, and the limits it derives from it and from `global maxconn`. */
  ulimitN: number;
  maxsock: number;
  maxconn: number;
  /** Listeners (binds and stats sockets); with the CLI connection asking, the jobs. */
  listeners: number;
  tasks: number;
  poolBytes: number;
}

export const DEFAULT_PROCESS_INFO: ProcessInfo = {
  version: '2.6.12-1+deb12u4',
  releaseDate: '2026/10/17',
  nbthread: 1,
  pid: 1,
  node: 'routerbench',
  ulimitN: 4037,
  maxsock: 4037,
  maxconn: 2000,
  listeners: 4,
  tasks: 20,
  poolBytes: 106456,
};

/** What changes while the process runs: its clock and the CLI's own traffic. */
export interface ProcessCounters {
  uptimeS: number;
  startS: number;
  /** Connections accepted and requests read (the CLI's count as the only traffic). */
  connections: number;
  bytesOut: number;
}

type Tags = 'POS' | 'CGS' | 'KGP' | 'SGP' | 'MDP' | 'CLP' | 'MGP' | 'MCP' | 'MMP' | 'MRP' | 'MaP' | 'COS';
type FieldType = 'str' | 'u32' | 'u64';

/** Position, name, tags (origin, nature, scope), type and description; positions 45, 46 and 51 stay empty in this build. */
const FIELDS: readonly (readonly [number, string, Tags, FieldType, string])[] = [
  [0, 'Name', 'POS', 'str', 'Product name'],
  [1, 'Version', 'POS', 'str', 'Product version'],
  [2, 'Release_date', 'POS', 'str', 'Date of latest source code update'],
  [3, 'Nbthread', 'CGS', 'u32', 'Number of started threads (global.nbthread)'],
  [4, 'Nbproc', 'CGS', 'u32', 'Number of started worker processes (historical, always 1)'],
  [5, 'Process_num', 'KGP', 'u32', 'Relative worker process number (1)'],
  [6, 'Pid', 'SGP', 'u32', 'This worker process identifier for the system'],
  [7, 'Uptime', 'MDP', 'str', 'How long ago this worker process was started (days+hours+minutes+seconds)'],
  [8, 'Uptime_sec', 'MDP', 'u32', 'How long ago this worker process was started (seconds)'],
  [9, 'Memmax_MB', 'CLP', 'u32', "Worker process's hard limit on memory usage in MB (-m on command line)"],
  [10, 'PoolAlloc_MB', 'MGP', 'u32', 'Amount of memory allocated in pools (in MB)'],
  [11, 'PoolUsed_MB', 'MGP', 'u32', 'Amount of pool memory currently used (in MB)'],
  [12, 'PoolFailed', 'MCP', 'u32', 'Number of failed pool allocations since this worker was started'],
  [13, 'Ulimit-n', 'CLP', 'u32', 'Hard limit on the number of per-process file descriptors'],
  [14, 'Maxsock', 'CLP', 'u32', 'Hard limit on the number of per-process sockets'],
  [15, 'Maxconn', 'CLP', 'u32', 'Hard limit on the number of per-process connections (configured or imposed by Ulimit-n)'],
  [16, 'Hard_maxconn', 'CLP', 'u32', 'Hard limit on the number of per-process connections (imposed by Memmax_MB or Ulimit-n)'],
  [17, 'CurrConns', 'MGP', 'u32', 'Current number of connections on this worker process'],
  [18, 'CumConns', 'MCP', 'u32', 'Total number of connections on this worker process since started'],
  [19, 'CumReq', 'MCP', 'u32', 'Total number of requests on this worker process since started'],
  [20, 'MaxSslConns', 'MMP', 'u32', 'Hard limit on the number of per-process SSL endpoints (front+back), 0=unlimited'],
  [21, 'CurrSslConns', 'MGP', 'u32', 'Current number of SSL endpoints on this worker process (front+back)'],
  [22, 'CumSslConns', 'MCP', 'u32', 'Total number of SSL endpoints on this worker process since started (front+back)'],
  [23, 'Maxpipes', 'CLP', 'u32', 'Hard limit on the number of pipes for splicing, 0=unlimited'],
  [24, 'PipesUsed', 'MGP', 'u32', 'Current number of pipes in use in this worker process'],
  [25, 'PipesFree', 'MGP', 'u32', 'Current number of allocated and available pipes in this worker process'],
  [26, 'ConnRate', 'MRP', 'u32', 'Number of front connections created on this worker process over the last second'],
  [27, 'ConnRateLimit', 'CLP', 'u32', 'Hard limit for ConnRate (global.maxconnrate)'],
  [28, 'MaxConnRate', 'MMP', 'u32', 'Highest ConnRate reached on this worker process since started (in connections per second)'],
  [29, 'SessRate', 'MRP', 'u32', 'Number of sessions created on this worker process over the last second'],
  [30, 'SessRateLimit', 'CLP', 'u32', 'Hard limit for SessRate (global.maxsessrate)'],
  [31, 'MaxSessRate', 'MRP', 'u32', 'Highest SessRate reached on this worker process since started (in sessions per second)'],
  [32, 'SslRate', 'MRP', 'u32', 'Number of SSL connections created on this worker process over the last second'],
  [33, 'SslRateLimit', 'CLP', 'u32', 'Hard limit for SslRate (global.maxsslrate)'],
  [34, 'MaxSslRate', 'MMP', 'u32', 'Highest SslRate reached on this worker process since started (in connections per second)'],
  [35, 'SslFrontendKeyRate', 'MGP', 'u32', 'Number of SSL keys created on frontends in this worker process over the last second'],
  [36, 'SslFrontendMaxKeyRate', 'MMP', 'u32', 'Highest SslFrontendKeyRate reached on this worker process since started (in SSL keys per second)'],
  [37, 'SslFrontendSessionReuse_pct', 'MGP', 'u32', 'Percent of frontend SSL connections which did not require a new key'],
  [38, 'SslBackendKeyRate', 'MRP', 'u32', 'Number of SSL keys created on backends in this worker process over the last second'],
  [39, 'SslBackendMaxKeyRate', 'MMP', 'u32', 'Highest SslBackendKeyRate reached on this worker process since started (in SSL keys per second)'],
  [40, 'SslCacheLookups', 'MCP', 'u32', 'Total number of SSL session ID lookups in the SSL session cache on this worker since started'],
  [41, 'SslCacheMisses', 'MCP', 'u32', "Total number of SSL session ID lookups that didn't find a session in the SSL session cache on this worker since started"],
  [42, 'CompressBpsIn', 'MRP', 'u32', 'Number of bytes submitted to the HTTP compressor in this worker process over the last second'],
  [43, 'CompressBpsOut', 'MRP', 'u32', 'Number of bytes emitted by the HTTP compressor in this worker process over the last second'],
  [44, 'CompressBpsRateLim', 'CLP', 'u32', 'Limit of CompressBpsOut beyond which HTTP compression is automatically disabled'],
  [47, 'Tasks', 'MGP', 'u32', 'Total number of tasks in the current worker process (active + sleeping)'],
  [48, 'Run_queue', 'MGP', 'u32', 'Total number of active tasks+tasklets in the current worker process'],
  [49, 'Idle_pct', 'MaP', 'u32', 'Percentage of last second spent waiting in the current worker thread'],
  [50, 'node', 'COS', 'str', 'Node name (global.node)'],
  [52, 'Stopping', 'MGP', 'u32', '1 if the worker process is currently stopping, otherwise zero'],
  [53, 'Jobs', 'MGP', 'u32', 'Current number of active jobs on the current worker process (frontend connections, master connections, listeners)'],
  [54, 'Unstoppable Jobs', 'MGP', 'u32', 'Current number of unstoppable jobs on the current worker process (master connections)'],
  [55, 'Listeners', 'MGP', 'u32', 'Current number of active listeners on the current worker process'],
  [56, 'ActivePeers', 'MGP', 'u32', 'Current number of verified active peers connections on the current worker process'],
  [57, 'ConnectedPeers', 'MGP', 'u32', 'Current number of peers having passed the connection step on the current worker process'],
  [58, 'DroppedLogs', 'MGP', 'u32', 'Total number of dropped logs for current worker process since started'],
  [59, 'BusyPolling', 'MGP', 'u32', '1 if busy-polling is currently in use on the worker process, otherwise zero (config.busy-polling)'],
  [60, 'FailedResolutions', 'MGP', 'u32', 'Total number of failed DNS resolutions in current worker process since started'],
  [61, 'TotalBytesOut', 'MGP', 'u64', 'Total number of bytes emitted by current worker process since started'],
  [62, 'TotalSplicdedBytesOut', 'MGP', 'u64', 'Total number of bytes emitted by current worker process through a kernel pipe since started'],
  [63, 'BytesOutRate', 'MRP', 'u64', 'Number of bytes emitted by current worker process over the last second'],
  [64, 'DebugCommandsIssued', 'MGP', 'u32', 'Number of debug commands issued on this process (anything > 0 is unsafe)'],
  [65, 'CumRecvLogs', 'MCP', 'u32', 'Total number of log messages received by log-forwarding listeners on this worker process since started'],
  [66, 'Build info', 'POS', 'str', 'Build info'],
  [67, 'Memmax_bytes', 'CLP', 'u32', "Worker process's hard limit on memory usage in byes (-m on command line)"],
  [68, 'PoolAlloc_bytes', 'MGP', 'u64', 'Amount of memory allocated in pools (in bytes)'],
  [69, 'PoolUsed_bytes', 'MGP', 'u64', 'Amount of pool memory currently used (in bytes)'],
  [70, 'Start_time_sec', 'MDP', 'u32', 'Start time in seconds'],
  [71, 'Tainted', 'SGP', 'str', 'Experimental features used'],
];

const ORIGIN: Record<string, string> = { P: 'Product', C: 'Config', K: 'Key', S: 'Status', M: 'Metric' };
const NATURE: Record<string, string> = { O: 'Output', G: 'Gauge', L: 'Limit', C: 'Counter', D: 'Duration', M: 'Max', R: 'Rate', a: 'Avg' };
const SCOPE: Record<string, string> = { S: 'Service', P: 'Process' };

function uptimeText(s: number): string {
  const t = Math.floor(s);
  const d = Math.floor(t / 86400);
  const h = Math.floor((t % 86400) / 3600);
  const m = Math.floor((t % 3600) / 60);
  return `${d}d ${h}h${String(m).padStart(2, '0')}m${String(t % 60).padStart(2, '0')}s`;
}

function valueOf(name: string, info: ProcessInfo, c: ProcessCounters, float: boolean): string {
  switch (name) {
    case 'Name':
      return 'HAProxy';
    case 'Version':
    case 'Build info':
      return info.version;
    case 'Release_date':
      return info.releaseDate;
    case 'Nbthread':
      return String(info.nbthread);
    case 'Nbproc':
    case 'Process_num':
      return '1';
    case 'Pid':
      return String(info.pid);
    case 'Uptime':
      return uptimeText(c.uptimeS);
    case 'Uptime_sec':
      return float ? c.uptimeS.toFixed(6) : String(Math.floor(c.uptimeS));
    case 'Start_time_sec':
      return float ? c.startS.toFixed(6) : String(Math.floor(c.startS));
    case 'Ulimit-n':
      return String(info.ulimitN);
    case 'Maxsock':
      return String(info.maxsock);
    case 'Maxconn':
    case 'Hard_maxconn':
      return String(info.maxconn);
    case 'CumConns':
    case 'CumReq':
      return String(c.connections);
    case 'Tasks':
      return String(info.tasks);
    case 'Idle_pct':
      return '100';
    case 'node':
      return info.node;
    case 'Jobs':
      return String(info.listeners + 1);
    case 'Listeners':
      return String(info.listeners);
    case 'TotalBytesOut':
    case 'BytesOutRate':
      return String(c.bytesOut);
    case 'PoolAlloc_bytes':
    case 'PoolUsed_bytes':
      return String(info.poolBytes);
    case 'PoolAlloc_MB':
    case 'PoolUsed_MB':
      return String(Math.floor(info.poolBytes / 1048576));
    default:
      return '0';
  }
}

/** `show info [desc|json|typed|float]*`; other words are ignored, as HAProxy ignores them. */
export function showInfo(w: readonly string[], info: ProcessInfo, c: ProcessCounters): string {
  const opts = new Set(w.slice(2));
  const float = opts.has('float');
  const timed = (name: string) => float && (name === 'Uptime_sec' || name === 'Start_time_sec');
  if (opts.has('json')) {
    const items = FIELDS.map(([pos, name, tags, type]) => {
      const v = valueOf(name, info, c, float);
      const t = timed(name) ? 'flt' : type;
      const tagText = `{"origin":"${ORIGIN[tags[0]!]}","nature":"${NATURE[tags[1]!]}","scope":"${SCOPE[tags[2]!]}"}`;
      return `{"field":{"pos":${pos},"name":"${name}"},"processNum":1,"tags":${tagText},"value":{"type":"${t}","value":${t === 'str' ? JSON.stringify(v) : v}}}`;
    });
    return `[${items.join(',')}]\n\n`;
  }
  const desc = opts.has('desc');
  let out = '';
  for (const [pos, name, tags, type, description] of FIELDS) {
    const v = valueOf(name, info, c, float);
    const tail = desc ? `:"${description}"` : '';
    out += opts.has('typed') ? `${pos}.${name}.1:${tags}:${timed(name) ? 'flt' : type}:${v}${tail}\n` : `${name}: ${v}${tail}\n`;
  }
  return `${out}\n`;
}

export function showVersion(info: ProcessInfo): string {
  return `${info.version}\n\n`;
}
