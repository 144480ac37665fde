/**
 * The bridge's half of callerMeta.ts: the caller a tool call's `_meta` names (for the approval
 * question and its log line) and its caller key (for the question only: never logged), and the
 * call without that `_meta` entry before it goes to a server.
 */
import { CALLER_KEY_RE, CALLER_META } from './callerMeta.js';

type Params = Record<string, unknown>;

/** What a call's `_meta` says of its caller, each part only when well formed. */
export interface NamedCaller {
  name?: string;
  version?: string;
  /** The agent session's caller key (callerMeta.ts). */
  key?: string;
}

const metaOf = (p: Params) => (typeof p._meta === 'object' && p._meta !== null ? (p._meta as Params) : undefined);

/** The caller `p` names, if it names one well formed (a name, or a key). */
export function callerOf(p: Params | undefined): NamedCaller | undefined {
  const c = p && (metaOf(p)?.[CALLER_META] as { name?: unknown; version?: unknown; key?: unknown } | undefined);
  if (!c || typeof c !== 'object') return undefined;
  const out: NamedCaller = {};
  if (typeof c.name === 'string') {
    out.name = c.name.slice(0, 100);
    if (typeof c.version === 'string') out.version = c.version.slice(0, 40);
  }
  if (typeof c.key === 'string' && CALLER_KEY_RE.test(c.key)) out.key = c.key;
  return out.name === undefined && out.key === undefined ? undefined : out;
}

/** `p` toward a server: without the caller entry (and without an emptied `_meta`). */
export function withoutCaller(p: Params): Params {
  const meta = metaOf(p);
  if (!meta || !(CALLER_META in meta)) return p;
  const { [CALLER_META]: _gone, ...rest } = meta;
  const { _meta: _old, ...plain } = p;
  return Object.keys(rest).length ? { ...plain, _meta: rest } : plain;
}
