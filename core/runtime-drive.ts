import type { RuntimeCommand } from './haproxy/commands.ts';
import type { RuntimeEffect, RuntimeProgram, TransportResult } from './runtime-effect.ts';

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
    next = effect.kind === 'command' ? program.next(answer(effect.command)) : program.next(undefined);
  }
  return next.value;
}
