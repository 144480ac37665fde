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
 * A state is redeemed once: while the retry that redeemed it waits on the call, another
 * retry with it is refused (so no second client request takes the call over).
 *
 * The table is bounded per principal and as a whole. The principal is the client a state is
 * bound to: the route plus the envelope's clientInfo name and version (on the bridge every
 * client holds the same bearer token and a 2026 client has no session, each request being
 * a session of its own; on stdio the one session is one client). A principal with more than
 * MAX_HELD_PER_PRINCIPAL calls loses its own oldest; more than MAX_HELD_CALLS in all (the
 * memory bound) release the oldest call of the principals holding the most. clientInfo is
 * what the client says it is: the quota keeps clients that name themselves apart from
 * each other, the ceiling holds against one that does not.
 */
import type { Hmac } from 'node:crypto';
import { ErrorCode, type RequestId, type RpcErrorObject, type RpcRequest } from '../../jsonrpc/jsonRpc.js';
import type { Upstream } from '../../upstream/upstream.js';
import { AskingGate, type GatedCall } from './askingGate.js';
import { randomKey } from '../../common/randomKeys.js';

/** What the table needs of a held call. */
export interface HeldEntry extends GatedCall {
  readonly key: string;
  /** The round the next retry must carry. */
  readonly round: number;
  readonly principal: string;
  readonly method: string;
  readonly digest: string;
  /** The upstream id of the held call and the progress token it went with. */
  readonly upstreamId?: RequestId;
  readonly upstreamToken?: string;
  /** A client request (the first, or a retry) is waiting on the call now. */
  readonly waiting: boolean;
  /** The call was sent to its server and the server has not answered it yet. */
  readonly running: boolean;
  /** A server-to-client request that belongs to the call (serverRequestRouter.ts); `linked`: the wire said so. */
  ask(req: RpcRequest, linked: boolean): void;
  /** A request without a link came while this call ran beside others: its tool is taken for one that asks. */
  mayHaveAsked(): void;
  /** Ends the call toward the server (too many held calls). */
  release(reason: string): void;
}

/** More held calls than this in all release the oldest of the principal holding the most (each holds a server's call open). */
export const MAX_HELD_CALLS = 256;
/** More held calls of one principal than this release that principal's oldest. */
export const MAX_HELD_PER_PRINCIPAL = 64;
const PREFIX = 'qmrs1';

function crypto() {
  return process.getBuiltinModule('node:crypto');
}

export class HeldInputTable<C extends HeldEntry = HeldEntry> {
  private readonly calls = new Map<string, C>();
  /** How many calls each principal holds. */
  private readonly counts = new Map<string, number>();
  /** Which calls run at once on each server (askingGate.ts). */
  readonly gate = new AskingGate();
  private secret?: Buffer;

  get size(): number {
    return this.calls.size;
  }

  newKey(): string {
    return randomKey(12);
  }

  add(c: C): void {
    this.calls.set(c.key, c);
    const mine = (this.counts.get(c.principal) ?? 0) + 1;
    this.counts.set(c.principal, mine);
    if (mine > MAX_HELD_PER_PRINCIPAL) {
      this.oldestOf(c.principal).release(
        `this client had more than ${MAX_HELD_PER_PRINCIPAL} calls held by the proxy; its oldest was ended`,
      );
    } else if (this.calls.size > MAX_HELD_CALLS) {
      const most = Math.max(...this.counts.values());
      for (const old of this.calls.values()) {
        if (this.counts.get(old.principal) !== most) continue;
        old.release(
          `more than ${MAX_HELD_CALLS} calls were held by the proxy; the oldest of the client holding the most was ended`,
        );
        break;
      }
    }
  }

  delete(c: C): void {
    if (!this.calls.delete(c.key)) return;
    const left = this.counts.get(c.principal)! - 1;
    if (left === 0) this.counts.delete(c.principal);
    else this.counts.set(c.principal, left);
  }

  /** How many calls `principal` holds. */
  countOf(principal: string): number {
    return this.counts.get(principal) ?? 0;
  }

  private oldestOf(principal: string): C {
    for (const c of this.calls.values()) if (c.principal === principal) return c;
    throw new Error(`no held call of ${principal}`);
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

  /**
   * The held call a request from `u` belongs to when the wire does not say: the call whose
   * turn it is (askingGate.ts), else the one call running on `u`; `ambiguous` when several
   * run (each is then taken for one that asks); undefined when none does.
   */
  unlinked(u: Upstream): C | 'ambiguous' | undefined {
    const holder = this.gate.holder(u) as C | undefined;
    if (holder?.running) return holder;
    let found: C | undefined;
    let several = false;
    for (const c of this.calls.values()) {
      if (c.upstream !== u || !c.running) continue;
      several ||= found !== undefined;
      found = c;
    }
    if (!several) return found;
    for (const c of this.calls.values()) if (c.upstream === u && c.running) c.mayHaveAsked();
    return 'ambiguous';
  }

  /** The `requestState` for `c`'s current round, good until `expiresAt`. */
  sign(c: C, expiresAt: number): string {
    const payload = Buffer.from(
      JSON.stringify({ k: c.key, r: c.round, p: c.principal, m: c.method, d: c.digest, x: expiresAt }),
    ).toString('base64url');
    return `${PREFIX}.${payload}.${this.mac(payload).digest('base64url')}`;
  }

  /** The held call a retry's `requestState` leads to, or why it leads nowhere. */
  redeem(state: string, principal: string, method: string, digest: string): C | RpcErrorObject {
    const bad = (why: string): RpcErrorObject => ({
      code: ErrorCode.InvalidParams,
      message: `Invalid params: requestState ${why}`,
    });
    const parts = state.split('.');
    if (parts.length !== 3 || parts[0] !== PREFIX) return bad('was not issued by this proxy');
    const given = Buffer.from(parts[2]!, 'base64url');
    const want = this.mac(parts[1]!).digest();
    if (
      given.length !== want.length ||
      !crypto().timingSafeEqual(given, want) ||
      given.toString('base64url') !== parts[2]
    )
      return bad('failed verification');
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
    if (c.waiting) return bad('was already used by a retry that is still waiting for the call');
    return c;
  }

  private mac(payload: string): Hmac {
    this.secret ??= crypto().randomBytes(32);
    return crypto().createHmac('sha256', this.secret).update(`${PREFIX}.${payload}`);
  }
}
