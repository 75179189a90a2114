/**
 * The size limits on what routerbench reads, documented in docs/limits.md. Each can be changed through its
 * environment variable (a whole number of bytes), which is also how tests try the limits with small values
 * rather than gigabyte files.
 */
export interface Limits {
  /** Longest line of an event log or output log, in bytes (without its line break). */
  lineBytes: number;
  /** Largest file read whole: a scenario, an haproxy.cfg or map file, a Deployment manifest, a baseline report. */
  fileBytes: number;
  /** Largest single object of an `import` watch stream. */
  importObjectBytes: number;
}

const MiB = 1 << 20;

export const DEFAULT_LIMITS: Readonly<Limits> = {
  // A route with a full certificate chain is a few tens of KiB; a thousand endpoints a line about 70 KiB.
  lineBytes: 64 * MiB,
  fileBytes: 64 * MiB,
  importObjectBytes: 64 * MiB,
};

export const LIMIT_ENV: Readonly<Record<keyof Limits, string>> = {
  lineBytes: 'ROUTERBENCH_MAX_LINE_BYTES',
  fileBytes: 'ROUTERBENCH_MAX_FILE_BYTES',
  importObjectBytes: 'ROUTERBENCH_MAX_IMPORT_OBJECT_BYTES',
};

/** A limit: its environment variable when set to a positive whole number, the default otherwise. */
export function limit(name: keyof Limits, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[LIMIT_ENV[name]];
  if (raw !== undefined && /^[1-9][0-9]{0,15}$/.test(raw)) return Number(raw);
  return DEFAULT_LIMITS[name];
}

/** Bytes as people read them: "64 MiB (67108864 bytes)". */
export function formatBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB (${n} bytes)`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB (${n} bytes)`;
  return `${n} bytes`;
}

/**
 * Heap limit of a worker thread, in MiB, when ROUTERBENCH_WORKER_HEAP_MB is set (otherwise V8's default):
 * for trying how an out-of-memory run is reported without filling the machine's memory.
 */
export function workerResourceLimits(env: NodeJS.ProcessEnv = process.env): { maxOldGenerationSizeMb: number } | undefined {
  const raw = env['ROUTERBENCH_WORKER_HEAP_MB'];
  return raw !== undefined && /^[1-9][0-9]{0,6}$/.test(raw) ? { maxOldGenerationSizeMb: Number(raw) } : undefined;
}

/** A worker thread died of memory exhaustion (Tinypool passes on the Worker's error). */
export function isWorkerOutOfMemory(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}
