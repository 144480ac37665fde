/**
 * Who called, carried across the app's chain (agent → its stdio proxy → stream link → bridge):
 * the bridge's session is the agent's proxy, so the proxy puts the agent's own `clientInfo`
 * (name, version) in a tool call's `_meta` toward a `bridge` upstream, and the bridge's approval
 * question names that agent. This half is in the core (routeRequest.ts); reading and removing
 * the key is callerTaken.ts, in the approval file.
 */

/** The `_meta` key: `{ "name": string, "version"?: string }`. */
export const CALLER_META = 'dev.qiming/caller';

export interface Caller {
  name: string;
  version?: string;
}

/** `p` toward a `bridge` upstream: naming the caller it already names, else `who` (nothing when unknown). */
export function withCaller(p: Record<string, unknown>, who: Caller | undefined): Record<string, unknown> {
  const meta = p._meta as Record<string, unknown> | undefined;
  if (meta?.[CALLER_META] !== undefined || !who) return p;
  return { ...p, _meta: { ...meta, [CALLER_META]: who } };
}
