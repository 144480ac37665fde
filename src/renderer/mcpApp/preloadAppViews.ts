/**
 * A kept call with a view asked of the app over its preload (`mcp:app:view`; main asks the
 * bridge, and frames the view from the app's `qiming-app://sandbox/` origin; a drift as a
 * {@link ViewDriftError}), with the host its view's requests go through: `mcp:app:call` and
 * `mcp:app:read` (the bridge's view routes, from main), `ui/open-link` to `mcp:app:open-link`
 * (the system browser after main's URL check).
 */
import type { AppViewIpcApi, McpRuntimeApi } from '../../shared/ipcContract.js';
import type { McpAppView } from './mountMcpApp.js';
import { ViewDriftError, keptView, resultOf } from './keptView.js';

/** The preload methods views need. */
export type PreloadViews = AppViewIpcApi & Pick<McpRuntimeApi, 'openAppLink'>;

/** Whether the app's preload offers views. */
export function hasViews(api: McpRuntimeApi): api is McpRuntimeApi & PreloadViews {
  return (
    typeof api.appView === 'function' &&
    typeof api.appViewCall === 'function' &&
    typeof api.appViewRead === 'function' &&
    typeof api.appViewAccept === 'function'
  );
}

export async function preloadAppView(api: PreloadViews, key: string): Promise<McpAppView> {
  const got = await api.appView(key);
  if (!got.ok) throw got.drift ? new ViewDriftError(got.error, got.drift) : new Error(got.error);
  return keptView(got.view, {
    callTool: async (name, args) => resultOf(await api.appViewCall(key, name, args)),
    readResource: async (uri) => resultOf(await api.appViewRead(key, uri)),
    openLink: async (url) => (api.openAppLink ? (await api.openAppLink(url)).ok : false),
  });
}
