/**
 * The config-management contract: what the panel reads about the user's MCP config and
 * what it sends to change it, spoken by the bridge's `/config/*` routes, the app's IPC and
 * the panel alike. Types and constants only (every layer imports it).
 *
 * Secrets are write-only: env values, header values, `authToken`, credential-looking args
 * and url parts reach the page as {@link SECRET_MASK} (or a redacted url). A draft that sends
 * a value back unchanged keeps the stored secret.
 */
import type { ConfigReloadResult, SecretStoreStatus } from './status.js';
import type { SandboxSetting } from './sandbox.js';

/** What a hidden value looks like on the page; sent back unchanged it means "keep the old value". */
export const SECRET_MASK = '\u2022\u2022\u2022\u2022\u2022\u2022\u2022\u2022';

/** The user's config as the panel sees it. */
export interface ConfigView {
  /** The file edited, absolute. */
  file: string;
  servers: EntryView[];
  /** What is odd in the file but not an error, e.g. a key written twice (the last one counts). */
  warnings?: string[];
  /** Whether new secrets can go to the secret store, and why not. */
  secretStore?: SecretStoreStatus;
}

/**
 * What the Add/Edit form sends. Only the fields the form owns; on an edit every other field
 * of the stored entry (timeouts, tools, unknown fields of other clients) is kept.
 */
export interface EntryDraft {
  kind: 'stdio' | 'remote';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  /** `auto` (default: streamable HTTP with SSE fallback), `http`, `sse`. */
  transport?: string;
  /**
   * `"store"`: each new env or header value is kept in the secret store and only its
   * `${secret:NAME}` reference is written to the file (refused, saying why, when there is no store).
   */
  secrets?: 'store';
  /**
   * stdio: the entry's own `"sandbox"`. In a draft, `null` removes it (the config's top-level
   * default applies) and absent keeps the stored one; in a view, absent: the entry has none.
   */
  sandbox?: SandboxSetting | null;
}

/**
 * One server entry as the panel may see it: the form's fields, secrets masked (env values are
 * {@link SECRET_MASK} unless the whole value is a `${VAR}` reference; the url has its
 * credentials redacted; `transport` as written, `bridge` included), and what the form does not own.
 */
export interface EntryView extends EntryDraft {
  id: string;
  disabled: boolean;
  /** Exact tool names the entry turns off (`tools.deny` entries without wildcards, `denyTools`). */
  deniedTools: string[];
  /** Whether the entry runs in the bridge (false: per agent session). */
  persistent: boolean;
  /**
   * The entry's version as read: sent back with a change to it, the change is refused with
   * {@link CONFIG_CONFLICT} when the entry was changed in the file since (by an editor, another window).
   */
  version: string;
}

/** The `code` of a change refused because the entry changed in the file since the page read it (HTTP 409). */
export const CONFIG_CONFLICT = 'conflict';

/**
 * One change to the config, as the routes and the IPC receive it. `version` (optional) is the
 * {@link EntryView.version} the change was made from: when the entry is no longer that, the
 * change is refused with {@link CONFIG_CONFLICT}.
 */
export type ConfigChange =
  | { op: 'add'; id: string; entry: EntryDraft }
  | { op: 'update'; id: string; newId?: string; entry: EntryDraft; version?: string }
  | { op: 'remove'; id: string; version?: string }
  | { op: 'enable'; id: string; enabled: boolean; version?: string }
  | { op: 'tool'; id: string; tool: string; enabled: boolean; version?: string }
  | {
      op: 'import';
      text: string;
      secrets?: 'store';
      /**
       * The stored secrets the user agreed to let the snippet's entries read: the names of
       * their `${secret:NAME}` references ({@link ImportItem.secretRefs}). An import that
       * references one not listed here is refused.
       */
      allowSecretRefs?: string[];
    };

/** The answer to every change. `issues` carries the CLI's own validation messages. */
export interface ConfigChangeResult {
  ok: boolean;
  error?: string;
  /** {@link CONFIG_CONFLICT}: the entry changed in the file since the page read it; read it again. */
  code?: typeof CONFIG_CONFLICT;
  issues?: string[];
  /** Present when ok: the config as now written. */
  config?: ConfigView;
  /** What the bridge did with the written file when it applies its own changes (its panel's routes); absent where a watcher applies it (the app). */
  applied?: ConfigReloadResult;
}

/** One entry a pasted snippet would add. */
export interface ImportItem {
  id: string;
  kind: 'stdio' | 'remote';
  /** `command` and the number of arguments, or the redacted url. */
  summary: string;
  /** Fields of the snippet that this runtime ignores (e.g. `envFile`). */
  notes: string[];
  /** Env variables (stdio) or headers (remote) holding a plain value that looks secret: names, never values. */
  secrets?: string[];
  /**
   * Secrets the entry reads from the store without bringing them (`${secret:NAME}` anywhere
   * in it), each with the servers of the config it is kept for (those that use it, and the
   * one its name is given after); importing them needs the user's yes (`allowSecretRefs`).
   */
  secretRefs?: { name: string; owners: string[] }[];
}

/** What a pasted snippet would do: the entries added, the ones skipped and why. */
export interface ImportPreview {
  ok: boolean;
  /** The format recognised: `claude-desktop`, `cursor`, `vscode`, `servers-map`. */
  format?: string;
  add: ImportItem[];
  skip: { id: string; reason: string }[];
  /** Why nothing could be read at all (not JSON, no servers). */
  error?: string;
  /** When some entry carries plain secrets: whether they can be moved to the secret store (`secrets: "store"` on the import). */
  secretStore?: SecretStoreStatus;
}

export type LogLevelName = 'debug' | 'info' | 'warn' | 'error';

/** One line of a server's log. */
export interface LogLine {
  /** The runtime's level for its own lines; guessed from the text for a server's stderr. */
  level: LogLevelName;
  text: string;
  /** Where it came from: the bounded ring of recent stderr lines, or the log file. */
  source: 'ring' | 'file';
}

export interface ServerLog {
  ok: boolean;
  error?: string;
  lines: LogLine[];
  /** True when older lines exist in the log file beyond what was sent. */
  truncated: boolean;
}

/** The result of a Test call: the tool's own result (content, structuredContent, isError) or why it failed. */
export interface ToolCallResult {
  ok: boolean;
  error?: string;
  result?: {
    content?: unknown[];
    structuredContent?: unknown;
    isError?: boolean;
  };
}

/** A server's tools as a client of `/mcp/<id>` sees them, schemas included (the Test form). */
export interface ToolList {
  ok: boolean;
  error?: string;
  tools: { name: string; description?: string; inputSchema?: Record<string, unknown> }[];
}

/** The per-agent server selection (app settings): agent name -> server ids it gets; absent = all. */
export type AgentSelection = Record<string, string[]>;

export interface AgentSelectionView {
  /** The agents the app knows. */
  agents: string[];
  selection: AgentSelection;
}
