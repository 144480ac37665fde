/**
 * Who sees which tools of a server with MCP Apps on (its `apps` flag, on by default): an
 * agent's session (the model) lists and calls only tools whose `_meta.ui.visibility` includes
 * `"model"`, a view's session (`scope.app`, one server) only those that include `"app"`. The
 * hub asks {@link listedIn} for each tool it lists and routeRequest.ts asks {@link refuseHidden}
 * before a call; a call refused is a tool result with `isError`, as the filters' are.
 */
import type { RpcRequest } from '../jsonrpc/jsonRpc.js';
import type { Item } from '../upstream/listCache.js';
import type { Upstream } from '../upstream/upstream.js';
import type { RoutingSession, SessionScope } from '../hub/sessionContracts.js';
import { visibleTo, type ToolAudience } from './appsExtension.js';

/** Each tool list's tools by name, built on first look (a list is replaced, never changed, on refresh). */
const byName = new WeakMap<Item[], Map<string, Item>>();

/** The tool `name` of `u` as listed, if it is. */
export function toolNamed(u: Upstream, name: string): Item | undefined {
  const tools = u.lists.tools;
  let index = byName.get(tools);
  if (!index) {
    index = new Map(tools.map((t) => [String(t.name), t]));
    byName.set(tools, index);
  }
  return index.get(name);
}

function audienceOf(scope: SessionScope): ToolAudience {
  return scope.app ? 'app' : 'model';
}

/** Whether `tool` of `u` is listed to a session of `scope`. */
export function listedIn(u: Upstream, tool: Item, scope: SessionScope): boolean {
  return u.entry.clientCapabilities?.apps === false || visibleTo(tool, audienceOf(scope));
}

/**
 * Refuses `req` (tool `name` of `u`, called `exposed`) when the session's audience may not call
 * it; resolves true when it answered. A tool the server does not list passes (the server answers).
 */
export async function refuseHidden(
  s: RoutingSession,
  req: RpcRequest,
  u: Upstream,
  name: string,
  exposed: string,
): Promise<boolean> {
  if (u.entry.clientCapabilities?.apps === false) return false;
  const tool = toolNamed(u, name);
  if (!tool || listedIn(u, tool, s.scope)) return false;
  const audience = audienceOf(s.scope);
  const text =
    audience === 'model'
      ? `Tool ${exposed} of server "${u.id}" is for its app view only (its _meta.ui.visibility lacks "model"): an agent cannot call it`
      : `Tool ${exposed} of server "${u.id}" is not callable by its app view (its _meta.ui.visibility lacks "app")`;
  const { refuseToolCall } = await import('../hub/policyRefusal.js');
  await refuseToolCall(s, req, text, { policy: 'visibility', server: u.id, tool: name });
  return true;
}
