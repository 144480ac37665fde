// src/main/electron/: the only folder that may import electron: this repository's app, built on the package's public entries.
/**
 * Electron entry (bundled to dist/main/main.cjs). This repository's own app is the first
 * consumer of the package: it imports only the public entries (src/index/, what
 * `qiming-mcp-runtime/main`, `/cli` and `/shared` export; ESLint checks it), so what an
 * embedding app can do, this app does with the same calls.
 *
 * Before ready: electron-log, the default config on first run, the proxy log tail, the MCP
 * runtime, and attachToApp (IPC handlers, start at ready, the quit sequence). At ready:
 * the status window on the bundled panel page. One instance: a `.mcpb` opened from the OS
 * (macOS `open-file`; elsewhere a path on the command line, of this launch or of a second
 * one) is planned through the bridge and its consent shown by the page.
 */
import { app, BrowserWindow, dialog, ipcMain, powerMonitor, protocol, safeStorage, shell } from 'electron';
import log from 'electron-log/main';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolveRuntimePaths } from '../../index/cli.js';
import {
  AgentSelectionStore,
  askWithDialog,
  attachToApp,
  bundlePathsIn,
  createElectronLogSink,
  defaultMcpConfig,
  ensureUserConfig,
  externalUrl,
  InstallService,
  IPC_CHANNELS,
  isBundlePath,
  LogTail,
  ManagementService,
  AppViewService,
  McpRuntime,
  nodeCommand,
  OAUTH_DIR_ENV,
  privilegeAppViewScheme,
  serveAppViewScheme,
  appSecretEnv,
  appSecretStore,
  oauthStoreKey,
  proxyLogFilePath,
  rotateIfLarge,
  runtimeVars,
  type AttachedApp,
} from '../../index/main.js';

log.initialize();
const mainLog = log.scope('main');
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

const paths = resolveRuntimePaths({
  isPackaged: app.isPackaged,
  resourcesPath: process.resourcesPath,
  appPath: app.getAppPath(),
});
const pagePath = join(paths.rendererDir, 'index.html');
const pageUrl = pathToFileURL(pagePath).href;

let win: BrowserWindow | undefined;
let installs: InstallService | undefined;

// One instance: a second launch (a double-clicked .mcpb on Windows and Linux) hands its command line to this one.
const primary = app.requestSingleInstanceLock();
if (!primary) app.quit();

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
  win.on('session-end', () => attached?.quitSequence.sessionEnding());
  void win.loadFile(pagePath);
}

/** The runtime, its log tail and their wiring into the app (synchronously, before the window can ask). */
function setupRuntime(): AttachedApp {
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
  const logTail = new LogTail({
    path: logFile,
    onEntry: createElectronLogSink(log),
    onError: (err) => mainLog.warn(`proxy log tail: ${err.message}`),
  });
  // Sign-in tokens: the app's own folder, encrypted with a safeStorage-kept key when possible.
  process.env[OAUTH_DIR_ENV] ??= join(userData, 'oauth');
  const oauthKey = oauthStoreKey(userData, safeStorage, mainLog);
  const runtime = new McpRuntime({
    configFile,
    cliPath: paths.cliPath,
    node,
    logger: log.scope('bridge'),
    // The same key opens the app's secret store, which the bridge reads `${secret:...}` from.
    env: appSecretEnv(oauthKey),
    // shell.openExternal runs any scheme's OS handler: only http(s) reaches it.
    openExternal: async (url) => shell.openExternal(externalUrl(url)),
  });
  runtime.on('progress', (p) => mainLog.info(`MCP servers settled: ${p.settled}/${p.total}`));
  // A tool call the approval policy asks about: a dialog on the status window (Allow once / Always allow / Deny).
  askWithDialog(runtime, { showMessageBox: (o) => (win ? dialog.showMessageBox(win, o) : dialog.showMessageBox(o)) });
  // Installs through the bridge's /install routes; an opened .mcpb waits, planned, for the page to take it.
  installs = new InstallService({
    bridge: () => runtime.whenReady(),
    notify: () => win?.webContents.send(IPC_CHANNELS.installOpened),
  });
  return attachToApp(app, ipcMain, runtime, {
    pageUrl,
    statusTargets: () => [win?.webContents],
    powerMonitor,
    logTail,
    logger: mainLog,
    // The panel's server management: the config file edited in place (the runtime's watcher
    // applies it), logs and Test through the bridge, and which servers each agent gets.
    management: new ManagementService({
      configFile,
      bridge: () => runtime.whenReady(),
      proxyLogFile: logFile,
      agents: new AgentSelectionStore(join(userData, 'agent-servers.json')),
      secrets: appSecretStore(oauthKey),
    }),
    install: installs,
    // An MCP Apps view's ui/open-link: checked (http(s) only) before the system browser.
    openExternal: async (url) => shell.openExternal(externalUrl(url)),
    // MCP Apps views: the bridge's view routes, each view framed from qiming-app://sandbox/.
    appViews: new AppViewService({ bridge: () => runtime.whenReady() }),
  });
}

function openBundle(path: string): void {
  void installs
    ?.openBundleFile(path)
    .then((b) => mainLog.info(`opened ${b.fileName}: ${'plan' in b ? 'its consent is shown' : b.error}`));
}

let attached: AttachedApp | undefined;
// MCP Apps views in the window get an origin of their own (the page is file://): privileged before ready.
privilegeAppViewScheme(protocol);
if (primary) {
  try {
    attached = setupRuntime();
  } catch (err) {
    mainLog.error(`MCP runtime failed to start: ${errorText(err)}`);
  }
  app.on('open-file', (event, path) => {
    if (!isBundlePath(path)) return;
    event.preventDefault();
    openBundle(path);
  });
  app.on('second-instance', (_event, argv, workingDirectory) => {
    for (const p of bundlePathsIn(argv, workingDirectory)) openBundle(p);
    if (win?.isMinimized()) win.restore();
    win?.focus();
  });
  for (const p of bundlePathsIn(process.argv, process.cwd())) openBundle(p);
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app.whenReady().then(
  () => {
    if (!primary) return;
    serveAppViewScheme(protocol, paths.rendererDir);
    createWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createWindow();
    });
  },
  (err: unknown) => mainLog.error(`app failed to start: ${errorText(err)}`),
);
