/**
 * `POST /servers/<id>/pins`: accept or reject a tool's drifted definition (tool pinning,
 * src/proxy/pinning/), behind the token, Host and Origin checks of every API route and the
 * write rules of the panel's routes (a JSON body and an `Origin` header: configRoutes.ts
 * `writeGate`). The body `{"tool": "<name as its server lists it>", "decision": "accept" |
 * "reject", "hash": "<the drift's hash from /status>"}`: a hash other than the drift's now is
 * refused (409), so what is accepted is what was shown.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody, sendError, sendJson } from './body.js';

export const PIN_ROUTE_PATH = /^\/servers\/([^/]+)\/pins\/?$/;

export type PinDecision = 'accept' | 'reject';

export interface PinDecisionResult {
  ok: boolean;
  error?: string;
  status?: number;
}

export type OnPinDecision = (
  serverId: string,
  tool: string,
  decision: PinDecision,
  hash: string,
) => Promise<PinDecisionResult>;

/** The body of a pin decision, or why it is not one. */
export function pinDecisionBody(value: unknown): { tool: string; decision: PinDecision; hash: string } | string {
  const v = (value ?? {}) as Record<string, unknown>;
  if (typeof v !== 'object' || Array.isArray(v)) return 'the body must be a JSON object';
  if (typeof v.tool !== 'string' || v.tool === '' || v.tool.length > 1000) return '"tool" must be the tool\'s name';
  if (v.decision !== 'accept' && v.decision !== 'reject') return '"decision" must be "accept" or "reject"';
  if (typeof v.hash !== 'string' || !/^[0-9a-f]{64}$/.test(v.hash)) return '"hash" must be the drift\'s hash';
  return { tool: v.tool, decision: v.decision, hash: v.hash };
}

export async function handlePinRoute(
  req: IncomingMessage,
  res: ServerResponse,
  rawId: string,
  o: { onPinDecision?: OnPinDecision; maxBodyBytes: number; bodyTimeoutMs: number },
): Promise<void> {
  if (req.method !== 'POST') return sendError(res, 405, 'method not allowed', {}, { Allow: 'POST' });
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' || req.headers.origin === undefined) {
    req.resume();
    return type !== 'application/json'
      ? sendError(res, 415, 'changes need a JSON body (Content-Type: application/json)')
      : sendError(res, 403, 'Forbidden: changes need an Origin header');
  }
  let serverId: string;
  try {
    serverId = decodeURIComponent(rawId);
  } catch {
    req.resume();
    return sendError(res, 400, 'malformed server id');
  }
  const read = await readJsonBody(req, Math.min(o.maxBodyBytes, 8192), o.bodyTimeoutMs);
  if (!read.ok)
    return sendError(res, 400, 'the body must be JSON like {"tool": "...", "decision": "accept", "hash": "..."}');
  const body = pinDecisionBody(read.value);
  if (typeof body === 'string') return sendError(res, 400, body);
  if (!o.onPinDecision) return sendError(res, 501, 'tool pinning is not on in this process');
  const result = await o.onPinDecision(serverId, body.tool, body.decision, body.hash);
  if (result.ok) return sendJson(res, 200, { ok: true });
  sendJson(res, result.status ?? 500, { ok: false, error: result.error ?? `${body.decision} failed` });
}
