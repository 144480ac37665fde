/**
 * The IPC contract between Electron main, the preload script and the status panel.
 * Types and channel-name constants only: no runtime imports, so every layer
 * (main, preload, renderer) can import it.
 */
import type { RuntimeStatus } from './status.js';
import type { ActivityPage, ActivityQuery } from './activity.js';
import type {
  AgentSelectionView,
  ConfigChange,
  ConfigChangeResult,
  ConfigView,
  ImportPreview,
  ServerLog,
  ToolCallResult,
  ToolList,
} from './configContract.js';
import type { InstallIpcApi } from './install.js';
import type { AppViewAnswer, AppViewResult } from './appView.js';

/** Every channel this project uses starts with this prefix; the preload rejects others. */
export const IPC_CHANNEL_PREFIX = 'mcp:';

/** One channel per message. `status` is main -> renderer; the others are invoke/handle. */
export const IPC_CHANNELS = {
  getStatus: 'mcp:status:get',
  status: 'mcp:status:changed',
  restart: 'mcp:server:restart',
  configGet: 'mcp:config:get',
  configChange: 'mcp:config:change',
  configPreviewImport: 'mcp:config:preview-import',
  serverLog: 'mcp:server:log',
  serverTools: 'mcp:server:tools',
  toolCall: 'mcp:tool:call',
  agentsGet: 'mcp:agents:get',
  agentsSet: 'mcp:agents:set',
  signIn: 'mcp:server:sign-in',
  signOut: 'mcp:server:sign-out',
  pinDecision: 'mcp:server:pin-decision',
  activity: 'mcp:activity:get',
  installSearch: 'mcp:install:search',
  installPlan: 'mcp:install:plan',
  installConfirm: 'mcp:install:confirm',
  installUninstall: 'mcp:install:uninstall',
  installed: 'mcp:install:installed',
  /** main -> renderer: a bundle was opened; the page takes it with `installTakeOpened`. */
  installOpened: 'mcp:install:opened',
  installTakeOpened: 'mcp:install:take-opened',
  /** An MCP Apps view's `ui/open-link`: the system browser, http(s) only (main/app/appViewIpc.ts). */
  appOpenLink: 'mcp:app:open-link',
  /** A kept MCP Apps view (the bridge's `GET /apps/views/<key>`), its frame on `qiming-app://sandbox/`. */
  appView: 'mcp:app:view',
  /** A view's `tools/call` (`POST /apps/views/<key>/call`). */
  appViewCall: 'mcp:app:call',
  /** A view's `resources/read` (`POST /apps/views/<key>/read`). */
  appViewRead: 'mcp:app:read',
  /** The user accepts a view's drift (`POST /apps/views/<key>/accept`). */
  appViewAccept: 'mcp:app:accept',
} as const;

/** The MCP Apps view channels; see AppViewIpcApi. */
export const APP_VIEW_CHANNELS = [
  IPC_CHANNELS.appView,
  IPC_CHANNELS.appViewCall,
  IPC_CHANNELS.appViewRead,
  IPC_CHANNELS.appViewAccept,
] as const;

/** The management channels (config, logs, Test, agents); see ManagementIpcApi. */
export const MANAGEMENT_CHANNELS = [
  IPC_CHANNELS.configGet,
  IPC_CHANNELS.configChange,
  IPC_CHANNELS.configPreviewImport,
  IPC_CHANNELS.serverLog,
  IPC_CHANNELS.serverTools,
  IPC_CHANNELS.toolCall,
  IPC_CHANNELS.agentsGet,
  IPC_CHANNELS.agentsSet,
  IPC_CHANNELS.activity,
] as const;

/** The install channels (registry, bundles, uninstall, opened bundles); see InstallIpcApi. */
export const INSTALL_CHANNELS = [
  IPC_CHANNELS.installSearch,
  IPC_CHANNELS.installPlan,
  IPC_CHANNELS.installConfirm,
  IPC_CHANNELS.installUninstall,
  IPC_CHANNELS.installed,
  IPC_CHANNELS.installTakeOpened,
] as const;

/** The answer to `config:get`. */
export type ConfigGetResult = { ok: true; config: ConfigView } | { ok: false; error: string };

/** Config management over IPC: the same operations as the bridge's `/config` routes. */
export interface ManagementIpcApi {
  getConfig(): Promise<ConfigGetResult>;
  changeConfig(change: ConfigChange): Promise<ConfigChangeResult>;
  previewImport(text: string): Promise<ImportPreview>;
  serverLog(id: string, limit?: number): Promise<ServerLog>;
  listTools(id: string): Promise<ToolList>;
  callTool(id: string, name: string, args: Record<string, unknown>): Promise<ToolCallResult>;
  getAgents(): Promise<AgentSelectionView>;
  setAgentServers(agent: string, ids: string[] | null): Promise<{ ok: boolean; error?: string }>;
  /** One page of the bridge's activity log (its `GET /activity`). */
  activity(query?: ActivityQuery): Promise<ActivityResult>;
}

/**
 * MCP Apps views over IPC: the bridge's `/apps/views/<key>` routes asked by main, so a view's
 * requests go through the same approval, pinning and activity client as in a browser.
 */
export interface AppViewIpcApi {
  appView(key: string): Promise<AppViewResult>;
  appViewCall(key: string, name: string, args: Record<string, unknown>): Promise<AppViewAnswer>;
  appViewRead(key: string, uri: string): Promise<AppViewAnswer>;
  /** Accepts the drift of the view `key` shows, by the drift's `hash`. */
  appViewAccept(key: string, hash: string): Promise<AppViewAnswer>;
}

/** The answer to `activity:get`. */
export type ActivityResult = ({ ok: true } & ActivityPage) | { ok: false; error: string };

/** Answer to a restart request. Expected failures come back as `{ ok: false, error }`, not as a rejection. */
export interface RestartResult {
  ok: boolean;
  error?: string;
}

/** Answer to a sign-in request: the authorization page, once the browser was sent to it. */
export interface SignInResult extends RestartResult {
  url?: string;
}

/**
 * What the preload exposes as `window.mcpRuntime` (via `contextBridge.exposeInMainWorld`).
 * One method per IPC message; listeners receive only the payload, never the IPC event.
 */
export interface McpRuntimeApi extends Partial<ManagementIpcApi>, Partial<InstallIpcApi>, Partial<AppViewIpcApi> {
  getStatus(): Promise<RuntimeStatus>;
  /** Subscribes to status changes; returns the unsubscribe function. */
  onStatus(cb: (status: RuntimeStatus) => void): () => void;
  restart(id: string): Promise<RestartResult>;
  /** Starts the server's sign-in in the system browser (OAuth). */
  signIn(id: string): Promise<SignInResult>;
  /** Forgets the server's tokens. */
  signOut(id: string): Promise<RestartResult>;
  /** Accepts or rejects a tool's drifted definition (tool pinning; `hash` from the drift in the status). */
  decidePin?(id: string, tool: string, decision: 'accept' | 'reject', hash: string): Promise<RestartResult>;
  /** Opens an MCP Apps view's link (`ui/open-link`) in the system browser: http(s) URLs only. */
  openAppLink?(url: string): Promise<RestartResult>;
  /** Called when the app was asked to open a `.mcpb` (then `takeOpenedBundles`); returns the unsubscribe function. */
  onBundleOpened?(cb: () => void): () => void;
}

/** The name under which the preload exposes {@link McpRuntimeApi}. */
export const MCP_RUNTIME_GLOBAL = 'mcpRuntime';
