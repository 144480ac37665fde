/**
 * The PersistentMcpBridge (`proxy` mode): every configured server started once, in
 * parallel, and served to any number of sessions over loopback HTTP (`/mcp/<id>`,
 * aggregated `/mcp`, legacy `/sse/<id>`), plus `/health`, `/status`, `/events` and the
 * status panel. When every server has settled it prints one JSON ready line on stdout
 * (and sends it over IPC when there is a channel). Ends on SIGTERM/SIGINT, stdin EOF,
 * an IPC `{"type":"shutdown"}`, or the parent's death. SIGHUP, `--watch`, `POST
 * /config/reload` and every change the panel's routes write apply config changes to the
 * running servers (bridge/reload.ts). A config entry that cannot be read does not stop the
 * others: it is shown as failed with its reason.
 */
import { readFileSync, fstatSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Hub } from '../hub/hub.js';
import { BridgeHttpServer } from '../bridge/httpBridgeServer.js';
import { generateToken, isLoopbackHost } from '../bridge/security.js';
import { installLifecycle, lifecycleFlags } from '../cli/lifecycle.js';
import type { BridgeApps } from '../apps/bridgeApps.js';
import { loadRunConfig } from '../cli/loadCliConfig.js';
import { UsageError, type CliOptions } from '../cli/cliArgs.js';
import { errorText, type Logger } from '../common/logger.js';
import { StatusFeed } from '../bridge/statusFeed.js';
import type { SecretStoreStatus, ServerStatus } from '../../shared/status.js';
import { installHubOAuth } from '../oauth/oauthRegistry.js';
import { signInActions } from '../oauth/signInActions.js';
import type { ProxyConfig } from '../config/config.js';
import { BridgeReloader } from '../bridge/reload.js';
import { watchConfigFile } from '../config/configFileWatch.js';

import { TOKEN_ENV } from '../common/envNames.js';
import { LOG_FILE_ENV } from '../common/logger.js';
import { pinDefault, pinFolder } from '../pinning/pinFolder.js';
import { ipcAskUser } from './bridgeApproval.js';

/** Where the ready line goes: stdout, which carries nothing else in this mode. */
const readyOut: NodeJS.WritableStream = process.stdout;

function readToken(opts: CliOptions): string {
  if (opts.tokenFile) {
    let text: string;
    try {
      text = readFileSync(opts.tokenFile, 'utf8').trim();
    } catch (err) {
      throw new UsageError(
        `cannot read --token-file ${opts.tokenFile}: ${(err as NodeJS.ErrnoException).code ?? errorText(err)}`,
      );
    }
    if (text.length < 16) throw new UsageError(`the token in ${opts.tokenFile} is too short (at least 16 characters)`);
    return text;
  }
  const env = process.env[TOKEN_ENV];
  if (env !== undefined && env !== '') {
    // A short token is a mistake to report, not to replace silently with a random one.
    if (env.trim().length < 16) throw new UsageError(`${TOKEN_ENV} is too short (at least 16 characters)`);
    return env.trim();
  }
  return generateToken();
}

/** How often a server's health figures in the status may change on their own (activity/healthWindow.ts). */
const HEALTH_PUSH_MS = 2_000;

/** The status panel's files: next to the bundled CLI (dist/renderer) in every layout. */

export function panelDir(): string | undefined {
  const here = typeof __dirname === 'string' ? __dirname : process.cwd();
  for (const candidate of [join(here, '..', 'renderer'), join(dirname(here), 'renderer')]) {
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return undefined;
}

function stdinIsPipe(): boolean {
  try {
    const st = fstatSync(0);
    return st.isFIFO() || st.isSocket();
  } catch {
    return false;
  }
}

/** Resolves when `p` settles or after `ms`, whichever is first. */
function boundedWait(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.then(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]).finally(() => clearTimeout(timer));
}

/** The config file the panel may edit: `--config-file`, or `--config` naming a file (not inline JSON). */
export function editableConfigPath(opts: CliOptions): string | undefined {
  if (opts.configFile !== undefined) return resolve(opts.configFile);
  if (opts.config !== undefined && !opts.config.trim().startsWith('{')) return resolve(opts.config.trim());
  return undefined;
}

/** How many stderr lines of a server that did not start the ready line carries. */
const READY_STDERR_LINES = 5;

/** One server in the ready line: its state and tool count; why it is not ready, if it is not. */
function readyEntry(s: ServerStatus): {
  id: string;
  state: string;
  tools: number;
  error?: string;
  stderrTail?: string[];
} {
  const out: { id: string; state: string; tools: number; error?: string; stderrTail?: string[] } = {
    id: s.id,
    state: s.state,
    tools: s.tools.length,
  };
  if (s.lastError) out.error = s.lastError;
  if (s.state !== 'ready' && s.stderrTail.length) out.stderrTail = s.stderrTail.slice(-READY_STDERR_LINES);
  return out;
}

/** The config the bridge runs: `persistent: false` servers are spawned per agent session by the stdio proxy, never here. */
async function bridgeConfig(
  opts: CliOptions,
  logger: Logger,
  onStore: (state: SecretStoreStatus) => void,
): Promise<{ config: ProxyConfig; perSession: string[] }> {
  const loaded = await loadRunConfig(opts, logger, onStore);
  const invalid = loaded.invalid ?? [];
  return {
    config: {
      ...loaded,
      servers: loaded.servers.filter((s) => s.persistent),
      invalid: invalid.filter((e) => e.persistent),
    },
    perSession: [
      ...loaded.servers.filter((s) => !s.persistent).map((s) => s.id),
      ...invalid.filter((e) => !e.persistent).map((e) => e.id),
    ],
  };
}

export async function runBridgeMode(cliOpts: CliOptions, logger: Logger): Promise<number> {
  const log = logger.child('bridge');
  const proxyMode = cliOpts.mode === 'proxy';
  const headless = proxyMode && cliOpts.config === undefined && cliOpts.configFile === undefined;
  // The headless default config (written once) is code no other start needs: loaded here only.
  const opts: CliOptions = headless
    ? { ...cliOpts, configFile: (await import('../cli/defaultBridgeConfig.js')).prepareDefaultConfig(log) }
    : cliOpts;
  let store: SecretStoreStatus | undefined;
  const { config, perSession } = await bridgeConfig(opts, logger, (s) => (store = s));
  const token = readToken(opts);
  // --allow-tools / --deny-tools are already merged into each entry by loadCliConfig.
  const hub = new Hub(config, logger, {
    maxMessageBytes: opts.maxMessageBytes,
    pinDir: pinFolder(),
    pinDefault: pinDefault(),
    activityDefault: 'memory',
    tcp: true,
  });
  // The app above answers approval questions over IPC (bridgeApproval.ts).
  hub.askUser = ipcAskUser(
    process as never,
    (serverId, tool) => rememberAlways(opts, serverId, tool, log),
    async (name) => (await import('../hub/approval/approvalGate.js')).approvalForName(hub, name),
  );
  // Sign-in waits for the user's request (the panel's button, POST /servers/<id>/sign-in).
  const oauth = installHubOAuth(hub, { logger, onStateChange: () => feed.changed() });
  const feed = new StatusFeed(
    hub,
    (id) => oauth.panelState(id),
    (id) => oauth.tokenStore(id),
  );
  const onStore = (s: SecretStoreStatus) => feed.setSecretStore(s);
  if (store) onStore(store);
  const reloader = new BridgeReloader({
    hub,
    load: async () => (await bridgeConfig(opts, logger, onStore)).config,
    logger: log,
    onProblem: (e) => feed.setConfigError(e),
  });
  const http = new BridgeHttpServer({
    host: opts.host,
    port: opts.port ?? 0,
    token,
    allowNonLoopback: opts.allowNonLoopback,
    maxBodyBytes: opts.maxMessageBytes,
    bodyTimeoutMs: opts.bodyTimeoutMs,
    // The bridge itself never idles out; --idle-timeout is how long a session may go
    // without a request (and with no stream open) before it is closed (default 30 min, 0 never).
    sessionIdleMs: opts.idleTimeoutMs,
    logger: logger.child('http'),
    staticDir: panelDir(),
    agentLoaded: feed,
    agentSessions: feed,
    activity: () => hub.activity,
    apps: () => apps?.routes,
    handler: {
      connect: (transport, route) =>
        hub
          .connect(transport, {
            serverId: route.serverId,
            ...(route.exposure ? { exposure: route.exposure } : {}),
            ...(route.callerKey ? { callerKey: route.callerKey } : {}),
          })
          .start(),
      routeState: (serverId) => {
        if (serverId === undefined) return 'ok';
        const u = hub.upstreams.get(serverId);
        if (!u) return hub.invalid.some((e) => e.id === serverId) ? { notReady: 'failed' } : 'unknown';
        return u.isReady ? 'ok' : { notReady: u.state };
      },
      toolInputSchema: (serverId, name) => hub.list('tools', { serverId }).find((t) => t.name === name)?.inputSchema,
    },
    status: () => feed.current(),
    subscribeStatus: (cb) => feed.subscribe(cb),
    configRoutes: {
      configFile: editableConfigPath(opts),
      openSession: (transport, serverId) => hub.connect(transport, { serverId }).start(),
      ring: (id) => hub.status().find((s) => s.id === id)?.stderrTail,
      logFile: process.env[LOG_FILE_ENV] || undefined,
      mask: (text) => logger.secrets.mask(text),
      onSecretStore: onStore,
      // The bridge applies what its own panel wrote, --watch or not (the app's runtime would
      // reload too, after its own watcher saw the file: that second reload finds nothing to do).
      applyWritten: proxyMode ? () => reloader.reload('the panel changed the config') : undefined,
    },
    onRestart: async (id) => {
      const u = hub.upstreams.get(id);
      const invalid = hub.invalid.find((e) => e.id === id);
      if (!u && invalid)
        return { ok: false, status: 409, error: `server "${id}" cannot start: ${logger.secrets.mask(invalid.reason)}` };
      if (!u) return { ok: false, error: `no server "${id}"` };
      if (u.entry.disabled) return { ok: false, error: `server "${id}" is disabled` };
      void u.restart();
      return { ok: true };
    },
    ...signInActions(
      oauth,
      (id) => hub.upstreams.get(id)?.entry,
      (id) => void hub.upstreams.get(id)?.restart(),
    ),
    onReload: proxyMode ? () => reloader.reload('requested over HTTP') : undefined,
    onPinDecision: (id, tool, decision, hash) => hub.pinDecision(id, tool, decision, hash),
  });
  if (!isLoopbackHost(opts.host) && !opts.allowNonLoopback) {
    throw new UsageError(
      `refusing to serve on non-loopback host ${opts.host}: the bridge exposes every configured server (pass --dangerously-allow-non-loopback to override)`,
    );
  }
  let bound: { port: number; url: string };
  try {
    bound = await http.listen();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${opts.port} on ${opts.host} is already in use`);
    if (code === 'EADDRNOTAVAIL') throw new UsageError(`cannot bind ${opts.host}: no such local address`);
    throw err;
  }
  feed.setBridge({ state: 'starting', pid: process.pid, port: bound.port });
  // MCP Apps views (apps/bridgeApps.ts): loaded beside the start, so the ready line never waits for them.
  let apps: BridgeApps | undefined;
  const appsStarted = import('../apps/bridgeApps.js')
    .then(async (m) => (apps = await m.startBridgeApps(hub, panelDir(), bound.port, opts.host)))
    .catch((err) => log.warn(`MCP Apps views are off: ${errorText(err)}`));
  let stopping = false;
  let unwatch: (() => void) | undefined;
  const lifecycle = installLifecycle({
    logger,
    ...lifecycleFlags(opts),
    onHangup: proxyMode ? () => void reloader.reload('SIGHUP') : undefined,
    stop: async () => {
      stopping = true;
      unwatch?.();
      reloader.stop();
      feed.setBridge({ state: 'stopping', pid: process.pid, port: bound.port });
      // Sessions first, while their HTTP streams are still open: a call in flight gets an
      // error now instead of its client waiting out its own timeout on a dead stream.
      await Promise.all([...hub.sessions].map((s) => s.close()));
      await appsStarted;
      await Promise.all([http.close(), hub.stop(), apps?.close()]);
    },
  });
  if (stdinIsPipe()) {
    process.stdin.on('end', () => void lifecycle.shutdown('stdin closed'));
    process.stdin.on('error', () => void lifecycle.shutdown('stdin error'));
    process.stdin.resume();
  }
  process.on('message', (m: unknown) => {
    // `deadlineMs`: the parent's bound on this graceful stop (McpRuntime.stop passes its own down).
    if (m && typeof m === 'object' && (m as { type?: string }).type === 'shutdown')
      void lifecycle.shutdown(
        'shutdown requested over IPC',
        0,
        ipcDeadline((m as { deadlineMs?: unknown }).deadlineMs),
      );
  });
  process.on('disconnect', () => void lifecycle.shutdown('IPC channel closed'));

  const watched = opts.configFile ?? opts.config;
  if (opts.watch && watched !== undefined) {
    unwatch = watchConfigFile(watched, () => void reloader.reload('the config file changed'), {
      onError: (err) => log.warn(`config watch: ${errorText(err)}`),
    });
  }
  log.info(`starting ${config.servers.filter((s) => !s.disabled).length} server(s) on ${bound.url}`);
  for (const e of config.invalid ?? []) log.error(`not started: ${e.issues.join('; ')}`);
  if (perSession.length) log.info(`not started here (persistent: false, run per session): ${perSession.join(', ')}`);
  // Every server settles (ready, or failed with its reason) within its own connection
  // timeout; the ready line waits for that, but never longer than the ready timeout
  // (default 30 s): a server still starting then is reported as such and goes on.
  const started = hub.start().catch((err) => log.error(`start failed: ${errorText(err)}`));
  // Each call moves a server's health figures: the status says so at most every 2 s.
  void hub.activityReady().then((a) => a?.onChange(HEALTH_PUSH_MS, () => feed.changed()));
  await boundedWait(started, config.readyTimeoutMs);
  // Stopped while servers were still starting: a ready line now would be a lie.
  if (stopping) return lifecycle.done;
  feed.setBridge({ state: 'ready', pid: process.pid, port: bound.port });
  const ready = {
    event: 'ready',
    port: bound.port,
    url: bound.url,
    token,
    pid: process.pid,
    servers: hub.status().map(readyEntry),
  };
  // The one line this mode ever writes to stdout.
  readyOut.write(`${JSON.stringify(ready)}\n`);
  process.send?.(ready);
  // Not through the logger: the token must not land in the shared log file.
  process.stderr.write(`status panel: ${bound.url}/#token=${token}\n`);
  log.info(`ready: ${ready.servers.map((s) => `${s.id}=${s.state}`).join(', ') || 'no servers'}`);
  return lifecycle.done;
}

/** "Always allow" written into the config file the bridge serves, when it has one (config/approvalRemember.ts). */
async function rememberAlways(opts: CliOptions, serverId: string, tool: string, log: Logger): Promise<void> {
  const file = editableConfigPath(opts);
  if (file === undefined) return;
  try {
    const { rememberAlwaysAllow } = await import('../config/approvalRemember.js');
    if (rememberAlwaysAllow(file, serverId, tool))
      log.info(`approval: "Always allow" for server "${serverId}" tool "${tool}" written to ${file}`);
  } catch (err) {
    log.warn(`approval: "Always allow" for server "${serverId}" tool "${tool}" not written: ${errorText(err)}`);
  }
}

/** The longest graceful stop an IPC shutdown may ask for. */
const MAX_IPC_DEADLINE_MS = 600_000;

/** An IPC shutdown's `deadlineMs` when it is a usable bound, else undefined (the `--shutdown-timeout`). */
function ipcDeadline(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0
    ? Math.min(Math.round(v), MAX_IPC_DEADLINE_MS)
    : undefined;
}
