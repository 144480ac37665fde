/**
 * The main side of an MCP Apps view's `ui/open-link` in the app: the page asks
 * (`mcp:app:open-link`, from the app's own page only), and the URL passes the same check as a
 * sign-in page (runtime/externalUrl.ts: http(s) only, serialized) before the system browser.
 */
import { IPC_CHANNELS, type RestartResult } from '../../shared/ipcContract.js';
import { externalUrl } from '../runtime/externalUrl.js';
import { handleTrusted, type IpcMainLike } from './ipcHandlers.js';

/** A link longer than this is refused. */
export const MAX_LINK_CHARS = 8192;

/** Registers the open-link handler for the page at `pageUrl`; returns the function that removes it. */
export function registerAppViewHandlers(
  ipcMain: IpcMainLike,
  openExternal: (url: string) => Promise<void>,
  options: { pageUrl: string | readonly string[] },
): () => void {
  handleTrusted(ipcMain, IPC_CHANNELS.appOpenLink, options.pageUrl, async (url): Promise<RestartResult> => {
    if (typeof url !== 'string' || url.length > MAX_LINK_CHARS) return { ok: false, error: 'invalid link' };
    let page: string;
    try {
      page = externalUrl(url);
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
    await openExternal(page);
    return { ok: true };
  });
  return () => ipcMain.removeHandler(IPC_CHANNELS.appOpenLink);
}
