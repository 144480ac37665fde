/**
 * `POST /servers/<id>/restart`, `/sign-in` and `/sign-out`: the bridge's per-server actions,
 * behind the same token, Host and Origin checks as every API route (httpBridgeServer.ts).
 * `sign-in` starts the server's browser flow (or joins the one running) and answers with the
 * authorization URL; a body `{"open": false}` leaves opening it to the caller (the app opens
 * it with shell.openExternal). `sign-out` forgets the server's tokens. Answers never carry a
 * token: a URL of the authorization page holds only public parameters (PKCE challenge, state).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorText } from '../common/logger.js';
import { readJsonBody, sendError, sendJson } from './body.js';
import { admitRoute } from './sessionTable.js';
import type { McpSessionHandler } from './mcpRoute.js';

export const SERVER_ACTION_PATH = /^\/servers\/([^/]+)\/(restart|sign-in|sign-out)\/?$/;
export type ServerAction = 'restart' | 'sign-in' | 'sign-out';

export interface ServerActionResult {
  ok: boolean;
  error?: string;
  /** sign-in: the authorization URL to open (absent when no browser step was needed). */
  url?: string;
  /** sign-in: the server already had (or just got) tokens. */
  signedIn?: boolean;
  /** The HTTP status of a refusal (default 500). */
  status?: number;
}

export interface ServerActionHandlers {
  onRestart?: (serverId: string) => Promise<ServerActionResult>;
  onSignIn?: (serverId: string, open: boolean) => Promise<ServerActionResult>;
  onSignOut?: (serverId: string) => Promise<ServerActionResult>;
}

export async function handleServerAction(
  req: IncomingMessage,
  res: ServerResponse,
  rawId: string,
  action: ServerAction,
  o: ServerActionHandlers & { handler: McpSessionHandler; maxBodyBytes: number; bodyTimeoutMs: number },
): Promise<void> {
  if (req.method !== 'POST') return sendError(res, 405, 'method not allowed', {}, { Allow: 'POST' });
  let open = true;
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (action === 'sign-in' && hasBody) {
    const read = await readJsonBody(req, Math.min(o.maxBodyBytes, 4096), o.bodyTimeoutMs);
    if (!read.ok) return sendError(res, 400, 'the body must be JSON like {"open": false}');
    open = (read.value as { open?: unknown } | null)?.open !== false;
  } else {
    // Nothing to read; drain whatever came so the connection can be reused.
    req.resume();
  }
  let serverId: string;
  try {
    serverId = decodeURIComponent(rawId);
  } catch {
    return sendError(res, 400, 'malformed server id');
  }
  const fn =
    action === 'restart'
      ? o.onRestart
      : action === 'sign-in'
        ? o.onSignIn && ((id: string) => o.onSignIn!(id, open))
        : o.onSignOut;
  if (!fn) return sendError(res, 501, `${action} is not supported`);
  if (!admitRoute(o.handler, serverId, res, false)) return;
  let result: ServerActionResult;
  try {
    result = await fn(serverId);
  } catch (err) {
    result = { ok: false, error: errorText(err) };
  }
  const { status, ...body } = result;
  sendJson(
    res,
    result.ok ? 200 : (status ?? 500),
    result.ok ? body : { ok: false, error: result.error ?? `${action} failed` },
  );
}
