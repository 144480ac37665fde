// src/main/electron/: the only folder that may import electron: the wiring and the plain logic behind it.
/**
 * Electron entry (bundled to dist/main/main.cjs). Thin wiring only: everything it calls is
 * plain Node and tested without Electron (quitSequence.ts, ipcHandlers.ts, mcpRuntime.ts...).
 *
 * At `app.whenReady()`: electron-log, the default config on first run, the proxy log tail,
 * the MCP runtime (bridge), the IPC handlers and the status window. At quit: see quitSequence.ts.
 */
import { app, BrowserWindow, ipcMain, powerMonitor, safeStorage, shell } from 'electron';
import log from 'electron-log/main';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IPC_CHANNELS } from '../../shared/ipcContract.js';
import { nodeCommand } from '../runtime/cliPath.js';
import { ensureUserConfig } from '../config/ensureUserConfig.js';
import { defaultMcpConfig, runtimeVars } from '../config/defaultMcpConfig.js';
import { registerIpcHandlers } from './ipcHandlers.js';
import { createElectronLogSink } from '../logs/logForwarder.js';
import { proxyLogFilePath, rotateIfLarge } from '../logs/logPaths.js';
import { LogTail } from '../logs/logTail.js';
import { McpRuntime } from '../runtime/mcpRuntime.js';
import { installQuitSequence } from './quitSequence.js';
import { resolveRuntimePaths } from '../runtime/resourcePaths.js';
import { errorMessage } from '../logs/runtimeLogger.js';
import { oauthStoreKey } from '../config/oauthStoreKey.js';
import { OAUTH_DIR_ENV, OAUTH_KEY_ENV } from '../../proxy/index.js';

log.initialize();
const mainLog = log.scope('main');

const paths = resolveRuntimePaths({ isPackaged: app.isPackaged, resourcesPath: process.resourcesPath, appPath: app.getAppPath() });
const pagePath = join(paths.rendererDir, 'index.html');
const pageUrl = pathToFileURL(pagePath).href;

let runtime: McpRuntime | undefined;
let tail: LogTail | undefined;
let win: BrowserWindow | undefined;

const quitSequence = installQuitSequence({
  // Adapters: Electron's overloaded `on` typings do not match the narrow interfaces directly.
  app: {
    on: (event, listener) => app.on(event as 'before-quit', listener),
    quit: () => app.quit(),
    exit: (code) => app.exit(code),
  },
  powerMonitor: { on: (event, listener) => powerMonitor.on(event, listener as () => void) },
  logger: mainLog,
  stop: async (deadlineMs) => {
    await Promise.all([runtime?.stop({ deadlineMs }), tail?.stop()]);
  },
  killSync: () => runtime?.killSync(),
});

function createWindow(): void {
  win = new BrowserWindow({
    width: 960,
    height: 720,
    title: 'MCP servers',
    webPreferences: {
      preload: join(__dirname, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  // The panel is a local page: it never navigates or opens windows.
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  win.on('closed', () => (win = undefined));
  // Windows ends the session without quit events: kill the process trees while we still can.
  win.on('session-end', () => quitSequence.sessionEnding());
  void win.loadFile(pagePath);
}

/** Creates the runtime and its IPC handlers (synchronously, before the window can ask). */
function setupRuntime(): McpRuntime {
  const userData = app.getPath('userData');
  const node = nodeCommand();
  const dataDir = join(userData, 'mcp');
  const filesDir = join(dataDir, 'files');
  mkdirSync(filesDir, { recursive: true });
  // The default config names no absolute path, only ${VAR}s set here at every launch (an
  // AppImage, or an update, moves the app); the bridge inherits them.
  Object.assign(process.env, runtimeVars({ paths, node, dataDir, filesDir }));
  // Node >= 22.1 (Electron's) keeps compiled code of the proxy bundle here: the bridge and
  // the agents' stdio proxies (acp.ts passes it on) start faster from the second launch.
  process.env.NODE_COMPILE_CACHE ??= join(userData, 'compile-cache');
  const configFile = ensureUserConfig(userData, defaultMcpConfig());
  mainLog.info(`MCP config: ${configFile}`);
  const logFile = proxyLogFilePath(app.getPath('logs'));
  rotateIfLarge(logFile);
  tail = new LogTail({
    path: logFile,
    onEntry: createElectronLogSink(log),
    onError: (err) => mainLog.warn(`proxy log tail: ${err.message}`),
  });
  // Sign-in tokens: the app's own folder, encrypted with a safeStorage-kept key when possible.
  process.env[OAUTH_DIR_ENV] ??= join(userData, 'oauth');
  const oauthKey = oauthStoreKey(userData, safeStorage, mainLog);
  const rt = new McpRuntime({
    configFile,
    cliPath: paths.cliPath,
    node,
    logger: log.scope('bridge'),
    env: oauthKey ? { [OAUTH_KEY_ENV]: oauthKey } : undefined,
    openExternal: (url) => shell.openExternal(url),
  });
  runtime = rt;
  rt.on('status', (s) => {
    if (win && !win.isDestroyed()) win.webContents.send(IPC_CHANNELS.status, s);
  });
  rt.on('progress', (p) => mainLog.info(`MCP servers settled: ${p.settled}/${p.total}`));
  registerIpcHandlers(
    ipcMain,
    {
      getStatus: () => rt.status(),
      restart: (id) => rt.restart(id),
      signIn: (id) => rt.signIn(id),
      signOut: (id) => rt.signOut(id),
    },
    { pageUrl },
  );
  return rt;
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app.whenReady().then(
  async () => {
    try {
      const rt = setupRuntime();
      createWindow();
      // The tail first, so no proxy line of this run is missed.
      await tail?.start();
      await rt.start();
    } catch (err) {
      mainLog.error(`MCP runtime failed to start: ${errorMessage(err)}`);
    }
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createWindow();
    });
  },
  (err: unknown) => mainLog.error(`app failed to start: ${errorMessage(err)}`),
);
