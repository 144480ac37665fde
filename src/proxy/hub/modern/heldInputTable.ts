/**
 * The calls a 2026-07-28 client made to a 2025-11-25 server that are waiting for client
 * input (heldCall.ts), and the `requestState` that names each one.
 *
 * A 2025 server asks for input with a server-to-client request in the middle of a call; a
 * 2026 client can only be asked with an `input_required` result, after which it re-issues
 * the call. The proxy keeps the server's call open between the two ("held") and hands the
 * client a `requestState` that leads back to it. The state is an attacker-controlled input
 * (2026-07-28 "Multi Round-Trip Requests", server requirements), so it is integrity
 * protected and checked on every retry: `qmrs1.<payload>.<HMAC-SHA256>`, the key 32 random
 * bytes per process, the payload naming the held call, the round it was issued for (a state
 * is good for one retry: the next round issues a new one), the principal it was issued to,
 * the method and a digest of the request's salient params (name or uri, arguments), and an
 * expiry. A state that fails any check is refused with -32602 and never reaches a server.
 */
import type { Hmac } from 'node:crypto';
import { ErrorCode, type RequestId, type RpcErrorObject, type RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { Upstream } from '../../upstream/upstream.js';

/** What the table needs of a held call. */
export interface HeldEntry {
  readonly key: string;
  readonly upstream: Upstream;
  readonly startedAt: number;
  /** The round the next retry must carry. */
  readonly round: number;
  readonly principal: string;
  readonly method: string;
  readonly digest: string;
  /** The upstream id of the held call and the progress token it went with. */
  readonly upstreamId?: RequestId;
  readonly upstreamToken?: string;
  /** A server-to-client request that belongs to the call (serverRequestRouter.ts). */
  ask(req: RpcRequest): void;
  /** Ends the call toward the server (too many held calls). */
  release(reason: string): void;
}

/** More held calls than this release the oldest (each holds a server's call open). */
export const MAX_HELD_CALLS = 256;
const PREFIX = 'qmrs1';

function crypto() {
  return process.getBuiltinModule('node:crypto');
}

export class HeldInputTable<C extends HeldEntry = HeldEntry> {
  private readonly calls = new Map<string, C>();
  private secret?: Buffer;

  get size(): number {
    return this.calls.size;
  }

  newKey(): string {
    return crypto().randomBytes(12).toString('base64url');
  }

  add(c: C): void {
    this.calls.set(c.key, c);
    if (this.calls.size > MAX_HELD_CALLS) {
      const oldest = this.calls.values().next().value!;
      oldest.release(`more than ${MAX_HELD_CALLS} calls were waiting for client input; the oldest was ended`);
    }
  }

  delete(c: C): void {
    this.calls.delete(c.key);
  }

  /** Every held call (for shutdown). */
  all(): C[] {
    return [...this.calls.values()];
  }

  /** The held call on `u` that the wire names: the request came on its stream, or carries its progress token. */
  byWire(u: Upstream, relatedRequestId: RequestId | undefined, progressToken: unknown): C | undefined {
    if (this.calls.size === 0 || (relatedRequestId === undefined && progressToken === undefined)) return undefined;
    for (const c of this.calls.values()) {
      if (c.upstream !== u) continue;
      if (relatedRequestId !== undefined && c.upstreamId === relatedRequestId) return c;
      if (progressToken !== undefined && c.upstreamToken === progressToken) return c;
    }
    return undefined;
  }

  /** The most recently started held call on `u`, when the wire does not say which one a request belongs to. */
  latest(u: Upstream): C | undefined {
    let best: C | undefined;
    for (const c of this.calls.values()) if (c.upstream === u && (!best || c.startedAt >= best.startedAt)) best = c;
    return best;
  }

  /** The `requestState` for `c`'s current round, good until `expiresAt`. */
  sign(c: C, expiresAt: number): string {
    const payload = Buffer.from(JSON.stringify({ k: c.key, r: c.round, p: c.principal, m: c.method, d: c.digest, x: expiresAt })).toString('base64url');
    return `${PREFIX}.${payload}.${this.mac(payload).digest('base64url')}`;
  }

  /** The held call a retry's `requestState` leads to, or why it leads nowhere. */
  redeem(state: string, principal: string, method: string, digest: string): C | RpcErrorObject {
    const bad = (why: string): RpcErrorObject => ({ code: ErrorCode.InvalidParams, message: `Invalid params: requestState ${why}` });
    const parts = state.split('.');
    if (parts.length !== 3 || parts[0] !== PREFIX) return bad('was not issued by this proxy');
    const given = Buffer.from(parts[2]!, 'base64url');
    const want = this.mac(parts[1]!).digest();
    if (given.length !== want.length || !crypto().timingSafeEqual(given, want) || given.toString('base64url') !== parts[2]) return bad('failed verification');
    let p: { k?: unknown; r?: unknown; p?: unknown; m?: unknown; d?: unknown; x?: unknown };
    try {
      p = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as typeof p;
    } catch {
      return bad('failed verification');
    }
    if (typeof p.x !== 'number' || p.x < Date.now()) return bad('has expired');
    if (p.p !== principal) return bad('was issued to another client');
    if (p.m !== method || p.d !== digest) return bad('belongs to another request');
    const c = typeof p.k === 'string' ? this.calls.get(p.k) : undefined;
    if (!c) return bad('refers to a call that has ended');
    if (c.round !== p.r) return bad('was already used');
    return c;
  }

  private mac(payload: string): Hmac {
    this.secret ??= crypto().randomBytes(32);
    return crypto().createHmac('sha256', this.secret).update(`${PREFIX}.${payload}`);
  }
}
