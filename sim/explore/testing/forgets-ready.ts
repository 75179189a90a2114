import { OK } from '../../../core/haproxy/commands.ts';
import type { RuntimeEffect, RuntimeProgram, TransportResult } from '../../../core/runtime-effect.ts';
import { createStrategy } from '../../../core/strategies/index.ts';
import type { RouterStrategy } from '../../../core/strategy.ts';
import type { ExploreStrategy } from '../task.ts';

/**
 * Test only (no command line reaches it): dcm-slots with a planted bug. It never sends `set server … state
 * ready`, and tells the program HAProxy accepted it: a slot or pool server it fills at runtime keeps the
 * admin state it had, `maint`, so the route's backend serves fewer servers than it has endpoints. Reloads
 * are unaffected (a rendered config lists the servers ready). explore must find it as haproxy-view.
 */
export const FORGETS_READY: ExploreStrategy = {
  name: 'forgets-ready',
  base: 'dcm-slots',
  createStrategy: (settings) => forgetsReady(createStrategy({ ...settings, strategy: 'dcm-slots' })),
};

export function forgetsReady(inner: RouterStrategy): RouterStrategy {
  return {
    name: inner.name,
    render: (state) => inner.render(state),
    onReloaded: (state) => inner.onReloaded(state),
    onChange(change, state, ctx) {
      const program = inner.onChange(change, state, ctx);
      return program === undefined ? undefined : withoutReady(program);
    },
  };
}

function* withoutReady(program: RuntimeProgram<unknown>): RuntimeProgram<unknown> {
  let step = program.next();
  while (!step.done) {
    const effect: RuntimeEffect = step.value;
    if (effect.kind === 'set server state' && effect.state === 'ready') {
      step = program.next({ ok: true, reply: OK });
      continue;
    }
    const result: TransportResult | undefined = yield effect;
    step = program.next(result);
  }
  return step.value;
}
