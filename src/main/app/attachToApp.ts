// src/main/app/: the app wiring that takes Electron's objects as arguments (so nothing here imports electron).
/**
 * One call that embeds an {@link McpRuntime} in an Electron app: the IPC handlers with sender
 * checks (registered at once, before a window can ask), the status pushed to the app's pages,
 * the start at `app.whenReady()` (the log tail first, so no proxy line of the run is missed),
 * and the quit sequence (quitSequence.ts). Electron's `app`, `ipcMain` and `powerMonitor` are
 * passed in as they are: the interfaces below are the parts of them used here.
 */
import { IPC_CHANNELS, type RestartResult } from '../../shared/ipcContract.js';
import { adoptLoginPath } from '../runtime/loginEnv.js';
import type { RuntimeStatus } from '../../shared/status.js';
import { errorMessage, silentLogger, type RuntimeLogger } from '../logs/runtimeLogger.js';
import { registerIpcHandlers, type IpcMainLike } from './ipcHandlers.js';
import { registerManagementHandlers } from './managementIpc.js';
import type { AppViewIpcApi, ManagementIpcApi } from '../../shared/ipcContract.js';
import type { InstallIpcApi } from '../../shared/install.js';
import { registerInstallHandlers } from './installIpc.js';
import { registerAppViewHandlers } from './appViewIpc.js';
import {
  installQuitSequence,
  type PowerMonitorLike,
  type PreventableEvent,
  type QuitSequence,
} from './quitSequence.js';

/** The part of Electron's `app` used here (Electron's `app` is one as it is). */
export interface ElectronAppLike {
  whenReady(): Promise<unknown>;
  on(event: 'before-quit', listener: (event: PreventableEvent) => void): unknown;
  on(event: 'will-quit', listener: (event: PreventableEvent) => void): unknown;
  quit(): void;
  exit(exitCode?: number): void;
}

/** Where status changes are sent: a `webContents`. */
export interface StatusTargetLike {
  send(channel: string, ...args: unknown[]): void;
  isDestroyed?(): boolean;
}

/** The part of {@link McpRuntime} used here. */
export interface AttachableRuntime {
  start(): Promise<void>;
  stop(options?: { deadlineMs?: number }): Promise<void>;
  killSync(): void;
  status(): RuntimeStatus;
  restart(id: string): Promise<RestartResult>;
  /** A server's OAuth sign-in / sign-out (McpRuntime has them). */
  signIn?(id: string): Promise<RestartResult>;
  signOut?(id: string): Promise<RestartResult>;
  /** Accepts or rejects a tool's drifted definition (tool pinning). */
  decidePin?(id: string, tool: string, decision: 'accept' | 'reject', hash: string): Promise<RestartResult>;
  on(event: 'status', cb: (status: RuntimeStatus) => void): () => void;
}

/** Something else stopped at quit, beside the runtime (an `AcpEngine`). */
export interface Stoppable {
  stop(options?: { deadlineMs?: number }): Promise<void>;
  killSync?(): void;
}

export interface AttachToAppOptions {
  /**
   * The page (or pages) allowed to call the IPC API, e.g. `pathToFileURL(panelHtml).href` or
   * the app's own page; query and hash are ignored, and only top frames are trusted.
   */
  pageUrl: string | readonly string[];
  /** Who gets each status change on `mcp:status:changed`, e.g. `() => [win.webContents]`. */
  statusTargets?: () => Iterable<StatusTargetLike | null | undefined>;
  /** Electron's `powerMonitor`: a system shutdown stops everything with a shorter deadline. */
  powerMonitor?: PowerMonitorLike;
  /** A `LogTail`: started before the runtime, stopped with it. */
  logTail?: { start(): Promise<void>; stop(): Promise<void> };
  /**
   * Read the user's login-shell PATH once at ready, before the runtime starts, for the bridge,
   * the agents and their stdio proxies (runtime/loginEnv.ts: an app launched from the Dock or a
   * desktop launcher lacks it). Default true.
   */
  loginPath?: boolean;
  /**
   * The panel's server management over IPC (config edits, logs, Test, agents), e.g. a
   * `ManagementService` (config/managementService.ts); absent: a read-only panel.
   */
  management?: ManagementIpcApi;
  /**
   * The panel's installs over IPC (the registry, bundles, uninstall, the bundles the app was
   * asked to open), e.g. an `InstallService` (install/installService.ts); absent: no Browse.
   */
  install?: InstallIpcApi;
  /**
   * Opens an http(s) URL in the system browser (e.g. `shell.openExternal`): given, an MCP Apps
   * view's `ui/open-link` is served (appViewIpc.ts, which checks the URL first).
   */
  openExternal?: (url: string) => Promise<void>;
  /**
   * MCP Apps views over IPC (the kept view, its calls and reads, the accept of its drift),
   * e.g. an `AppViewService` (appViewService.ts); absent: the page opens no view.
   */
  appViews?: AppViewIpcApi;
  /** Stopped at quit in parallel with the runtime (e.g. ACP engines, whose agents use it). */
  alsoStop?: readonly Stoppable[];
  /** Default: nothing is logged. electron-log's `log.scope('mcp')` fits. */
  logger?: RuntimeLogger;
  /** Deadline of the stop at an ordinary quit. Default 5000 ms. */
  deadlineMs?: number;
  /** Deadline at system shutdown. Default 2000 ms. */
  shutdownDeadlineMs?: number;
  /** For tests: where the `exit` last resort is hooked. Default `process`. */
  processLike?: { on(event: 'exit', listener: () => void): unknown };
}

/** What {@link attachToApp} returns. */
export interface AttachedApp {
  /**
   * Settles once the log tail and the runtime were started at ready; rejects when either
   * failed to start (also logged). Readiness of the servers: `runtime.whenReady()`.
   */
  readonly started: Promise<void>;
  /** The installed quit sequence (`quit()` from a menu item, `sessionEnding()` on Windows `session-end`). */
  readonly quitSequence: QuitSequence;
  /** Removes the IPC handlers and stops forwarding status (the quit handlers stay). */
  detach(): void;
}

/**
 * Wires `runtime` into the app: see the file comment. Call it once, early (before
 * `app.whenReady()` resolves, or right after).
 */
export function attachToApp(
  app: ElectronAppLike,
  ipcMain: IpcMainLike,
  runtime: AttachableRuntime,
  options: AttachToAppOptions,
): AttachedApp {
  const log = options.logger ?? silentLogger;
  const others = options.alsoStop ?? [];
  const removeHandlers = registerIpcHandlers(
    ipcMain,
    {
      getStatus: () => runtime.status(),
      restart: (id) => runtime.restart(id),
      signIn: runtime.signIn && ((id) => runtime.signIn!(id)),
      signOut: runtime.signOut && ((id) => runtime.signOut!(id)),
      decidePin: runtime.decidePin && ((id, tool, decision, hash) => runtime.decidePin!(id, tool, decision, hash)),
    },
    { pageUrl: options.pageUrl },
  );
  const removeManagement = options.management
    ? registerManagementHandlers(ipcMain, options.management, { pageUrl: options.pageUrl })
    : () => undefined;
  const removeAppViews = registerAppViewHandlers(ipcMain, options.openExternal, {
    pageUrl: options.pageUrl,
    views: options.appViews,
  });
  const removeInstall = options.install
    ? registerInstallHandlers(ipcMain, options.install, { pageUrl: options.pageUrl })
    : () => undefined;
  const offStatus = runtime.on('status', (status) => {
    for (const target of options.statusTargets?.() ?? []) {
      if (target && !target.isDestroyed?.()) target.send(IPC_CHANNELS.status, status);
    }
  });
  const quitSequence = installQuitSequence({
    app: {
      on: (event, listener) =>
        event === 'before-quit' ? app.on('before-quit', listener) : app.on('will-quit', listener),
      quit: () => app.quit(),
      exit: (code) => app.exit(code),
    },
    powerMonitor: options.powerMonitor,
    processLike: options.processLike,
    logger: log,
    deadlineMs: options.deadlineMs,
    shutdownDeadlineMs: options.shutdownDeadlineMs,
    stop: async (deadlineMs) => {
      await Promise.all([
        runtime.stop({ deadlineMs }),
        options.logTail?.stop(),
        ...others.map((o) => o.stop({ deadlineMs })),
      ]);
    },
    killSync: () => {
      for (const o of others) o.killSync?.();
      runtime.killSync();
    },
  });
  const started = app.whenReady().then(async () => {
    try {
      // The tail first, so no proxy line of this run is missed; the login PATH alongside.
      await Promise.all([
        options.logTail?.start(),
        options.loginPath === false ? undefined : adoptLoginPath(process.env, log),
      ]);
      await runtime.start();
    } catch (err) {
      log.error(`MCP runtime failed to start: ${errorMessage(err)}`);
      throw err;
    }
  });
  // The caller may never look at `started`: a failure is logged above, not an unhandled rejection.
  started.catch(() => {});
  return {
    started,
    quitSequence,
    detach() {
      removeHandlers();
      removeManagement();
      removeInstall();
      removeAppViews();
      offStatus();
    },
  };
}
