/**
 * The MCP Apps contract between the runtime and a page: a call of a tool with a view as the
 * bridge kept it (`GET /apps/views/<key>`), a view that changed since it was pinned (its 409),
 * what the app's `appView` event carries, and a view's requests as the app's IPC answers them.
 */
import type { AppCsp } from './appCsp.js';

/** A view's HTML and what its resource's `_meta.ui` asks of the host. */
export interface AppViewResource {
  uri: string;
  html: string;
  csp?: AppCsp;
  permissions?: Record<string, unknown>;
  prefersBorder?: boolean;
}

/** A call of a tool with a view, as the app's `appView` event tells it (no result: it may still run). */
export interface AppViewEvent {
  /** Its key: `GET /apps/views/<key>`, the activity record's `app.view`. */
  key: string;
  server: string;
  tool: string;
  resourceUri: string;
  arguments: Record<string, unknown>;
  /** When the call arrived (ISO 8601). */
  at: string;
  /** Claude Code's MCP `_meta["claudecode/toolUseId"]`: equal to its ACP `toolCallId`. */
  toolUseId?: string;
  /** The agent: its `clientInfo.name`, or the name its stdio proxy carries in the call (`dev.qiming/caller`). */
  client?: string;
}

/** A kept call with its view resource and the sandbox page, as `GET /apps/views/<key>` answers. */
export interface KeptAppView extends AppViewEvent {
  result?: Record<string, unknown>;
  resource: AppViewResource;
  /** The sandbox proxy page on another origin than the panel's; absent: the bridge serves none. */
  sandbox?: string;
}

/** A view resource that differs from its pin (`GET /apps/views/<key>`'s 409): accepted by its `hash`. */
export interface AppViewDrift {
  server: string;
  uri: string;
  /** The SHA-256 of the resource the server gives now. */
  hash: string;
  /** The SHA-256 pinned (first shown, or last accepted). */
  pinned: string;
}

/** A kept view asked for over the app's IPC: the view, or why not (with the drift to accept, if that is why). */
export type AppViewResult = { ok: true; view: KeptAppView } | { ok: false; error: string; drift?: AppViewDrift };

/** A view's `tools/call` or `resources/read`, or the accept of its drift, as the bridge answered it. */
export interface AppViewAnswer {
  ok: boolean;
  error?: string;
  result?: Record<string, unknown>;
}
