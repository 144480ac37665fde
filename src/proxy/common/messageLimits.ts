/**
 * How large one message may be. A client's messages (stdio input, bridge bodies, the bridge's
 * stream link) are capped at `--max-message-bytes`, 10 MiB by default. A server's messages (a
 * stdio server's stdout, the bridge as the stdio proxy's upstream) may be twice that: a result
 * carries a payload as large as a client may send in its own JSON envelope, and JSON escaping
 * (quotes, backslashes, newlines inside a text) or base64 makes it larger than the payload.
 * Memory stays bounded by the cap: a message in progress is held up to it, one per server
 * connection, and a longer one is skipped without being buffered (stdio/framing.ts).
 */

/** Default cap on a client's message, in bytes (`--max-message-bytes`). */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A server's messages may be this many times the client's cap. */
export const SERVER_MESSAGE_FACTOR = 2;

/** The cap on a server's messages for a given client cap (default: 20 MiB). */
export function serverMessageLimit(clientLimit: number = DEFAULT_MAX_MESSAGE_BYTES): number {
  return Math.min(clientLimit * SERVER_MESSAGE_FACTOR, Number.MAX_SAFE_INTEGER);
}
