/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, spec 2026-01-26) as the proxy reads it
 * from a server: what it declares to servers, which tools carry a view (`_meta.ui.resourceUri`,
 * or the older flat `_meta["ui/resourceUri"]`), and who may see a tool (`_meta.ui.visibility`,
 * `["model", "app"]` by default). Pure: no I/O, nothing loaded.
 */
/** A tool as its server listed it (upstream/listCache.ts `Item`; not imported: config/ reads this file). */
type Item = Record<string, unknown>;

export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The one mime type of a view's HTML resource. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** What the proxy declares under `capabilities.extensions` (2025-11-25) or the per-request client capabilities (2026-07-28). */
export const APPS_CAPABILITY = { mimeTypes: [APP_MIME_TYPE] };

/** Who calls a tool: an agent (the model) or a server's own view (the app). */
export type ToolAudience = 'model' | 'app';

function uiMeta(tool: Item): Record<string, unknown> | undefined {
  const meta = tool._meta;
  if (!meta || typeof meta !== 'object') return undefined;
  const ui = (meta as Record<string, unknown>).ui;
  return ui && typeof ui === 'object' ? (ui as Record<string, unknown>) : undefined;
}

/** The `ui://` URI of `tool`'s view, if it has one (the nested key wins over the flat one). */
export function viewUriOf(tool: Item): string | undefined {
  const meta = tool._meta as Record<string, unknown> | undefined;
  if (!meta || typeof meta !== 'object') return undefined;
  const uri = uiMeta(tool)?.resourceUri ?? meta['ui/resourceUri'];
  return typeof uri === 'string' && uri.startsWith('ui://') && uri.length <= 2048 ? uri : undefined;
}

/** Whether `audience` may see and call `tool` (no `visibility`, or a malformed one: both may). */
export function visibleTo(tool: Item, audience: ToolAudience): boolean {
  const visibility = uiMeta(tool)?.visibility;
  if (!Array.isArray(visibility)) return true;
  return visibility.includes(audience);
}
