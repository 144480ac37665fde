/**
 * The bridge's half of callerMeta.ts: the caller a tool call's `_meta` names (for the approval
 * question and its log line), and the call without the key before it goes to a server.
 */
import { CALLER_META, type Caller } from './callerMeta.js';

type Params = Record<string, unknown>;

const metaOf = (p: Params) => (typeof p._meta === 'object' && p._meta !== null ? (p._meta as Params) : undefined);

/** The caller `p` names, if it names one well formed. */
export function callerOf(p: Params | undefined): Caller | undefined {
  const c = p && (metaOf(p)?.[CALLER_META] as { name?: unknown; version?: unknown } | undefined);
  if (!c || typeof c.name !== 'string') return undefined;
  const name = c.name.slice(0, 100);
  return typeof c.version === 'string' ? { name, version: c.version.slice(0, 40) } : { name };
}

/** `p` toward a server: without the key (and without an emptied `_meta`). */
export function withoutCaller(p: Params): Params {
  const meta = metaOf(p);
  if (!meta || !(CALLER_META in meta)) return p;
  const { [CALLER_META]: _gone, ...rest } = meta;
  const { _meta: _old, ...plain } = p;
  return Object.keys(rest).length ? { ...plain, _meta: rest } : plain;
}
