// The app's preload API in a Chromium page: `window.mcpRuntime` as the panel finds it inside
// Electron, whose named methods go through Playwright to the real preload object in the test
// process (createPreloadApi over the app's IPC handlers). Status comes from the bridge; restart
// and sign-in answer fixed results. Playwright carries JSON only: `args` may turn what the page
// sent back into the values the preload API takes (bytes, for example). `inProcessIpc` is that
// preload object over the app's IPC handlers, without Electron.
import type { Page } from 'playwright-core';
import type { IpcInvokeEventLike, IpcMainLike } from '../../src/main/app/ipcHandlers.js';
import { createPreloadApi } from '../../src/main/app/preloadApi.js';
import type { McpRuntimeApi } from '../../src/shared/ipcContract.js';

/**
 * The app's IPC within one process: handlers registered on `ipcMain` (the real ones, sender
 * checks included) answer the real preload API's `api`, as a frame at `pageUrl` would call them.
 * `seen` is told each channel and its arguments.
 */
export function inProcessIpc(
  pageUrl: string,
  seen?: (channel: string, args: unknown[]) => void,
): { ipcMain: IpcMainLike; api: McpRuntimeApi } {
  const handlers = new Map<string, (event: IpcInvokeEventLike, ...args: unknown[]) => unknown>();
  const ipcMain: IpcMainLike = {
    handle: (ch, fn) => void handlers.set(ch, fn),
    removeHandler: (ch) => void handlers.delete(ch),
  };
  const api = createPreloadApi({
    invoke: async (ch, ...args) => {
      seen?.(ch, args);
      const handler = handlers.get(ch);
      if (!handler) throw new Error(`no handler for ${ch}`);
      return handler({ senderFrame: { url: pageUrl, parent: null } }, ...args);
    },
    on: () => undefined,
    removeListener: () => undefined,
  });
  return { ipcMain, api };
}

/** The server manager's methods (ManagementIpcApi) that both panel views use: config, logs, tools. */
export const SERVER_MANAGER_METHODS = [
  'getConfig',
  'changeConfig',
  'previewImport',
  'serverLog',
  'listTools',
  'callTool',
] as const satisfies readonly (keyof McpRuntimeApi)[];

export interface PreloadPageOptions {
  /** The preload API the page's calls reach. */
  api: McpRuntimeApi;
  /** What `getStatus()` answers (the bridge's `/status`). */
  status: () => Promise<unknown>;
  /** The methods of `api` the page gets, beside status, restart and sign-in. */
  methods: readonly (keyof McpRuntimeApi)[];
  /** The arguments of a call as the preload API takes them (default: as they came). */
  args?: (name: string, args: unknown[]) => unknown[];
}

/** Installs `window.mcpRuntime` in every document `page` loads from now on. */
export async function exposePreloadApi(page: Page, o: PreloadPageOptions): Promise<void> {
  await page.exposeFunction('hostInvoke', (name: string, args: unknown[]) =>
    (o.api as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...(o.args?.(name, args) ?? args)),
  );
  await page.exposeFunction('hostStatus', o.status);
  await page.addInitScript((methods: string[]) => {
    const w = window as unknown as Record<string, unknown> & {
      hostInvoke(n: string, a: unknown[]): Promise<unknown>;
      hostStatus(): Promise<unknown>;
    };
    w.mcpRuntime = {
      getStatus: () => w.hostStatus(),
      onStatus: () => () => undefined,
      restart: async () => ({ ok: true }),
      signIn: async () => ({ ok: false, error: 'no OAuth here' }),
      signOut: async () => ({ ok: true }),
      ...Object.fromEntries(methods.map((n) => [n, (...args: unknown[]) => w.hostInvoke(n, args)])),
    };
  }, o.methods as string[]);
}
