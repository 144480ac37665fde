/**
 * InternalRequests: the resilient wrapper's own requests on a connection (the heartbeat
 * ping, the initialize replay), with ids of their own (INTERNAL_PREFIX) so their answers are
 * taken out of the stream before the caller sees it; each bounded by its timeout.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RpcMessage } from '../jsonrpc/jsonRpc.js';

/** Ids of internal requests start with this; no caller's id does. */
export const INTERNAL_PREFIX = 'qiming-resilient-';

export class InternalRequests {
  private lastId = 0;
  private readonly waiters = new Map<string, (m: RpcMessage | Error) => void>();

  /** Sends `method` on `t`; resolves with the answer, rejects on a send error or after `timeoutMs`. */
  request(t: Transport, method: string, params: unknown, timeoutMs: number): Promise<RpcMessage> {
    const id = `${INTERNAL_PREFIX}${++this.lastId}`;
    return new Promise<RpcMessage>((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`${method} timed out after ${timeoutMs} ms`)), timeoutMs);
      const done = (m: RpcMessage | Error) => {
        clearTimeout(timer);
        this.waiters.delete(id);
        if (m instanceof Error) reject(m);
        else resolve(m);
      };
      this.waiters.set(id, done);
      const msg = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
      t.send(msg as JSONRPCMessage).catch((e: Error) => done(e));
    });
  }

  /** An answer whose id starts with INTERNAL_PREFIX (ignored if nobody waits for it). */
  answer(id: string, m: RpcMessage): void {
    this.waiters.get(id)?.(m);
  }

  /** Fails every request still waiting, with `message`. */
  failAll(message: string): void {
    for (const w of this.waiters.values()) w(new Error(message));
    this.waiters.clear();
  }
}
