import { readFileSync } from 'node:fs';

/** The PID keepalived wrote to `file`, or null when there is none yet (or no longer). */
export function readPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 1 ? pid : null;
  } catch {
    return null;
  }
}

/** Signal `pid` only if it is still a keepalived started with our config file (PIDs get reused). */
export function killIfOurs(pid: number, conf: string, signal: NodeJS.Signals): void {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return;
  }
  if (!cmdline.includes('keepalived') || !cmdline.includes(conf)) return;
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}
