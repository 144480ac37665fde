/**
 * The awaited write of one message to a stream whose peer is a process or a socket we send
 * requests to (a server's stdin, the stream link's client socket): resolves once the data is
 * buffered, or after 'drain' under backpressure; rejects on a write error, or with
 * `closedError()` when the stream closes before draining (the caller then knows the message
 * was not delivered: the resilient wrapper re-queues it). All writes blocked on one stream
 * share one 'drain'/'close' listener pair, however many are waiting.
 *
 * The proxy's own stdout (stdio/outputWriter.ts, also the bridge's side of the stream link)
 * differs on purpose: it resolves only once the write is flushed, and a peer that left
 * (EPIPE) resolves instead of rejecting, since an answer nobody reads is not an error there.
 * The bridge's SSE streams write without awaiting (the session queue bounds them).
 */
import type { Writable } from 'node:stream';
import { corkForTick } from './corkForTick.js';

const drainWaiters = new WeakMap<Writable, Promise<void>>();

export function awaitedWrite(stream: Writable, text: string, closedError: () => Error): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // Settles on the first of: written into the buffer, drained, write error, closed.
    corkForTick(stream);
    if (stream.write(text, (err) => err && reject(err))) resolve();
    else drained(stream, closedError).then(resolve, reject);
  });
}

function drained(stream: Writable, closedError: () => Error): Promise<void> {
  let waiter = drainWaiters.get(stream);
  if (!waiter) {
    waiter = new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        stream.off('drain', onDrain).off('close', onClose);
        drainWaiters.delete(stream);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = () => done();
      const onClose = () => done(closedError());
      stream.on('drain', onDrain).on('close', onClose);
    });
    drainWaiters.set(stream, waiter);
  }
  return waiter;
}
