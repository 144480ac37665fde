/**
 * The object the preload exposes as `window.mcpRuntime`: one method per IPC message of the
 * contract, built over a narrow `ipcRenderer`-like interface so it is tested without Electron.
 * Listeners are wrapped so the IPC `event` (and its `sender`) never reaches the page, and
 * only the contract's prefixed channels are ever used.
 */
import {
  IPC_CHANNEL_PREFIX,
  IPC_CHANNELS,
  type McpRuntimeApi,
  type RestartResult,
  type SignInResult,
} from '../../shared/ipcContract.js';
import type { RuntimeStatus } from '../../shared/status.js';

/** The part of Electron's `ipcRenderer` the preload uses. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

function checked(channel: string): string {
  if (!channel.startsWith(IPC_CHANNEL_PREFIX)) throw new Error(`refusing IPC channel "${channel}"`);
  return channel;
}

/** Builds the page's API over `ipc`. */
export function createPreloadApi(ipc: IpcRendererLike): McpRuntimeApi {
  return {
    getStatus: () => ipc.invoke(checked(IPC_CHANNELS.getStatus)) as Promise<RuntimeStatus>,
    onStatus(cb) {
      const channel = checked(IPC_CHANNELS.status);
      const listener = (_event: unknown, status: unknown) => cb(status as RuntimeStatus);
      ipc.on(channel, listener);
      return () => void ipc.removeListener(channel, listener);
    },
    restart: (id) => ipc.invoke(checked(IPC_CHANNELS.restart), String(id)) as Promise<RestartResult>,
    // Config management: plain data in, plain data out (structured clone), one channel each.
    getConfig: () => ipc.invoke(checked(IPC_CHANNELS.configGet)) as never,
    changeConfig: (change) => ipc.invoke(checked(IPC_CHANNELS.configChange), change) as never,
    previewImport: (text) => ipc.invoke(checked(IPC_CHANNELS.configPreviewImport), String(text)) as never,
    serverLog: (id, limit) => ipc.invoke(checked(IPC_CHANNELS.serverLog), String(id), limit) as never,
    listTools: (id) => ipc.invoke(checked(IPC_CHANNELS.serverTools), String(id)) as never,
    callTool: (id, name, args) => ipc.invoke(checked(IPC_CHANNELS.toolCall), String(id), String(name), args) as never,
    getAgents: () => ipc.invoke(checked(IPC_CHANNELS.agentsGet)) as never,
    setAgentServers: (agent, ids) => ipc.invoke(checked(IPC_CHANNELS.agentsSet), String(agent), ids) as never,
    activity: (query) => ipc.invoke(checked(IPC_CHANNELS.activity), query ?? {}) as never,
    signIn: (id) => ipc.invoke(checked(IPC_CHANNELS.signIn), String(id)) as Promise<SignInResult>,
    signOut: (id) => ipc.invoke(checked(IPC_CHANNELS.signOut), String(id)) as Promise<RestartResult>,
    // Installs: a bundle's bytes go as a Uint8Array (structured clone), never as text.
    installSearch: (q, cursor) =>
      ipc.invoke(
        checked(IPC_CHANNELS.installSearch),
        String(q),
        cursor === undefined ? undefined : String(cursor),
      ) as never,
    installPlan: (req) => ipc.invoke(checked(IPC_CHANNELS.installPlan), req) as never,
    installConfirm: (planId, sandbox) =>
      ipc.invoke(checked(IPC_CHANNELS.installConfirm), String(planId), sandbox) as never,
    installUninstall: (id) => ipc.invoke(checked(IPC_CHANNELS.installUninstall), String(id)) as never,
    installedServers: () => ipc.invoke(checked(IPC_CHANNELS.installed)) as never,
    takeOpenedBundles: () => ipc.invoke(checked(IPC_CHANNELS.installTakeOpened)) as never,
    onBundleOpened(cb) {
      const channel = checked(IPC_CHANNELS.installOpened);
      const listener = () => cb();
      ipc.on(channel, listener);
      return () => void ipc.removeListener(channel, listener);
    },
    openAppLink: (url) => ipc.invoke(checked(IPC_CHANNELS.appOpenLink), String(url)) as Promise<RestartResult>,
    // MCP Apps views: the kept view, its requests and the accept of its drift, by the view's key.
    appView: (key) => ipc.invoke(checked(IPC_CHANNELS.appView), String(key)) as never,
    appViewCall: (key, name, args) =>
      ipc.invoke(checked(IPC_CHANNELS.appViewCall), String(key), String(name), args) as never,
    appViewRead: (key, uri) => ipc.invoke(checked(IPC_CHANNELS.appViewRead), String(key), String(uri)) as never,
    appViewAccept: (key, hash) => ipc.invoke(checked(IPC_CHANNELS.appViewAccept), String(key), String(hash)) as never,
    decidePin: (id, tool, decision, hash) =>
      ipc.invoke(
        checked(IPC_CHANNELS.pinDecision),
        String(id),
        String(tool),
        String(decision),
        String(hash),
      ) as Promise<RestartResult>,
  };
}
