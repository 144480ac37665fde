/**
 * Our requests to one server that still await its answer, kept by the transport that sends
 * them, so that a message from the server too large to read (skipped by the frame decoder,
 * which keeps only its head and tail: stdio/idHint.ts) never leaves a request waiting:
 * - a message naming an id, not a request of the server's: taken for the answer to our
 *   request of that id, which fails at once;
 * - a reply (or any JSON object that is neither request nor notification) whose id cannot be
 *   found: every awaited request fails at once. Any of them may be the one, and answers come
 *   in any order: failing a guessed one (the oldest, say) could leave the real one waiting
 *   for ever, while the others are only failed early with an error saying why;
 * - a request of the server's with an id: the server gets an error answer, so that it does
 *   not wait for ever either;
 * - a notification, or bytes that are no JSON object at all: nothing is answered.
 * At most MAX_AWAITED ids are kept, the oldest forgotten first: a request never answered
 * nor cancelled costs one entry until then.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { FrameHint } from '../stdio/idHint.js';
import { ErrorCode, isRequest, isResponse, methodOf, type RequestId, type RpcError } from './jsonRpc.js';

const MAX_AWAITED = 10_000;

/** How a skipped message is named in errors: who sent it, and the cap it broke. */
export interface OversizeSource {
  /** "server 'x'", "the bridge at <url>", "the client" */
  who: string;
  /** "the 20971520-byte limit for a server's messages (twice --max-message-bytes)" */
  limit: string;
}

/** The `limit` of an OversizeSource for a server's messages. */
export function serverLimitText(bytes: number): string {
  return `the ${bytes}-byte limit for a server's messages (twice --max-message-bytes)`;
}

/** What to do about a skipped message: `answers` go to our side as if received, `reply` back to the server. */
export interface OversizeOutcome {
  answers: JSONRPCMessage[];
  reply?: JSONRPCMessage;
}

/** See the module comment. */
export class AwaitedReplies {
  private readonly ids = new Set<RequestId>();

  /** Requests awaiting an answer. */
  get size(): number {
    return this.ids.size;
  }

  /** A message we send: a request is awaited; a cancellation ends the wait for its request. */
  sent(message: JSONRPCMessage): void {
    if (isRequest(message)) {
      if (this.ids.size >= MAX_AWAITED) this.ids.delete(this.ids.values().next().value!);
      this.ids.add(message.id);
    } else if (methodOf(message) === 'notifications/cancelled') {
      const requestId = (message as { params?: { requestId?: unknown } }).params?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') this.ids.delete(requestId);
    }
  }

  /** A message received: an answer ends the wait for its request. */
  received(message: JSONRPCMessage): void {
    if (isResponse(message) && message.id !== null) this.ids.delete(message.id);
  }

  /** The answers for a message of `bytes` skipped as over the cap; see the module comment. */
  oversize(bytes: number, hint: FrameHint, from: OversizeSource): OversizeOutcome {
    const over = `over ${from.limit}; skipped`;
    if (hint.shape === 'call') {
      if (hint.id === undefined) return { answers: [] };
      const message = `message of ${bytes} bytes exceeds ${from.limit}; skipped`;
      return {
        answers: [],
        reply: {
          jsonrpc: '2.0',
          id: hint.id,
          error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${message}` },
        },
      };
    }
    if (hint.shape === undefined) return { answers: [] };
    if (hint.id !== undefined) {
      this.ids.delete(hint.id);
      return { answers: [failure(hint.id, `${from.who} answered with a ${bytes}-byte message, ${over}`)] };
    }
    const ids = [...this.ids];
    this.ids.clear();
    const message = `${from.who} sent a ${bytes}-byte reply whose id cannot be read, ${over}; every request awaiting an answer from it fails`;
    return { answers: ids.map((id) => failure(id, message)) };
  }

  clear(): void {
    this.ids.clear();
  }
}

function failure(id: RequestId, message: string): JSONRPCMessage {
  const error: RpcError = { jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message } };
  return error as unknown as JSONRPCMessage;
}
