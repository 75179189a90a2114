import type { RuntimeCommand } from './haproxy/commands.ts';
import { isSleep, type RuntimeEffect, type RuntimeProgram, type TransportResult } from './runtime-effect.ts';

/**
 * Runs a program synchronously: every command is answered by `answer`, sleeps are recorded and skipped.
 * For tests and simple tools; the simulation drives programs on its virtual clock instead.
 */
export function driveSync<T>(
  program: RuntimeProgram<T>,
  answer: (command: RuntimeCommand) => TransportResult,
  trace?: RuntimeEffect[],
): T {
  let next = program.next();
  while (!next.done) {
    const effect = next.value;
    trace?.push(effect);
    next = isSleep(effect) ? program.next(undefined) : program.next(answer(effect));
  }
  return next.value;
}
