/**
 * A message's size as its transport framed it, for the activity log: a transport that knows it
 * (the stdio endpoint reads and writes each frame whole) notes it on the message object, and
 * the session reads it back, so nothing is serialised again to be counted. Held weakly: a
 * message's note goes with it.
 */
const sizes = new WeakMap<object, number>();

export function noteWireBytes(message: object, bytes: number): void {
  sizes.set(message, bytes);
}

/** The noted size of `message`, if its transport noted one. */
export function wireBytesOf(message: object): number | undefined {
  return sizes.get(message);
}
