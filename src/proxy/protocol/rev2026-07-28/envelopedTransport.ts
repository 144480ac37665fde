/**
 * Turns a transport to a 2026-07-28 server into one the rest of the proxy (which speaks
 * 2025-11-25 shapes) can use unchanged: every outgoing request gets the per-request `_meta`
 * envelope, and what comes back is brought to the era-neutral shape: `resultType:
 * "complete"` dropped (a 2025 result has none), a notification's
 * `io.modelcontextprotocol/subscriptionId` dropped (the upstream's own listens, not a
 * client's), and each `subscriptions/listen` acknowledgement handed to `onAcknowledged`
 * instead of the peer (protocol/rev2026-07-28/resourceListen.ts waits for it). An `input_required` result passes as is: a modern client answers it, and for
 * a 2025 client protocol/crossings/inputRounds.ts turns it into server-to-client requests.
 *
 * It patches the transport instance after the JsonRpcPeer attached itself, so a 2025 server's
 * transport is never touched: the 2025 path does no extra work per message.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RpcMessage } from '../../jsonrpc/jsonRpc.js';
import { withEnvelope, type Envelope } from './vocabulary.js';

const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** A listen's acknowledgement: its id (the listen request's) and the filter the server honours. */
export type OnAcknowledged = (subscriptionId: unknown, notifications: Record<string, unknown>) => void;

export function speak2026(transport: Transport, env: Envelope, onAcknowledged?: OnAcknowledged): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const m = message as unknown as RpcMessage;
    if ('method' in m && 'id' in m) {
      return send({ ...m, params: withEnvelope(m.params, env) } as unknown as JSONRPCMessage, options);
    }
    return send(message, options);
  };
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    const m = message as unknown as Record<string, unknown>;
    const params = m.params as Record<string, unknown> | undefined;
    const meta = params?._meta as Record<string, unknown> | undefined;
    if (m.method === ACKNOWLEDGED)
      return onAcknowledged?.(meta?.[SUBSCRIPTION_ID], (params?.notifications as Record<string, unknown>) ?? {});
    let out: JSONRPCMessage = message;
    if (meta && SUBSCRIPTION_ID in meta && !('id' in m)) {
      const { [SUBSCRIPTION_ID]: _id, ...restMeta } = meta;
      const { _meta: _old, ...restParams } = params!;
      out = {
        ...m,
        params: Object.keys(restMeta).length > 0 ? { ...restParams, _meta: restMeta } : restParams,
      } as unknown as JSONRPCMessage;
    }
    const result = m.result as Record<string, unknown> | undefined;
    if (result && typeof result === 'object') {
      if (result.resultType === 'complete') {
        const { resultType: _drop, ...rest } = result;
        out = { ...m, result: rest } as unknown as JSONRPCMessage;
      }
    }
    deliver(out as typeof message, extra);
  };
}
