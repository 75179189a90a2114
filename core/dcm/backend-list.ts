import * as cmd from '../haproxy/commands.ts';
import type { RuntimeProgram } from '../runtime-effect.ts';
import { NotFoundError, runCommand, unexpectedReply } from '../runtime-client.ts';
import { BackendNames } from './backend-names.ts';

/**
 * The client's cached `show backend` list (client.go Backends): read when first needed and again after the
 * router forgets it at a reload, or when it was empty. Both dynamic managers find a route's backend so.
 */
export class BackendList {
  private readonly names = new BackendNames();
  private listed = false;

  /** A reload may add or drop backends: the next lookup lists them again. */
  forget(): void {
    this.listed = false;
  }

  /** Whether the cached list has this backend; false also when there is no list yet. */
  knows(name: string): boolean {
    return this.listed && this.names.has(name);
  }

  /** Lists the backends if the cache is stale, then NotFoundError unless `name` is among them. */
  *find(name: string): RuntimeProgram<void> {
    if (!this.listed || this.names.size === 0) {
      const command = cmd.showBackend();
      const reply = yield* runCommand(command);
      if (reply.kind !== 'backends') throw unexpectedReply(command, reply);
      this.names.update(reply.names);
      this.listed = true;
    }
    if (!this.names.has(name)) throw new NotFoundError('show backend', 'backend', name);
  }
}
