/**
 * Write coalescing: messages written to a stream during one tick (one read of a pipe can
 * carry many requests or responses, each forwarded in its own promise chain) leave in a
 * single writev at the end of that tick instead of one system call each. The reader then
 * wakes once for the batch. A lone message costs nothing extra: the tick ends right after.
 */
import type { Writable } from 'node:stream';

const corked = new WeakSet<Writable>();

function uncork(stream: Writable): void {
  corked.delete(stream);
  stream.uncork();
}

/** Corks `stream` until the current tick's callbacks and microtasks have run (idempotent). */
export function corkForTick(stream: Writable): void {
  if (corked.has(stream)) return;
  corked.add(stream);
  stream.cork();
  process.nextTick(uncork, stream);
}
