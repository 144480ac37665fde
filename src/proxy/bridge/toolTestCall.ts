/**
 * The panel's "Test" button: one `tools/call` through the bridge's own hub, exactly as a
 * client on `/mcp/<id>` would make it (same session code, tool filter, timeouts), over an
 * in-process transport: initialize, initialized, the call, close. Bounded by `timeoutMs`.
 * The Test form's schemas come the same way (`tools/list`).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCallResult, ToolList } from '../../shared/configContract.js';
import { LATEST_PROTOCOL_VERSION } from '../common/protocolVersion.js';

/** Opens a session on one server's scope (the bridge passes `hub.connect(...).start()`). */
export type SessionOpener = (transport: Transport, serverId: string) => Promise<void> | void;

/** The client end of an in-process session: the hub holds this object as its transport. */
class OneShotTransport implements Transport {
  onmessage?: (m: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (e: Error) => void;
  private readonly waiting = new Map<number, (m: Record<string, unknown>) => void>();
  private closed = false;

  async start(): Promise<void> {}

  /** The hub's messages to the client: answers are matched to our requests, the rest dropped. */
  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as Record<string, unknown>;
    if (typeof m.id === 'number' && ('result' in m || 'error' in m)) {
      this.waiting.get(m.id)?.(m);
      this.waiting.delete(m.id);
    } else if (typeof m.method === 'string' && m.id !== undefined) {
      // A server-to-client request (sampling, elicitation, roots): the test client offers none.
      queueMicrotask(() =>
        this.onmessage?.({
          jsonrpc: '2.0',
          id: m.id as number,
          error: { code: -32601, message: 'not supported by the panel test' },
        }),
      );
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  request(id: number, method: string, params: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.onmessage?.({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    });
  }

  notify(method: string): void {
    this.onmessage?.({ jsonrpc: '2.0', method } as JSONRPCMessage);
  }
}

/** One request on a fresh in-process session of server `serverId`, as client `clientName`; never rejects. */
export async function oneShot(
  open: SessionOpener,
  serverId: string,
  method: string,
  params: unknown,
  timeoutMs: number,
  clientName = 'qiming-mcp-panel-test',
): Promise<{ ok: boolean; error?: string; result?: unknown }> {
  const t = new OneShotTransport();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<{ ok: false; error: string }>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, error: `no answer within ${Math.round(timeoutMs / 1000)} s` }),
      timeoutMs,
    );
  });
  const run = async () => {
    await open(t, serverId);
    const init = await t.request(1, 'initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: clientName, version: '1' },
    });
    if (init.error) return { ok: false, error: rpcError(init.error) };
    t.notify('notifications/initialized');
    const res = await t.request(2, method, params);
    if (res.error) return { ok: false, error: rpcError(res.error) };
    return { ok: true, result: res.result };
  };
  try {
    return await Promise.race([run(), deadline]);
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
    await t.close();
  }
}

/** Calls `tool` on server `serverId` with `args`, as a client of `/mcp/<id>` would. */
export async function testToolCall(
  open: SessionOpener,
  serverId: string,
  tool: string,
  args: Record<string, unknown>,
  timeoutMs: number,
): Promise<ToolCallResult> {
  const r = await oneShot(open, serverId, 'tools/call', { name: tool, arguments: args }, timeoutMs);
  return r.ok ? { ok: true, result: r.result as ToolCallResult['result'] } : { ok: false, error: r.error };
}

/** The tools a client of `/mcp/<id>` sees, with their input schemas (for the Test form). */
export async function listToolsFor(open: SessionOpener, serverId: string, timeoutMs: number): Promise<ToolList> {
  const r = await oneShot(open, serverId, 'tools/list', {}, timeoutMs);
  if (!r.ok) return { ok: false, error: r.error, tools: [] };
  const tools = (r.result as { tools?: unknown })?.tools;
  return { ok: true, tools: Array.isArray(tools) ? (tools as ToolList['tools']) : [] };
}

function rpcError(e: unknown): string {
  const o = e as { message?: unknown; code?: unknown };
  return typeof o?.message === 'string' ? o.message : `error ${String(o?.code)}`;
}
