/**
 * The main side of the status panel's IPC: one `ipcMain.handle` per invoke message of the
 * contract, each refusing callers other than the app's own page. Written against a narrow
 * `IpcMainLike` that Electron's `ipcMain` implements (main.ts) and tests fake.
 *
 * Checks (Electron security checklist #17): the channel carries our prefix; the sender is the
 * top frame of a page whose URL (without query and hash) is the panel page's; arguments are
 * validated before use. A refused call rejects with a short message; expected failures of a
 * restart come back as `{ ok: false, error }`.
 */
import { IPC_CHANNEL_PREFIX, IPC_CHANNELS, type RestartResult } from '../../shared/ipcContract.js';
import type { RuntimeStatus } from '../../shared/status.js';

/** The frame that sent an invoke (Electron's `WebFrameMain`, or null once it is gone). */
export interface SenderFrameLike {
  url: string;
  /** null for a top-level frame. */
  parent?: unknown;
}

/** The event of an `ipcMain.handle` listener, reduced to what is checked. */
export interface IpcInvokeEventLike {
  senderFrame: SenderFrameLike | null | undefined;
}

/** The part of Electron's `ipcMain` used here. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

/** What the handlers serve. */
export interface RuntimeIpcApi {
  getStatus(): RuntimeStatus | Promise<RuntimeStatus>;
  restart(id: string): Promise<RestartResult>;
  signIn?(id: string): Promise<RestartResult>;
  signOut?(id: string): Promise<RestartResult>;
  decidePin?(id: string, tool: string, decision: 'accept' | 'reject', hash: string): Promise<RestartResult>;
}

/** Server ids as the proxy accepts them (its SERVER_ID_RE); anything else is refused early. */
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** `file:///a/index.html?x#y` -> `file:///a/index.html`; undefined when unparsable. */
function pageOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return undefined;
  }
}

/** Whether `frame` is the top frame of the page at `pageUrl`, or of one of them (query and hash ignored). */
export function isTrustedSender(
  frame: SenderFrameLike | null | undefined,
  pageUrl: string | readonly string[],
): boolean {
  if (!frame || typeof frame.url !== 'string') return false;
  if (frame.parent !== undefined && frame.parent !== null) return false;
  const got = pageOf(frame.url);
  return got !== undefined && (typeof pageUrl === 'string' ? [pageUrl] : pageUrl).some((u) => pageOf(u) === got);
}

/**
 * Registers one handler on a prefixed channel, refusing untrusted senders.
 * @throws Error when `channel` does not start with the project's prefix.
 */
export function handleTrusted(
  ipcMain: IpcMainLike,
  channel: string,
  pageUrl: string | readonly string[],
  fn: (...args: unknown[]) => unknown,
): void {
  if (!channel.startsWith(IPC_CHANNEL_PREFIX))
    throw new Error(`refusing IPC channel "${channel}": channels must start with "${IPC_CHANNEL_PREFIX}"`);
  ipcMain.handle(channel, async (event, ...args) => {
    if (!isTrustedSender(event?.senderFrame, pageUrl)) throw new Error(`${channel}: sender not allowed`);
    return fn(...args);
  });
}

/**
 * Registers `getStatus`, `restart`, `signIn`, `signOut` and `pinDecision` for the page at `pageUrl` (or the pages).
 * Returns the function that removes them.
 */
export function registerIpcHandlers(
  ipcMain: IpcMainLike,
  api: RuntimeIpcApi,
  options: { pageUrl: string | readonly string[] },
): () => void {
  const { pageUrl } = options;
  handleTrusted(ipcMain, IPC_CHANNELS.getStatus, pageUrl, () => api.getStatus());
  const perServer = [
    [IPC_CHANNELS.restart, (id: string) => api.restart(id)],
    [
      IPC_CHANNELS.signIn,
      (id: string) => api.signIn?.(id) ?? Promise.resolve({ ok: false, error: 'sign-in is not supported' }),
    ],
    [
      IPC_CHANNELS.signOut,
      (id: string) => api.signOut?.(id) ?? Promise.resolve({ ok: false, error: 'sign-out is not supported' }),
    ],
  ] as const;
  for (const [channel, fn] of perServer) {
    handleTrusted(ipcMain, channel, pageUrl, async (id) => {
      if (typeof id !== 'string' || !ID_RE.test(id))
        return { ok: false, error: 'invalid server id' } satisfies RestartResult;
      return fn(id);
    });
  }
  handleTrusted(ipcMain, IPC_CHANNELS.pinDecision, pageUrl, async (id, tool, decision, hash) => {
    if (typeof id !== 'string' || !ID_RE.test(id))
      return { ok: false, error: 'invalid server id' } satisfies RestartResult;
    if (typeof tool !== 'string' || tool === '' || tool.length > 1000) return { ok: false, error: 'invalid tool name' };
    if (decision !== 'accept' && decision !== 'reject')
      return { ok: false, error: 'the decision must be accept or reject' };
    if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) return { ok: false, error: 'invalid hash' };
    return api.decidePin?.(id, tool, decision, hash) ?? { ok: false, error: 'pin decisions are not supported' };
  });
  return () => {
    for (const ch of [IPC_CHANNELS.getStatus, IPC_CHANNELS.pinDecision, ...perServer.map(([c]) => c)])
      ipcMain.removeHandler(ch);
  };
}
