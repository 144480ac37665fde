/**
 * Calls the user allowed in an agent's own permission prompt (main/acp/permissionPolicy.ts),
 * each waiting for the bridge's approval question of that very call, so the user is asked once.
 * A grant belongs to one call: the agent session that asked (its caller key, which only that
 * session's stdio proxy carries to the bridge), the server, the tool and the arguments (compared
 * as canonical JSON: key order does not count, every value does). It answers one question and is
 * gone; one whose call does not come within its lifetime lapses, and that call, if it comes
 * later, is asked again. Another client's call, another session's, or other arguments never
 * match: they are asked as any call.
 *
 * The lifetime (10 s by default) covers the hop from the agent's prompt to the bridge: the agent
 * calls the tool as soon as its prompt is answered, through its proxy and the bridge's stream
 * link. At most {@link MAX_GRANTS} wait at once (the oldest dropped first).
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../config/userConfig.js';
import type { GrantedCall } from './approvalRequests.js';

/** One allowed call, as the agent's prompt showed it. */
export interface CallGrant {
  /** The caller key of the agent session whose prompt the user answered (AcpEngine gives each session one). */
  callerKey: string;
  /** The server and tool as the bridge reads the agent's tool name (McpRuntime.approvalFor). */
  server: string;
  tool: string;
  /** The call's arguments, as the prompt showed them (its `rawInput`). */
  arguments: Record<string, unknown>;
}

/** How long a grant waits for its call by default. */
export const DEFAULT_GRANT_MS = 10_000;
/** How many grants may wait at once. */
export const MAX_GRANTS = 256;

/** The grants of one runtime: see the file comment. */
export class CallGrants {
  /** In the order they were given; a call allowed twice waits twice. */
  private grants: { call: string; until: number }[] = [];

  constructor(private readonly lifetimeMs: number = DEFAULT_GRANT_MS) {}

  /** Records that the user allowed `g` once. */
  add(g: CallGrant): void {
    const now = Date.now();
    this.grants = this.grants.filter((x) => x.until >= now);
    this.grants.push({ call: digest(g.callerKey, g.server, g.tool, g.arguments), until: now + this.lifetimeMs });
    if (this.grants.length > MAX_GRANTS) this.grants.shift();
  }

  /** True, and the grant is gone, when `call` is one the user allowed and its grant has not lapsed. */
  take(call: GrantedCall): boolean {
    if (call.callerKey === undefined) return false;
    const now = Date.now();
    this.grants = this.grants.filter((x) => x.until >= now);
    const d = digest(call.callerKey, call.server, call.tool, call.arguments);
    const at = this.grants.findIndex((x) => x.call === d);
    if (at < 0) return false;
    this.grants.splice(at, 1);
    return true;
  }
}

/** One call, whatever the key order of its arguments: a digest, so a grant holds no argument value. */
function digest(callerKey: string, server: string, tool: string, args: Record<string, unknown>): string {
  return createHash('sha256')
    .update(canonicalJson([callerKey, server, tool, args]))
    .digest('base64url');
}
