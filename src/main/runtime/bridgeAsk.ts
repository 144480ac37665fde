/**
 * One request of the app to its running bridge's routes: its token, its own Origin with a
 * body (JSON, or a Buffer sent as it is), a deadline; the answer's status and parsed JSON (undefined when the body is not
 * JSON), or why no answer came. Used by the services behind the panel's IPC.
 */
import { errorMessage as message } from '../logs/runtimeLogger.js';

/** The running bridge; rejects when it is not ready (`McpRuntime.whenReady`). */
export type BridgeLocator = () => Promise<{ url: string; token: string }>;

export type BridgeReply = { ok: true; status: number; json: unknown } | { ok: false; error: string };

export async function askBridge(
  bridge: BridgeLocator,
  method: string,
  path: string,
  body: unknown,
  timeoutMs: number,
): Promise<BridgeReply> {
  let at: { url: string; token: string };
  try {
    at = await bridge();
  } catch (err) {
    return { ok: false, error: `the MCP bridge is not running (${message(err)})` };
  }
  const raw = Buffer.isBuffer(body);
  const headers: Record<string, string> = { Authorization: `Bearer ${at.token}` };
  if (body !== undefined)
    Object.assign(headers, {
      'Content-Type': raw ? 'application/octet-stream' : 'application/json',
      Origin: new URL(at.url).origin,
    });
  try {
    const res = await fetch(`${at.url}${path}`, {
      method,
      headers,
      signal: AbortSignal.timeout(timeoutMs),
      ...(body !== undefined ? { body: raw ? (body as Buffer<ArrayBuffer>) : JSON.stringify(body) } : {}),
    });
    return { ok: true, status: res.status, json: await res.json().catch(() => undefined) };
  } catch (err) {
    return { ok: false, error: message(err) };
  }
}
