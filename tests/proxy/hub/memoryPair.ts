// An in-memory transport pair for hub unit tests. Unlike the SDK's InMemoryTransport it
// delivers on a later microtask (as a real stream would, never inside the sender's call)
// and carries `relatedRequestId` across as the receiver's `extra.relatedRequestId`, the
// way LeanHttpClientTransport reports a message that came on a POST's response stream.
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export class MemoryTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (e: Error) => void;
  other?: MemoryTransport;
  private started = false;
  private queued: [JSONRPCMessage, Record<string, unknown> | undefined][] = [];
  private closed = false;

  async start(): Promise<void> {
    this.started = true;
    for (const [m, extra] of this.queued.splice(0)) this.onmessage?.(m, extra as never);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const other = this.other;
    if (this.closed || !other) throw new Error('Not connected');
    const copy = structuredClone(message);
    const extra = options?.relatedRequestId === undefined ? undefined : { relatedRequestId: options.relatedRequestId };
    queueMicrotask(() => other.deliver(copy, extra));
  }

  private deliver(m: JSONRPCMessage, extra: Record<string, unknown> | undefined): void {
    if (this.closed) return;
    if (!this.started) this.queued.push([m, extra]);
    else this.onmessage?.(m, extra as never);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const other = this.other;
    this.other = undefined;
    this.onclose?.();
    await other?.close();
  }
}

export function memoryPair(): [MemoryTransport, MemoryTransport] {
  const a = new MemoryTransport();
  const b = new MemoryTransport();
  a.other = b;
  b.other = a;
  return [a, b];
}
