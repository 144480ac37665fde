/**
 * Who called, carried across the app's chain (agent → its stdio proxy → stream link → bridge):
 * the bridge's session is the agent's proxy, so the proxy puts the agent's own `clientInfo`
 * (name, version) in a tool call's `_meta` toward a `bridge` upstream, and the bridge's approval
 * question names that agent. A proxy the app started for an agent session also puts that
 * session's caller key there (`QIMING_CALLER_KEY`, common/envNames.ts): an allow the user gave in
 * the session's own permission prompt answers only a call carrying it (src/main/runtime/callGrants.ts).
 * This half is in the core (the stage toolCall/callerStamp.ts); reading and removing the entry is callerTaken.ts,
 * in the approval file.
 */

/** A caller key as the app makes them (random base64url); anything else is not taken as one. */
export const CALLER_KEY_RE = /^[A-Za-z0-9_-]{16,128}$/;

/** The `_meta` key: `{ "name"?: string, "version"?: string, "key"?: string }`. */
export const CALLER_META = 'dev.qiming/caller';

export interface Caller {
  name: string;
  version?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `p` toward a `bridge` upstream: naming the caller it already names, else `who` (nothing when
 * unknown); with this proxy's caller `key`, that key, whatever key the call named.
 */
export function withCaller(
  p: Record<string, unknown>,
  who: Caller | undefined,
  key: string | undefined,
): Record<string, unknown> {
  const meta = p._meta as Record<string, unknown> | undefined;
  const named = meta?.[CALLER_META];
  if (key === undefined) return named !== undefined || !who ? p : { ...p, _meta: { ...meta, [CALLER_META]: who } };
  return { ...p, _meta: { ...meta, [CALLER_META]: { ...(isObject(named) ? named : who), key } } };
}
