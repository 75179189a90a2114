/** Probing and signalling a process that may already be gone (HAProxy workers come and go on reloads). */

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `sig` unless the process has already exited, which is not an error here. */
export function signalIfAlive(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}
