/**
 * The bridge's calls of tools with an MCP Apps view, as McpRuntime's `appView` event: each
 * IPC `{"type": "app-view", view}` (src/proxy/apps/bridgeApps.ts) checked for its shape and
 * handed on. The event carries what lets the app match the agent's tool call it shows (see
 * docs/API.md, "Matching a view to the agent's tool call"); the view itself is fetched with
 * its key (`GET /apps/views/<key>` on the bridge).
 */
import type { ChildProcess } from 'node:child_process';
import type { AppViewEvent } from '../../shared/appView.js';

const str = (v: unknown, max: number) => (typeof v === 'string' && v.length <= max ? v : undefined);

/** The event of one IPC message, or undefined when it is not a well-formed `app-view`. */
export function appViewOf(m: unknown): AppViewEvent | undefined {
  if (!m || typeof m !== 'object' || (m as { type?: unknown }).type !== 'app-view') return undefined;
  const v = (m as { view?: Record<string, unknown> }).view;
  if (!v || typeof v !== 'object') return undefined;
  const key = str(v.key, 64);
  const server = str(v.server, 200);
  const tool = str(v.tool, 200);
  const resourceUri = str(v.resourceUri, 2048);
  const at = str(v.at, 40);
  const args = v.arguments;
  if (!key || !server || !tool || !resourceUri || !at || !args || typeof args !== 'object') return undefined;
  const toolUseId = str(v.toolUseId, 200);
  const client = str(v.client, 100);
  return {
    key,
    server,
    tool,
    resourceUri,
    at,
    arguments: args as Record<string, unknown>,
    ...(toolUseId !== undefined ? { toolUseId } : {}),
    ...(client !== undefined ? { client } : {}),
  };
}

/** Hands each `app-view` message of the bridge `child` to `emit`. */
export function listenAppViews(child: Pick<ChildProcess, 'on'>, emit: (v: AppViewEvent) => void): void {
  child.on('message', (m: unknown) => {
    const v = appViewOf(m);
    if (v) emit(v);
  });
}
