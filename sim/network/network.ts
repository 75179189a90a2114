import type { RandomStream, RandomStreams } from '../random-streams.ts';

/**
 * The simulated L2 segment between router nodes: one directed link per (source, target), each with its own
 * delay, jitter, loss and random stream (`net/<from>-><to>`), so a new node or a draw on one link never
 * shifts another link's draws. Link state is an explicit union per direction; partitions set it, `heal`
 * clears it. Extra faults are an ordered chain of rules, each answering pass, deliver-after or drop; the first
 * answer that is not pass wins, then the link's own state, loss and delay apply.
 */
export type LinkState = { kind: 'up' } | { kind: 'blocked'; by: 'partition' | 'one-way-partition' };

export type RuleVerdict = { kind: 'pass' } | { kind: 'deliver'; delayUs: number } | { kind: 'drop'; reason: string };

export type FaultRule = (from: number, to: number, nowUs: number) => RuleVerdict;

export interface LinkParams {
  delayUs: number;
  jitterUs: number;
  loss: number;
}

export class Link {
  state: LinkState = UP;
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  /**
   * The link draws from its own xorshift128 generator, seeded from its named stream: one monomorphic method
   * the hot loop can inline, where 2,450 separate stream closures (50 nodes) would make every call megamorphic.
   */
  constructor(
    public params: LinkParams,
    stream: RandomStream,
  ) {
    const seed = (): number => Math.floor(stream.next() * 0x1_0000_0000) | 0;
    this.s0 = seed();
    this.s1 = seed();
    this.s2 = seed();
    this.s3 = seed() | 1;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = this.s3;
    const s = this.s0;
    this.s3 = this.s2;
    this.s2 = this.s1;
    this.s1 = s;
    t ^= t << 11;
    t ^= t >>> 8;
    this.s0 = t ^ s ^ (s >>> 19);
    return (this.s0 >>> 0) / 0x1_0000_0000;
  }
}

const UP: LinkState = { kind: 'up' };
/** `route()` answer for a dropped packet. */
export const DROPPED = -1;

export class Network {
  private links: Link[][] = [];
  private names: string[] = [];
  /** By node: its link has no carrier (link.down): nothing leaves or reaches it, whatever the rules say. */
  private readonly noCarrier: boolean[] = [];
  readonly rules: FaultRule[] = [];

  constructor(
    private readonly defaults: LinkParams,
    private readonly streams: RandomStreams,
  ) {}

  /** Add a node (index = order of addition); links to and from it get the defaults. */
  addNode(name: string): number {
    const id = this.names.length;
    this.names.push(name);
    this.noCarrier.push(false);
    for (let i = 0; i < id; i++) {
      this.links[i]!.push(this.makeLink(i, id));
    }
    const row: Link[] = [];
    for (let j = 0; j <= id; j++) row.push(this.makeLink(id, j));
    this.links.push(row);
    return id;
  }

  private makeLink(from: number, to: number): Link {
    return new Link({ ...this.defaults }, this.streams.get(`net/${this.names[from]}->${this.names[to]}`));
  }

  link(from: number, to: number): Link {
    return this.links[from]![to]!;
  }

  setParams(from: number, to: number, params: Partial<LinkParams>): void {
    const l = this.link(from, to);
    l.params = { ...l.params, ...params };
  }

  /**
   * Where a packet sent now from → to goes: its delay in µs, or DROPPED. Draws (loss, then jitter) come from
   * the link's stream, and only when the parameter is non-zero.
   */
  route(from: number, to: number, nowUs: number): number {
    if (this.noCarrier[from] || this.noCarrier[to]) return DROPPED;
    let fixedDelay = -1;
    for (let i = 0; i < this.rules.length; i++) {
      const v = this.rules[i]!(from, to, nowUs);
      if (v.kind === 'drop') return DROPPED;
      if (v.kind === 'deliver') {
        fixedDelay = v.delayUs;
        break;
      }
    }
    const l = this.links[from]![to]!;
    if (l.state.kind !== 'up') return DROPPED;
    const p = l.params;
    if (p.loss > 0 && l.next() < p.loss) return DROPPED;
    if (fixedDelay >= 0) return fixedDelay;
    return p.jitterUs > 0 ? p.delayUs + Math.floor(l.next() * p.jitterUs) : p.delayUs;
  }

  /**
   * Cut the segment into groups (nodes in no group form one more group). Both ways by default; `oneWay`
   * blocks only traffic from an earlier group to a later one (group 0 cannot be heard, but hears everyone).
   */
  partition(groups: number[][], oneWay: boolean): void {
    const n = this.names.length;
    const groupOf = new Array<number>(n).fill(groups.length);
    groups.forEach((g, gi) => g.forEach((node) => (groupOf[node] = gi)));
    const blocked: LinkState = { kind: 'blocked', by: oneWay ? 'one-way-partition' : 'partition' };
    for (let a = 0; a < n; a++)
      for (let b = 0; b < n; b++) {
        const ga = groupOf[a]!;
        const gb = groupOf[b]!;
        if (ga === gb) continue;
        if (!oneWay || ga < gb) this.links[a]![b]!.state = blocked;
      }
  }

  heal(): void {
    for (const row of this.links) for (const l of row) l.state = UP;
  }

  isBlocked(from: number, to: number): boolean {
    return this.noCarrier[from]! || this.noCarrier[to]! || this.links[from]![to]!.state.kind !== 'up';
  }

  /** The node's link gains or loses carrier; partitions and heals leave this alone. */
  setCarrier(node: number, up: boolean): void {
    this.noCarrier[node] = !up;
  }

  hasCarrier(node: number): boolean {
    return !this.noCarrier[node];
  }
}
