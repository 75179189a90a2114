/**
 * What a warning already said, per subject (a route, a service): the router logs each rejection at every
 * event, but a report says it once while its subject lives, so a long log keeps only live subjects here.
 */
export class SaidOnce {
  private readonly said = new Map<string, string[]>();

  /** True the first time `what` is said of `subject` since it was last forgotten. */
  first(subject: string, what: string): boolean {
    let list = this.said.get(subject);
    if (list === undefined) this.said.set(subject, (list = []));
    if (list.includes(what)) return false;
    list.push(what);
    return true;
  }

  /** The subject is gone: whatever is said of it later is new. */
  forget(subject: string): void {
    if (this.said.size > 0) this.said.delete(subject);
  }
}
