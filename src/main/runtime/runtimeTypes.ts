/**
 * The public types of McpRuntime (options, events, what `whenReady()` resolves with), and
 * the small typed listener registry it uses. Split from mcpRuntime.ts to keep files small.
 */
import type { RuntimeStatus, ServerStatus } from '../../shared/status.js';
import type { BridgeReadyMessage } from './bridgeProcess.js';
import type { NodeCommand } from './cliPath.js';
import { errorMessage, type RuntimeLogger } from '../logs/runtimeLogger.js';
import type { ApprovalRequest } from './approvalRequests.js';
import type { AppViewEvent } from '../../shared/appView.js';
export type { ApprovalRequest, ApprovalAnswer, ApprovalVerdict } from './approvalRequests.js';
export type { CallGrant } from './callGrants.js';

/** What `whenReady()` resolves with. */
export interface BridgeInfo {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  token: string;
  servers: BridgeReadyMessage['servers'];
}

/** Start-up progress: `settled` of `total` enabled servers are ready or failed. */
export interface StartupProgress {
  settled: number;
  total: number;
}

export interface RuntimeEvents {
  status: RuntimeStatus;
  progress: StartupProgress;
  ready: BridgeInfo;
  /** A tool call waits for the user's approval: call `answer` (approvalRequests.ts); no listener: nobody asks. */
  approval: ApprovalRequest;
  /** An agent called a tool with an MCP Apps view (runtime/appViews.ts); render it with `mountMcpApp`. */
  appView: AppViewEvent;
}

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** A bridge up this long before crashing resets the backoff. */
  stableMs: number;
  /** Launches in total, the first included: this many consecutive failures give up (until the config changes); see src/shared/backoff.ts. */
  maxAttempts: number;
}

export interface McpRuntimeOptions {
  /** The user's MCP config file (`{"mcpServers": {...}}`), read by the bridge and watched. */
  configFile: string;
  /** Default: warnings and errors to stderr (`stderrLogger`). electron-log's `log.scope('mcp')` fits. */
  logger?: RuntimeLogger;
  /** Default: resolved with {@link resolveProxyCliPath}. */
  cliPath?: string;
  /** Default: this process's executable (`ELECTRON_RUN_AS_NODE=1` inside Electron). */
  node?: NodeCommand;
  /** First port to bind; default: a free one, then kept across restarts. */
  port?: number;
  /** Bearer token of the bridge; default: random, kept across restarts. */
  token?: string;
  /** Watch the config file. Default true. */
  watchConfig?: boolean;
  configDebounceMs?: number;
  backoff?: Partial<BackoffOptions>;
  /** Deadline of the old bridge's stop when the config changed. Default 5000 ms. */
  replaceDeadlineMs?: number;
  /** Extra CLI arguments for the bridge (e.g. `--log-level debug`). */
  bridgeArgs?: string[];
  /** Variables added to the bridge's environment, which the config's `${VAR}`s may use. */
  env?: Record<string, string>;
  /** Opens a sign-in page in the system browser (the app: Electron's shell.openExternal). */
  openExternal?: (url: string) => Promise<void>;
  /** How long an allow given in an agent's own permission prompt waits for its call (callGrants.ts). Default 10000 ms. */
  approvalGrantMs?: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, stableMs: 10_000, maxAttempts: 9 };

/** `settled` of `total`: enabled servers that are ready or failed. */
export function startupProgress(servers: readonly ServerStatus[]): StartupProgress {
  const enabled = servers.filter((s) => s.state !== 'disabled');
  return { settled: enabled.filter((s) => s.state === 'ready' || s.state === 'failed').length, total: enabled.length };
}

/** Listener sets per event; a throwing listener is logged and does not stop the others. */
export class RuntimeListeners {
  private readonly sets: { [K in keyof RuntimeEvents]: Set<(v: RuntimeEvents[K]) => void> } = {
    status: new Set(),
    progress: new Set(),
    ready: new Set(),
    approval: new Set(),
    appView: new Set(),
  };

  constructor(private readonly log: RuntimeLogger) {}

  on<K extends keyof RuntimeEvents>(event: K, cb: (v: RuntimeEvents[K]) => void): () => void {
    this.sets[event].add(cb);
    return () => this.sets[event].delete(cb);
  }

  /** How many listeners `event` has. */
  count(event: keyof RuntimeEvents): number {
    return this.sets[event].size;
  }

  emit<K extends keyof RuntimeEvents>(event: K, value: RuntimeEvents[K]): void {
    for (const cb of [...this.sets[event]]) {
      try {
        cb(value);
      } catch (err) {
        this.log.error(`${event} listener failed: ${errorMessage(err)}`);
      }
    }
  }
}
