/**
 * The bridge's routes for MCP Apps views (behind the bearer token, like every API route):
 *   GET  /apps/views/<key>        a kept call of a tool with a view: server, tool, arguments,
 *                                  result, and its view resource (fetched, checked, pinned);
 *                                  `sandbox`: the sandbox proxy page on the second loopback origin;
 *                                  409 with `drift` {server, uri, hash, pinned} when the
 *                                  resource differs from its pin (apps/viewPins.ts)
 *   POST /apps/views/<key>/accept {hash}               the user accepts that drift: the view's
 *                                  resource with that hash becomes its pin
 *   POST /apps/views/<key>/call   {name, arguments}  the view's `tools/call`
 *   POST /apps/views/<key>/read   {uri}              the view's `resources/read`
 * A view's requests go to its own server only, on a session scoped to its app view (its
 * app-visible tools: apps/toolAudience.ts), through approval and pinning like any call, and
 * are recorded in /activity under the client `app view <server> <tool>`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { readJsonBody, sendBodyFailure, sendError, sendJson } from '../bridge/body.js';
import { oneShot } from '../bridge/toolTestCall.js';
import type { Upstream } from '../upstream/upstream.js';
import type { AppViewBook } from './appViewBook.js';

export const APP_ROUTE_PATH = /^\/apps\/views\/([A-Za-z0-9_-]{1,64})(?:\/(call|read|accept))?\/?$/;

export interface AppRoutesOptions {
  book: AppViewBook;
  upstream: (id: string) => Upstream | undefined;
  /** Opens a session on server `serverId` scoped to its app view. */
  openViewSession: (transport: Transport, serverId: string) => Promise<void> | void;
  /** The sandbox proxy page's URL (the second loopback origin), once it listens. */
  sandboxUrl: () => string | undefined;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  callTimeoutMs?: number;
}

/** The client name a view's requests are recorded under. */
export function viewClientName(server: string, tool: string): string {
  return `app view ${server} ${tool}`.slice(0, 100);
}

export async function handleAppRoute(
  req: IncomingMessage,
  res: ServerResponse,
  match: RegExpExecArray,
  o: AppRoutesOptions,
): Promise<void> {
  const view = o.book.get(match[1]);
  if (!view) return sendError(res, 404, 'no such view (the bridge keeps the latest calls with a view only)');
  const action = match[2];
  if (!action) {
    if (req.method !== 'GET') return sendError(res, 405, 'use GET', {}, { Allow: 'GET' });
    const u = o.upstream(view.server);
    if (!u) return sendError(res, 404, `no server "${view.server}"`);
    const resource = await o.book.resource(u, view.resourceUri, u.entry.timeoutMs);
    if (!resource.ok)
      return resource.drift
        ? sendError(res, 409, resource.error, { drift: resource.drift })
        : sendError(res, 502, resource.error);
    const { bytes: _bytes, ...shown } = view;
    return sendJson(res, 200, { ...shown, resource: resource.resource, sandbox: o.sandboxUrl() });
  }
  if (req.method !== 'POST') return sendError(res, 405, 'use POST', {}, { Allow: 'POST' });
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    req.resume();
    return sendError(res, 415, 'a view request needs a JSON body (Content-Type: application/json)');
  }
  const read = await readJsonBody(req, o.maxBodyBytes, o.bodyTimeoutMs);
  if (!read.ok) return sendBodyFailure(res, read.reason, o.maxBodyBytes);
  const body = (read.value ?? {}) as Record<string, unknown>;
  const client = viewClientName(view.server, view.tool);
  const timeoutMs = o.callTimeoutMs ?? 60_000;
  if (action === 'accept') {
    const u = o.upstream(view.server);
    if (!u) return sendError(res, 404, `no server "${view.server}"`);
    if (typeof body.hash !== 'string') return sendError(res, 400, 'expected {"hash": "<the drift\'s hash>"}');
    const error = o.book.accept(u, view.resourceUri, body.hash);
    return error === undefined ? sendJson(res, 200, { accepted: body.hash }) : sendError(res, 400, error);
  }
  if (action === 'call') {
    const args = body.arguments ?? {};
    if (typeof body.name !== 'string' || typeof args !== 'object' || args === null || Array.isArray(args))
      return sendError(res, 400, 'expected {"name": "<tool>", "arguments": {...}}');
    const r = await oneShot(
      o.openViewSession,
      view.server,
      'tools/call',
      { name: body.name, arguments: args },
      timeoutMs,
      client,
    );
    return sendJson(res, 200, r);
  }
  if (typeof body.uri !== 'string') return sendError(res, 400, 'expected {"uri": "<resource uri>"}');
  const r = await oneShot(o.openViewSession, view.server, 'resources/read', { uri: body.uri }, timeoutMs, client);
  return sendJson(res, 200, r);
}
