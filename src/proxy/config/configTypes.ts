/**
 * The normalised config's types, a leaf: what every part of the proxy reads about a server,
 * without the validation that produces it (config.ts, configEntry.ts).
 */
import type { ToolFilter } from './toolFilter.js';
import type { ClientCapabilityFlags } from './clientCapabilities.js';
import type { OAuthSettings } from '../oauth/oauthSettings.js';
import type { ApprovalSettings } from './approvalTypes.js';
import type { SandboxPolicy } from '../../shared/sandbox.js';

export interface EntryCommon {
  id: string;
  disabled: boolean;
  timeoutMs: number;
  connectionTimeoutMs: number;
  toolFilter: ToolFilter;
  /** Per-tool request timeouts, `{glob: ms}`; see `toolTimeoutFor`. */
  toolTimeouts: Record<string, number>;
  /** true: run in the bridge (shared); false: spawned per agent session by the stdio proxy. */
  persistent: boolean;
  /** What the proxy declares to this server (the top-level default merged in); see clientCapabilities.ts. */
  clientCapabilities?: ClientCapabilityFlags;
  /** Which MCP era to speak to this server; absent means "auto" (probe; protocol/rev2026-07-28/). */
  protocol?: '2025-11-25' | '2026-07-28' | 'auto';
  /** This server's cap on a tool result in an aggregate session, winning over the top-level one (hub/economy/resultCap.ts). */
  maxResultBytes?: number | 'off';
  /** This server's tool pinning, winning over the top-level one (pinning/pinBook.ts `pinningOf`). */
  pinning?: PinningSetting;
  /** Its calls' arguments and results go into the activity log, masked and cut (activity/activityLog.ts). */
  capture?: boolean;
}

/** `pinning`: `block` withholds a tool whose definition drifted from its pin, `warn` logs it, `off` passes all. */
export type PinningSetting = 'off' | 'warn' | 'block';

/** A server started as a child process speaking MCP over stdio. */
export interface StdioEntry extends EntryCommon {
  kind: 'stdio';
  command: string;
  args: string[];
  /**
   * The names of the `${secret:NAME}` references its `args` expand: their values are in the
   * server's argv, which other local users can read in the process list (the start says so).
   */
  argSecrets?: string[];
  /** Only the entry's own variables; the spawner decides what to inherit. */
  env: Record<string, string>;
  cwd?: string;
  /** `command` and `args` as the config writes them, before `${...}` expansion (see {@link RemoteEntry.written}). */
  written?: { command: string; args: string[] };
  /** What it may read, write and reach (src/proxy/sandbox/); absent: it runs with the user's rights. */
  sandbox?: SandboxPolicy;
}

/**
 * A server reached over HTTP. `auto` = streamable HTTP with SSE fallback; `bridge` =
 * streamable HTTP to our own bridge, always behind the reconnecting transport.
 */
export interface RemoteEntry extends EntryCommon {
  kind: 'remote';
  type: 'auto' | 'http' | 'sse' | 'bridge';
  url: string;
  /** Final headers; `authToken` has already become `Authorization: Bearer <token>`. */
  headers: Record<string, string>;
  /** Heartbeat period; `0` disables the heartbeat. Unset = the transport's default. */
  pingIntervalMs?: number;
  pingTimeoutMs?: number;
  /** Sign-in settings (src/proxy/oauth); `false`: never sign in to this server. Unset = discovery defaults. */
  oauth?: OAuthSettings | false;
  /**
   * The launch as the config writes it, before `${...}` expansion: here `url`, for a stdio entry
   * `command` and `args`. Tool pinning keys the server's pins by its hash (pinning/launchIdentity.ts),
   * so a reference stays a reference: `${QIMING_NODE}` whose value moves with every AppImage mount,
   * `${secret:NAME}` whose value is never hashed. Unset on an entry made in code: the expanded
   * fields stand in.
   */
  written?: { url: string };
}

export type ServerEntry = StdioEntry | RemoteEntry;

/**
 * An entry that could not be read (a wrong field, an unset variable, a bad id): not started,
 * shown as failed with its reason. What the entry itself says of its kind and role is kept,
 * as far as it can be told, so that it is reported by the process that would run it.
 */
export interface InvalidEntry {
  /** The key as written (possibly not a valid id). */
  id: string;
  /** Every problem, each as the CLI prints it (`server "<id>": <field> ...`); never a value. */
  issues: string[];
  /** One line for the status: the problems without the server prefix. */
  reason: string;
  transport: 'stdio' | 'http' | 'sse';
  /** `"disabled": true` in the entry. */
  disabled: boolean;
  /** false when the entry says `"persistent": false` (run per agent session). */
  persistent: boolean;
}

/** The normalised config. `servers` keeps file order, disabled entries included. */
export interface ProxyConfig {
  servers: ServerEntry[];
  /** `prefixed`: `<id>__<tool>`; `original`: raw names where they do not collide. */
  toolNaming: 'prefixed' | 'original';
  readyTimeoutMs: number;
  /** Global `{glob: ms}` tool timeouts; an entry's own `toolTimeouts` win. */
  toolTimeouts: Record<string, number>;
  /**
   * What an aggregate session's `tools/list` holds (hub/economy/): `all` every tool, `search` the
   * meta-tools and the `exposeAlways` servers' tools, `auto` all within `toolBudgetTokens`, else search.
   */
  toolExposure: ToolExposureSetting;
  /** The estimated tokens of an aggregate's merged tool list past which `auto` means `search`. */
  toolBudgetTokens: number;
  /** Ids of the servers whose tools stay listed in `search` mode (an entry's `"expose": "always"`). */
  exposeAlways: string[];
  /** An entry's own one-line `"description"`, by id: its line in the meta-tools' descriptions. */
  serverDescriptions: Record<string, string>;
  /**
   * The cap on a tool result in an aggregate session, in bytes of its JSON, or `"off"`;
   * unset: DEFAULT_MAX_RESULT_BYTES (hub/economy/resultCap.ts).
   */
  maxResultBytes?: number | 'off';
  /** The top-level tool pinning; unset: `block` (pinning/pinBook.ts). */
  pinning?: PinningSetting;
  /** The activity log (activity/): `off`, in memory (unset), or also a JSONL file in the data folder; read at start. */
  activity?: ActivitySetting;
  /** The approval policy (config/approvalConfig.ts); unset: annotations decide. */
  approval?: ApprovalSettings;
  /** Traces to an OTLP/HTTP collector at `endpoint` (hub.ts `tracingUrl`: the OTEL_* variables come first); read at start. */
  tracing?: { endpoint?: string };
  /** Entries set aside as unreadable, in file order (loadConfig; parseConfig throws instead). */
  invalid?: InvalidEntry[];
}

export type ActivitySetting = 'off' | 'memory' | 'file';

/** The top-level `toolExposure`. */
export type ToolExposureSetting = 'auto' | 'all' | 'search';
