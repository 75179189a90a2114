import type { HeldAdvert, NodeRt } from './instance.ts';

/**
 * Adverts a stalled node's socket holds: Linux's default receive buffer (net.core.rmem_default, 212,992
 * bytes) over the ~768 bytes a small datagram is charged (its skb's truesize): about 277. Beyond that the
 * kernel drops what arrives.
 */
export const HELD_MAX = 277;

/**
 * An advert reaching a stalled node waits in its socket (a frozen process or VM: the kernel or the
 * hypervisor keeps queueing) up to HELD_MAX per node; false when the queue is full and it is lost.
 */
export function holdAdvert(node: NodeRt, advert: HeldAdvert): boolean {
  if (node.held.length >= HELD_MAX) return false;
  node.held.push(advert);
  return true;
}

/** Empty the node's socket queue: what it held, in arrival order (an advert in flight is queued when it lands). */
export function takeHeld(node: NodeRt): HeldAdvert[] {
  const held = node.held;
  node.held = [];
  held.sort((a, b) => a.atUs - b.atUs);
  return held;
}
