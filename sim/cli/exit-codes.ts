/** Documented exit codes: verdicts first, then what went wrong on our side or the user's. */
export const EXIT = {
  /** Every budget and invariant held. */
  pass: 0,
  /** A budget, an invariant or a baseline comparison failed. */
  fail: 1,
  /** Bad input or usage: the message names the file, line and field. */
  input: 2,
  /** A bug in routerbench. */
  internal: 3,
} as const;

/** Stopped by Ctrl-C, SIGTERM or SIGHUP, as a shell reports a process ended by SIGINT (128 + 2). */
export const EXIT_INTERRUPTED = 130;
