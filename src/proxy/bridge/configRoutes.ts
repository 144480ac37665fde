/**
 * The bridge's management routes for the panel, behind the same token, Host and Origin
 * gate as every route (httpBridgeServer.ts checks those first):
 *
 *   GET    /config                            the config, secrets masked, and the secret store's state
 *   POST   /config/servers                    {id, entry}           add
 *   PUT    /config/servers/<id>               {entry, newId?}       edit (rename)
 *   DELETE /config/servers/<id>               {}                    remove
 *   POST   /config/servers/<id>/enabled       {enabled}             `disabled`
 *   POST   /config/servers/<id>/tools         {tool, enabled}       `tools.deny`
 *   POST   /config/import/preview             {text}                what a snippet would add
 *   POST   /config/import                     {text, secrets?, allowSecretRefs?}  add it
 *   GET    /servers/<id>/log?limit=N          recent log lines
 *   GET    /servers/<id>/tools                the tools with their input schemas (Test form)
 *   POST   /servers/<id>/tools/call           {name, arguments}     the Test button
 *   /install/*                                                     install/installRoutes.ts, loaded on first use
 *
 * CSRF: every request that changes something must carry `Content-Type: application/json`
 * (415 otherwise: an HTML form cannot send it without a CORS preflight, which the bridge
 * never grants) and an `Origin` header (403 without; the gate already refused any origin
 * but the bridge's own). A body nested deeper than MAX_CONFIG_DEPTH is refused (400). A
 * change with the `version` of an entry that changed in the file since is refused with 409
 * and `code: "conflict"`. A change is written to the file; then the bridge applies it itself
 * (`applyWritten`, the same reload as SIGHUP) and the answer says what that did (`applied`).
 * What is odd in the file (duplicate keys) is in the config's `warnings` and logged once. A
 * draft with `secrets: "store"` has its new env/header values kept in the secret store first
 * (secrets/draftSecrets.ts), only their references written. A snippet that reads stored
 * secrets (`${secret:NAME}`) is imported only when `allowSecretRefs` lists each of them
 * (configImport.ts). At each read of the config and after each change, a reference to a
 * secret name that is not its entry's own (an old, ambiguous name; a renamed entry's) is moved
 * to it (secrets/secretRenames.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody, sendBodyFailure, sendError, sendJson } from './body.js';
import { changeFrom, ConfigStore, type ConfigChange } from '../config/configStore.js';
import { CONFIG_ROUTE_PATH } from './configRoutePath.js';
import { ConfigError } from '../config/config.js';
import { isPlainObject } from '../config/configEntry.js';
import { depthMessage, valueNestsDeeper } from '../config/jsonDepth.js';
import { Logger } from '../common/logger.js';
import { DEFAULT_LOG_LINES, serverLog } from './serverLog.js';
import { listToolsFor, testToolCall, type SessionOpener } from './toolTestCall.js';
import type { ConfigReloadResult, SecretStoreStatus } from '../../shared/status.js';
import type { SecretStore } from '../secrets/secretStore.js';
import { moveSecretNames as moveSecretRefs, type SecretNamesMoved } from '../secrets/secretRenames.js';

export interface ConfigRoutesOptions {
  /** The config file the routes edit; undefined when the bridge was given inline JSON (nothing to edit). */
  configFile: string | undefined;
  openSession: SessionOpener;
  /** The recent stderr lines of a running server, undefined for an unknown id. */
  ring(serverId: string): readonly string[] | undefined;
  /** The bridge's log file (`MCP_PROXY_LOG_FILE`), if it has one. */
  logFile?: string;
  /** The config's secrets masked in a text (the loggers' mask). */
  mask(text: string): string;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  /** Bound of one Test call (default 60 s). */
  toolCallTimeoutMs?: number;
  /** Told the secret store's state when a read of the config asked it (for the status). */
  onSecretStore?: (state: SecretStoreStatus) => void;
  /** Applies the file to the running servers after a change was written (the bridge's reload); absent: someone else does. */
  applyWritten?: () => Promise<ConfigReloadResult>;
}

const log = Logger.create('config');
const secretLog = Logger.create('secrets');
/** Warnings already logged: the panel reads the config after every change. */
const warned = new Set<string>();

function logWarnings(warnings: readonly string[] | undefined): void {
  for (const w of warnings ?? []) {
    if (warned.has(w)) continue;
    warned.add(w);
    log.warn(w);
  }
}

const SERVER = /^\/config\/servers\/([^/]+)(?:\/(enabled|tools))?\/?$/;
const SERVER_LOG = /^\/servers\/([^/]+)\/log\/?$/;
const SERVER_TOOLS = /^\/servers\/([^/]+)\/tools\/?$/;
const TOOL_CALL = /^\/servers\/([^/]+)\/tools\/call\/?$/;

/**
 * Why a state-changing request is refused (CSRF rules), or undefined. `types` are the body
 * types the route takes: none of them may be one a plain HTML form can send.
 */
export function writeGate(
  req: IncomingMessage,
  types: readonly string[] = ['application/json'],
): { status: number; message: string } | undefined {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (!types.includes(type))
    return {
      status: 415,
      message:
        types.length === 1 && types[0] === 'application/json'
          ? 'changes need a JSON body (Content-Type: application/json)'
          : `this route takes a body of Content-Type ${types.join(' or ')}`,
    };
  if (req.headers.origin === undefined) return { status: 403, message: 'Forbidden: changes need an Origin header' };
  return undefined;
}

function decode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

function methodNotAllowed(res: ServerResponse, allow: string): void {
  sendError(res, 405, 'method not allowed', {}, { Allow: allow });
}

/** Handles `path` when it is one of these routes; false when it is not. */
export async function handleConfigRoute(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  url: URL,
  o: ConfigRoutesOptions,
): Promise<boolean> {
  if (!CONFIG_ROUTE_PATH.test(path)) return false;
  if (path.startsWith('/install')) {
    const { handleInstallRoute } = await import('../install/installRoutes.js');
    return handleInstallRoute(req, res, path, url, { ...o, writeGate });
  }
  // A store holds nothing but the path: each change reads the file as it is now.
  const store = o.configFile === undefined ? undefined : new ConfigStore(o.configFile);
  const method = req.method ?? 'GET';
  const log = SERVER_LOG.exec(path);
  if (log) {
    if (method !== 'GET') return (methodNotAllowed(res, 'GET'), true);
    const id = decode(log[1]);
    const ring = id === undefined ? undefined : o.ring(id);
    if (id === undefined || ring === undefined) return (sendError(res, 404, `no server "${id ?? ''}"`), true);
    sendJson(
      res,
      200,
      serverLog(id, ring, o.logFile, Number(url.searchParams.get('limit') ?? DEFAULT_LOG_LINES), o.mask),
    );
    return true;
  }
  const tools = SERVER_TOOLS.exec(path);
  if (tools) {
    if (method !== 'GET') return (methodNotAllowed(res, 'GET'), true);
    const id = decode(tools[1]);
    if (id === undefined || o.ring(id) === undefined) return (sendError(res, 404, `no server "${id ?? ''}"`), true);
    sendJson(res, 200, await listToolsFor(o.openSession, id, 10_000));
    return true;
  }
  if (path === '/config' || path === '/config/') {
    if (method !== 'GET') return (methodNotAllowed(res, 'GET'), true);
    // A read, answered 200 so a read-only bridge is not an error in the page's console.
    if (!store) return (sendJson(res, 200, { ok: false, editable: false, error: NO_FILE }), true);
    try {
      const { openSecretStore, secretStoreState } = await import('../secrets/openSecretStore.js');
      const secretStore = await secretStoreState();
      o.onSecretStore?.(secretStore);
      const moved = secretStore.available ? await moveSecretNames(store, openSecretStore()) : undefined;
      const view = store.view();
      logWarnings(view.warnings);
      if (moved?.notes.length) view.warnings = [...(view.warnings ?? []), ...moved.notes];
      sendJson(res, 200, { ...view, secretStore });
    } catch (err) {
      sendError(res, 500, err instanceof ConfigError ? err.issues.join('; ') : 'cannot read the config');
    }
    return true;
  }
  // Everything else changes something (or calls a tool): the method first, then JSON and Origin.
  const route = changeRoute(path);
  if (!route) return (sendError(res, 404, 'not found'), true);
  if (!route.methods.includes(method)) return (methodNotAllowed(res, route.methods.join(', ')), true);
  const body = await writeBody(req, res, o);
  if (body === undefined) return true;
  if (route.id !== undefined && decode(route.id) === undefined)
    return (sendError(res, 400, 'malformed server id'), true);
  const id = route.id === undefined ? undefined : decode(route.id)!;
  if (route.kind === 'call') {
    if (id === undefined || o.ring(id) === undefined) return (sendError(res, 404, `no server "${id ?? ''}"`), true);
    if (typeof body.name !== 'string' || (body.arguments !== undefined && !isPlainObject(body.arguments))) {
      return (sendError(res, 400, 'expected {"name": "<tool>", "arguments": {...}}'), true);
    }
    const args = (body.arguments ?? {}) as Record<string, unknown>;
    sendJson(res, 200, await testToolCall(o.openSession, id, body.name, args, o.toolCallTimeoutMs ?? 60_000));
    return true;
  }
  if (!store) return (noFile(res), true);
  if (route.kind === 'preview') {
    if (typeof body.text !== 'string') return (sendError(res, 400, 'expected {"text": "<snippet>"}'), true);
    try {
      const preview = store.previewImport(body.text);
      if (preview.add.some((a) => a.secrets)) {
        const { secretStoreState } = await import('../secrets/openSecretStore.js');
        preview.secretStore = await secretStoreState();
      }
      // A snippet that cannot be read at all (not JSON, too deep, no servers) is a bad request.
      sendJson(res, preview.ok ? 200 : 400, preview);
    } catch (err) {
      sendError(res, 500, err instanceof ConfigError ? err.issues.join('; ') : 'cannot read the config');
    }
    return true;
  }
  const op = route.kind === 'server' ? (method === 'PUT' ? 'update' : 'remove') : route.kind;
  let change: ConfigChange | undefined = changeFrom({ ...body, op, ...(id !== undefined ? { id } : {}) });
  if (!change)
    return (sendError(res, 400, 'malformed change: see the bridge documentation for the body of this route'), true);
  if ((change.op === 'add' || change.op === 'update') && change.entry.secrets !== undefined) {
    const { openSecretStore } = await import('../secrets/openSecretStore.js');
    const kept = await (await import('../secrets/draftSecrets.js')).keepDraftSecrets(change, openSecretStore());
    if (!kept.ok) return (sendError(res, 400, kept.error), true);
    change = kept.change;
    if (kept.stored.length) secretLog.info(`kept in the secret store: ${kept.stored.join(', ')}`);
  }
  if (change.op === 'import' && change.secrets === 'store') {
    const { openSecretStore } = await import('../secrets/openSecretStore.js');
    const { keepImportSecrets } = await import('../secrets/importSecrets.js');
    const kept = await keepImportSecrets(change, openSecretStore(), (text) => store.planImport(text));
    if (!kept.ok) return (sendError(res, 400, kept.error), true);
    change = kept.change;
    if (kept.stored.length) secretLog.info(`kept in the secret store: ${kept.stored.join(', ')}`);
  }
  const result = store.apply(change);
  const { status, ...answer } = result as typeof result & { status?: number };
  if (answer.ok) {
    // A renamed entry's secrets follow it, before anything else can store under its old id's names.
    const { openSecretStore } = await import('../secrets/openSecretStore.js');
    const moved = await moveSecretNames(store, openSecretStore());
    if (moved.renamed.length) answer.config = store.view();
    if (moved.notes.length && answer.config)
      answer.config.warnings = [...(answer.config.warnings ?? []), ...moved.notes];
  }
  logWarnings(answer.config?.warnings);
  if (answer.ok && o.applyWritten) {
    answer.applied = await o.applyWritten();
    if (!answer.applied.ok) answer.error = `Saved in the config, but not applied: ${answer.applied.error}`;
  }
  sendJson(res, status ?? 200, answer);
  return true;
}

/** The config's secret references moved to their entries' own names (secrets/secretRenames.ts); what to tell the user. */
async function moveSecretNames(store: ConfigStore, secrets: SecretStore): Promise<SecretNamesMoved> {
  const moved = await moveSecretRefs(store, secrets);
  if (moved.renamed.length)
    secretLog.info(`renamed in the config: ${moved.renamed.map((r) => `${r.from} -> ${r.to}`).join(', ')}`);
  for (const note of moved.notes) secretLog.warn(note);
  return moved;
}

/** Which change a path names and the methods it takes. */
function changeRoute(
  path: string,
):
  | { kind: 'add' | 'import' | 'preview' | 'call' | 'server' | 'enable' | 'tool'; methods: string[]; id?: string }
  | undefined {
  const p = path.replace(/\/$/, '');
  if (p === '/config/servers') return { kind: 'add', methods: ['POST'] };
  if (p === '/config/import') return { kind: 'import', methods: ['POST'] };
  if (p === '/config/import/preview') return { kind: 'preview', methods: ['POST'] };
  const call = TOOL_CALL.exec(path);
  if (call) return { kind: 'call', methods: ['POST'], id: call[1] };
  const server = SERVER.exec(path);
  if (!server) return undefined;
  if (server[2] === 'enabled') return { kind: 'enable', methods: ['POST'], id: server[1] };
  if (server[2] === 'tools') return { kind: 'tool', methods: ['POST'], id: server[1] };
  return { kind: 'server', methods: ['PUT', 'DELETE'], id: server[1] };
}

const NO_FILE =
  'the bridge was started with inline JSON (--config {...}): there is no config file to edit; start it with --config-file <path>';

function noFile(res: ServerResponse): void {
  sendError(res, 409, NO_FILE);
}

/** The JSON object body of a change, after the CSRF rules; undefined once an answer was sent. */
async function writeBody(
  req: IncomingMessage,
  res: ServerResponse,
  o: ConfigRoutesOptions,
): Promise<Record<string, unknown> | undefined> {
  const refused = writeGate(req);
  if (refused) {
    req.resume();
    sendError(res, refused.status, refused.message);
    return undefined;
  }
  const read = await readJsonBody(req, o.maxBodyBytes, o.bodyTimeoutMs);
  if (!read.ok) {
    sendBodyFailure(res, read.reason, o.maxBodyBytes);
    return undefined;
  }
  if (!isPlainObject(read.value)) {
    sendError(res, 400, 'the body must be a JSON object');
    return undefined;
  }
  if (valueNestsDeeper(read.value)) {
    sendError(res, 400, depthMessage('the request body'));
    return undefined;
  }
  return read.value;
}
