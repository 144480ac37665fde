/**
 * The main side of MCP Apps views in the app, from the app's own page only: a view's
 * `ui/open-link` (`mcp:app:open-link`), whose URL passes the same check as a sign-in page
 * (runtime/externalUrl.ts: http(s) only, serialized) before the system browser; and, given an
 * {@link AppViewIpcApi} (appViewService.ts), the kept view, its `tools/call` and
 * `resources/read`, and the accept of its drift (`mcp:app:view|call|read|accept`), each
 * argument checked before it goes on.
 */
import { APP_VIEW_CHANNELS, IPC_CHANNELS, type AppViewIpcApi, type RestartResult } from '../../shared/ipcContract.js';
import { externalUrl } from '../runtime/externalUrl.js';
import { handleTrusted, type IpcMainLike } from './ipcHandlers.js';

/** A link longer than this is refused. */
export const MAX_LINK_CHARS = 8192;
/** A view's key as the bridge makes them (apps/appRoutes.ts). */
const KEY_RE = /^[A-Za-z0-9_-]{1,64}$/;
/** A tool name, a resource URI or a hash longer than this is refused. */
const MAX_NAME_CHARS = 4096;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (error: string) => ({ ok: false, error });
const text = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.length <= MAX_NAME_CHARS;

/**
 * Registers the open-link handler for the page at `pageUrl`, and the view handlers when
 * `options.views` is given; returns the function that removes them.
 */
export function registerAppViewHandlers(
  ipcMain: IpcMainLike,
  openExternal: ((url: string) => Promise<void>) | undefined,
  options: { pageUrl: string | readonly string[]; views?: AppViewIpcApi },
): () => void {
  const on = (channel: string, fn: (...args: unknown[]) => unknown) =>
    handleTrusted(ipcMain, channel, options.pageUrl, fn);
  if (openExternal)
    on(IPC_CHANNELS.appOpenLink, async (url): Promise<RestartResult> => {
      if (typeof url !== 'string' || url.length > MAX_LINK_CHARS) return bad('invalid link');
      let page: string;
      try {
        page = externalUrl(url);
      } catch (err) {
        return bad((err as Error).message);
      }
      await openExternal(page);
      return { ok: true };
    });
  const views = options.views;
  if (views) {
    const keyed = (channel: string, fn: (key: string, ...args: unknown[]) => unknown) =>
      on(channel, (key, ...args) =>
        typeof key === 'string' && KEY_RE.test(key) ? fn(key, ...args) : bad('invalid view key'),
      );
    keyed(IPC_CHANNELS.appView, (key) => views.appView(key));
    keyed(IPC_CHANNELS.appViewCall, (key, name, args) => {
      if (!text(name)) return bad('invalid tool name');
      const a = args ?? {};
      if (!isObject(a)) return bad('the arguments must be an object');
      return views.appViewCall(key, name, a);
    });
    keyed(IPC_CHANNELS.appViewRead, (key, uri) =>
      text(uri) ? views.appViewRead(key, uri) : bad('invalid resource URI'),
    );
    keyed(IPC_CHANNELS.appViewAccept, (key, hash) =>
      typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash)
        ? views.appViewAccept(key, hash)
        : bad('invalid view hash'),
    );
  }
  return () => {
    if (openExternal) ipcMain.removeHandler(IPC_CHANNELS.appOpenLink);
    if (views) for (const ch of APP_VIEW_CHANNELS) ipcMain.removeHandler(ch);
  };
}
