/**
 * The tap on a call of a tool with an MCP Apps view (`_meta.ui.resourceUri`), from
 * the tool-call stage hub/toolCall/appViewTap.ts once the call is allowed (`hub.appViews.tap`, in the bridge only): its activity record carries `app`
 * (the resource URI and the key of what was kept), and the bridge's {@link AppViewBook} keeps
 * the arguments and, from the session's reply, the whole result (before any cut for the
 * agent). A call of a tool without a view pays one map lookup.
 */
import type { RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { Upstream } from '../upstream/upstream.js';
import type { RoutingSession } from '../hub/sessionContracts.js';
import { viewUriOf } from './appsExtension.js';
import { toolNamed } from './toolAudience.js';
import { CALLER_META } from '../hub/approval/callerMeta.js';

/** The MCP `_meta` key under which Claude Code sends its tool use id (its ACP `toolCallId`). */
export const CLAUDE_TOOL_USE_ID = 'claudecode/toolUseId';

/** One call of a tool with a view, as the view gets it. */
export interface KeptView {
  key: string;
  server: string;
  tool: string;
  resourceUri: string;
  /** The agent's MCP `_meta["claudecode/toolUseId"]` (Claude's ACP `toolCallId`), when it sent one. */
  toolUseId?: string;
  /**
   * The agent that made the call: the one its stdio proxy names in the call's `_meta`
   * (`dev.qiming/caller`, hub/approval/callerMeta.ts), else the session's own client.
   */
  client?: string;
  arguments: Record<string, unknown>;
  /** The whole result; absent while the call runs, and when it failed. */
  result?: Record<string, unknown>;
  at: string;
  bytes: number;
}

/** Where a tapped call is kept (appViewBook.ts `AppViewBook`). */
export interface ViewKeeper {
  begin(view: Omit<KeptView, 'key' | 'bytes' | 'at'>): KeptView;
  answered(kept: KeptView, result: Record<string, unknown>): void;
}

/** Taps `req` (tool `name` of `u`) into `book` when the tool has a view; `told` hears of it (the app's event). */
export function tapView(
  book: ViewKeeper,
  s: RoutingSession,
  req: RpcRequest,
  u: Upstream,
  name: string,
  told?: (view: KeptView) => void,
): void {
  if (s.scope.app || u.entry.clientCapabilities?.apps === false) return;
  const tool = toolNamed(u, name);
  const resourceUri = tool && viewUriOf(tool);
  if (!resourceUri) return;
  const p = req.params ?? {};
  const meta = p._meta as Record<string, unknown> | undefined;
  const toolUseId = meta?.[CLAUDE_TOOL_USE_ID];
  const args = p.arguments && typeof p.arguments === 'object' ? (p.arguments as Record<string, unknown>) : {};
  const client = namedCaller(meta) ?? s.clientName;
  const kept = book.begin({
    server: u.id,
    tool: name,
    resourceUri,
    arguments: args,
    ...(typeof toolUseId === 'string' ? { toolUseId: toolUseId.slice(0, 200) } : {}),
    ...(client !== undefined ? { client } : {}),
  });
  s.recordView(req.id, { resourceUri, view: kept.key }, (result) => book.answered(kept, result));
  told?.(kept);
}

/**
 * The agent's name a call's `_meta` carries from its stdio proxy (callerMeta.ts), read here, not
 * with the approval file's reader: this file loads at the bridge's start and that one on the
 * first tool call.
 */
function namedCaller(meta: Record<string, unknown> | undefined): string | undefined {
  const named = meta?.[CALLER_META] as { name?: unknown } | undefined;
  return typeof named === 'object' && named !== null && typeof named.name === 'string'
    ? named.name.slice(0, 100)
    : undefined;
}
