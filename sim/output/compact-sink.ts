import { CompactTally, commandVerb } from './command-tally.ts';
import type { OutputSink } from './output-sink.ts';
import type { OutputRecord } from './records.ts';

/**
 * The compact output log made from a traced stream of records: successful `runtime.command` records are
 * counted unless `commands` is 'traced', endpoint inputs unless `inputs` is, and reload requests folded into a pending reload are counted
 * (see command-tally.ts); everything else goes through. `live` writes through it, its router recording
 * every command (the socket, not the records, is what costs there); `run` counts commands in the router
 * instead, never making the records it would drop.
 */
export class CompactSink implements OutputSink {
  private readonly tally: CompactTally;

  constructor(
    private readonly inner: OutputSink,
    private readonly commands: 'counted' | 'traced' = 'counted',
    inputs: 'counted' | 'traced' = 'counted',
  ) {
    this.tally = new CompactTally((r) => inner.record(r), inputs);
  }

  record(r: OutputRecord): void {
    if (this.commands === 'counted' && r.type === 'runtime.command' && r.outcome === 'ok') {
      this.tally.count(r.atUs, commandVerb(r.line));
      return;
    }
    if (!this.tally.pass(r)) this.inner.record(r);
  }

  commit(): void {
    this.inner.commit();
  }

  abort(): void {
    this.inner.abort();
  }
}
