/**
 * MCP Apps in the bridge, started beside its start (never before its ready line): the book of
 * kept views on the hub (so calls with a view are tapped; its view pins in the tool pins' folder), the sandbox origin (a second
 * loopback listener serving the built panel's sandbox files), the `/apps/views/*` routes, and
 * each call with a view told to the app over IPC (`{"type": "app-view"}`: McpRuntime's `appView`).
 */
import type { Hub } from '../hub/hub.js';
import { AppViewBook, type KeptView } from './appViewBook.js';
import type { AppRoutesOptions } from './appRoutes.js';
import { SandboxServer } from './sandboxServer.js';
import { ViewPins } from './viewPins.js';

export interface BridgeApps {
  routes: Omit<AppRoutesOptions, 'maxBodyBytes' | 'bodyTimeoutMs'>;
  close(): Promise<void>;
}

/** What the app is told of a call with a view (src/shared/appView.ts `AppViewEvent`). */
export function appViewMessage(v: KeptView): Record<string, unknown> {
  return {
    type: 'app-view',
    view: {
      key: v.key,
      server: v.server,
      tool: v.tool,
      resourceUri: v.resourceUri,
      arguments: v.arguments,
      at: v.at,
      ...(v.toolUseId !== undefined ? { toolUseId: v.toolUseId } : {}),
      ...(v.client !== undefined ? { client: v.client } : {}),
    },
  };
}

/** `panelDir`: the built panel (its sandbox files); none: views are kept and told, the sandbox origin is not served. */
export async function startBridgeApps(
  hub: Hub,
  panelDir: string | undefined,
  port: number,
  host = '127.0.0.1',
): Promise<BridgeApps> {
  const pins = hub.pins;
  const book = new AppViewBook(pins && new ViewPins(pins.dir), (id) => pins?.modeOf(id) ?? 'off');
  const origins = [`http://${host}:${port}`, `http://localhost:${port}`];
  const sandbox = panelDir === undefined ? undefined : new SandboxServer(panelDir, () => origins, host);
  await sandbox?.listen();
  hub.appViews = book;
  if (typeof process.send === 'function') book.onView = (v) => process.send?.(appViewMessage(v));
  return {
    routes: {
      book,
      upstream: (id) => hub.upstream(id),
      openViewSession: (transport, serverId) => hub.connect(transport, { serverId, app: true }).start(),
      sandboxUrl: () => sandbox?.url,
    },
    close: async () => sandbox?.close(),
  };
}
